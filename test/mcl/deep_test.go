package mcl

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestDeepPrograms runs mcl-compile on programs a million terms, brackets
// or definitions deep: each ends with exit code 1 and a positioned error,
// never a crash of the tool.
func TestDeepPrograms(t *testing.T) {
	const n = 1000000
	rep := strings.Repeat
	var vars strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&vars, "$a%d = $a%d\n", i, i+1)
	}
	fmt.Fprintf(&vars, "$a%d = 1\n", n)
	for _, c := range []struct{ name, src, want string }{
		{"sum", "$x = 1" + rep(" + 1", n-1) + "\n", `main.mcl:1:2004: syntax error: expression too long`},
		{"parentheses", "$x = " + rep("(", n) + "1" + rep(")", n) + "\n", `main.mcl:1:2006: syntax error: expressions nested too deeply`},
		{"lists", "$x = " + rep("[", n) + rep("]", n) + "\n", `main.mcl:1:2006: syntax error: expressions nested too deeply`},
		{"maps", "$x = " + rep("{1 => ", n) + "1" + rep("}", n) + "\n", `main.mcl:1:12001: syntax error: expressions nested too deeply`},
		{"if expressions", "$x = " + rep("if true { ", n) + "1" + rep(" } else { 2 }", n) + "\n", `main.mcl:1:\d+: syntax error: expressions nested too deeply`},
		{"calls", "$x = " + rep("f(", n) + "1" + rep(")", n) + "\n", `main.mcl:1:4006: syntax error: expressions nested too deeply`},
		{"variables", vars.String(), `main.mcl:10000:10: scope error: program nested too deeply`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.mcl"), []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			r := testutil.Run(t, "", "mcl-compile", "--once", filepath.Join(dir, "main.mcl"))
			if r.Code != 1 || !regexp.MustCompile(c.want).MatchString(r.Stderr) {
				t.Fatalf("exit %d, stderr %q; want exit 1 and an error matching %q", r.Code, r.Stderr, c.want)
			}
		})
	}
}

// TestProgramTooLarge: a program larger than 256 MiB (a sparse file here),
// given or imported, is refused with its name from its size, before any
// of it is read.
func TestProgramTooLarge(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.mcl")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 300<<20); err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(dir, "main.mcl")
	os.WriteFile(mod, []byte("import \"big.mcl\" as big\n"), 0o644)
	for _, c := range []struct{ path, want string }{
		{big, big + ":1:1: scope error: larger than 256 MiB, the largest input read whole"},
		{mod, "main.mcl:1:1: scope error: import \"big.mcl\": " + big + ": larger than 256 MiB"},
	} {
		r := testutil.Run(t, "", "mcl-compile", "--once", c.path)
		if r.Code != 1 || !strings.Contains(r.Stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and %q", c.path, r.Code, r.Stderr, c.want)
		}
	}
}
