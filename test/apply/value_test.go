package apply

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestValueAny compiles an mcl program whose value resources hold values
// of several types in their any parameter (a variant) and send one to a
// file's content, applies it, and reads the value store and the file; a
// second compile reads the stored struct back with value.get.
func TestValueAny(t *testing.T) {
	dir, prefix := t.TempDir(), t.TempDir()
	out := filepath.Join(dir, "out")
	prog := filepath.Join(dir, "main.mcl")
	src := `import "value"
value "n" { any => 42, }
value "s" { any => struct{a => "x", b => [1, 2,],}, }
value "greeting" { any => "hello", }
file "` + out + `" { state => "exists", }
Value["greeting"].any -> File["` + out + `"].content
$v struct{value struct{a str; b []int}; ready bool} = value.get("s")
file "` + out + `.read" { state => "exists", content => $v->value->a, }
`
	if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	c := testutil.Run(t, "", "mcl-compile", "--prefix", prefix, "--once", prog)
	if c.Code != 0 {
		t.Fatalf("mcl-compile: exit %d\n%s", c.Code, c.Stderr)
	}
	r := testutil.Run(t, c.Stdout, "mgmt-apply", "--prefix", prefix, "--converged-timeout", "0")
	if r.Code != 0 {
		t.Fatalf("mgmt-apply: exit %d\n%s", r.Code, r.Stderr)
	}
	for key, want := range map[string]string{"n": "42", "s": `{"a":"x","b":[1,2]}`, "greeting": `"hello"`} {
		if got := readFile(t, filepath.Join(prefix, "value", key)); got != want {
			t.Errorf("value %s stored %q, want %q", key, got, want)
		}
	}
	if got := readFile(t, out); got != "hello" {
		t.Errorf("received content %q, want hello", got)
	}
	c = testutil.Run(t, "", "mcl-compile", "--prefix", prefix, "--once", prog)
	r = testutil.Run(t, c.Stdout, "mgmt-apply", "--prefix", prefix, "--converged-timeout", "0")
	if got := readFile(t, out+".read"); c.Code != 0 || r.Code != 0 || got != "x" {
		t.Errorf("value.get of the stored struct: %q (exit %d, %d)\n%s%s", got, c.Code, r.Code, c.Stderr, r.Stderr)
	}
}
