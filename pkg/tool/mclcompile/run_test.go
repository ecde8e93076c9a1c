package mclcompile

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unknownKinds is a program with resources of unknown kinds in branches
// not taken, one in a class included twice.
const unknownKinds = `if false {
	fiel "/x" {
		content => "hi",
	}
}
class c($n) {
	if $n == "" {
		pkgg $n {}
	}
}
include c("a")
include c("b")
`

// TestRun runs the tool in-process on small programs.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.mcl"), []byte("test [$hostname] {}\n"), 0o644)
	for _, tc := range []struct {
		name       string
		args       []string
		stdin      string
		code       int
		out, errs  string
		outNotHave string
	}{
		{name: "file", args: []string{"--once", "--hostname", "h1", filepath.Join(dir, "main.mcl")}, out: `"name":"h1"`},
		{name: "dir", args: []string{dir}, out: `"seq":1`},
		{name: "var", args: []string{"--once", "--var", "purpleidea=x", "-"}, stdin: "test [$purpleidea] {}\n", out: `"name":"x"`},
		{name: "var-hostname", args: []string{"--once", "--hostname", "h1", "--var", "hostname=", "-"}, stdin: "test [\"<${hostname}>\"] {}\n", out: `"name":"<>"`},
		{name: "check", args: []string{"--check", "-"}, stdin: "test \"a\" {}\n", outNotHave: "mgmt"},
		{name: "print-ast", args: []string{"--print-ast", "-"}, stdin: "$a=1+2*3\n", out: "$a = 1 + (2 * 3)\n"},
		{name: "print-ast-comments", args: []string{"--print-ast", "-"}, stdin: "# the sum\n$a=1+2 # three\n", out: "# the sum\n$a = 1 + 2 # three\n"},
		{name: "syntax", args: []string{"-"}, stdin: "test \"a\" {\n", code: 1, errs: "<stdin>:2:1: syntax error:"},
		{name: "syntax-all", args: []string{"--check", "-"}, stdin: "$a = )\n$b = 1\n$c = ]\n$d = 2 3\n", code: 1, errs: "mcl-compile: <stdin>:1:6: syntax error: unexpected \")\", expecting an expression\nmcl-compile: <stdin>:3:6: syntax error: unexpected \"]\", expecting an expression\nmcl-compile: <stdin>:4:8: syntax error: unexpected INTEGER, expecting NEWLINE\n"},
		{name: "type-all", args: []string{"--check", "-"}, stdin: "$a = not 1\n$b = 2\n$c = if 3 { 4 } else { 5 }\n$d str = 6\n", code: 1, errs: "mcl-compile: <stdin>:1:6: type error: operand of not: int does not match bool\nmcl-compile: <stdin>:3:9: type error: if condition: int does not match bool\nmcl-compile: <stdin>:4:1: type error: $d is annotated str, but its value (6 at <stdin>:4:10) is int\n"},
		{name: "scope", args: []string{"-"}, stdin: "test [$nope] {}\n", code: 1, errs: "<stdin>:1:7: scope error: variable $nope does not exist"},
		{name: "type", args: []string{"-"}, stdin: "$x = 1 + \"a\"\n", code: 1, errs: "type error: operands of +"},
		{name: "runtime", args: []string{"-"}, stdin: "panic(\"boom\")\n", code: 1, errs: "<stdin>:1:1: runtime error: panic: boom", out: `"error":{"message":"runtime error: panic: boom","pos":"<stdin>:1:1"}`},
		{name: "usage", args: []string{}, code: 2, errs: "expected"},
		{name: "unknown-kind", args: []string{"-"}, stdin: "nosuchkind \"x\" {}\n", code: 1, errs: "<stdin>:1:1: runtime error: cannot create resource kind `nosuchkind`"},
		{name: "unknown-kind-suggest", args: []string{"-"}, stdin: "fiel \"/x\" {}\n", code: 1, errs: "<stdin>:1:1: runtime error: cannot create resource kind `fiel` with name `/x`: no resource kind `fiel` available (did you mean \"file\"?)"},
		// A branch not taken creates nothing: a run accepts it, --check
		// does not, and reports every statement of an unknown kind.
		{name: "unknown-kind-dead", args: []string{"--once", "-"}, stdin: unknownKinds, out: `"seq":1,"source":"mcl-compile -"}`},
		{name: "unknown-kind-check", args: []string{"--check", "-"}, stdin: unknownKinds, code: 1,
			errs: "<stdin>:2:2: runtime error: no resource kind `fiel` available (did you mean \"file\"?)\n" +
				"mcl-compile: <stdin>:8:3: runtime error: no resource kind `pkgg` available (did you mean \"pkg\"?)\n"},
		{name: "schema-type", args: []string{"-"}, stdin: "file \"/x\" {\n\tmode => 644,\n}\n", code: 1, errs: "<stdin>:2:2: type error: parameter mode of file wants str, got int (644 at <stdin>:2:10)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errs bytes.Buffer
			code := Run(context.Background(), tc.args, strings.NewReader(tc.stdin), &out, &errs)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, errs.String())
			}
			if !strings.Contains(out.String(), tc.out) {
				t.Errorf("stdout %q lacks %q", out.String(), tc.out)
			}
			if !strings.Contains(errs.String(), tc.errs) {
				t.Errorf("stderr %q lacks %q", errs.String(), tc.errs)
			}
			if tc.outNotHave != "" && strings.Contains(out.String(), tc.outNotHave) {
				t.Errorf("stdout %q has %q", out.String(), tc.outNotHave)
			}
		})
	}
}
