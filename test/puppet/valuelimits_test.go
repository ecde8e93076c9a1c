package puppet

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestHieraBillionLaughs: a module's Hiera data of ten lines, each an
// array of nine aliases of the line before (nine to the tenth strings if
// every alias were copied), is read as Ruby reads it, the aliases sharing
// their anchors' values: a class that measures the value compiles, and one
// that prints it is refused at its expression. puppet-graph took the
// host's memory on both until the kernel killed it.
func TestHieraBillionLaughs(t *testing.T) {
	dir := testutil.SharedTempDir(t)
	mod := filepath.Join(dir, "modules", "m")
	for _, p := range []string{filepath.Join(mod, "manifests"), filepath.Join(mod, "data")} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var data strings.Builder
	data.WriteString(`m::a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]` + "\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&data, "m::a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 9), ", "))
	}
	os.WriteFile(filepath.Join(mod, "data", "common.yaml"), []byte(data.String()), 0o644)
	os.WriteFile(filepath.Join(mod, "hiera.yaml"), []byte("---\nversion: 5\nhierarchy:\n  - name: common\n    path: common.yaml\n"), 0o644)
	initPP := filepath.Join(mod, "manifests", "init.pp")
	site := filepath.Join(dir, "site.pp")
	os.WriteFile(site, []byte("include m\n"), 0o644)
	args := []string{"--engine", "native", "--modulepath", filepath.Join(dir, "modules"), "--manifest", site}

	os.WriteFile(initPP, []byte(`class m { $x = lookup("m::a9") notify { "n": message => "${size($x)} ${size($x[0])}" } }`+"\n"), 0o644)
	if r := testutil.Run(t, "", "puppet-graph", args...); r.Code != 0 || !strings.Contains(r.Stdout, `"body":"9 9"`) {
		t.Fatalf("measured: exit %d, want 0 and notify 9 9:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	os.WriteFile(initPP, []byte(`class m { $x = lookup("m::a9") notify { "n": message => "${x}" } }`+"\n"), 0o644)
	want := initPP + ":1:60: a string longer than 256 MiB: more than the native engine holds"
	if r := testutil.Run(t, "", "puppet-graph", args...); r.Code != 1 || !strings.Contains(r.Stderr, want) {
		t.Errorf("printed: exit %d, want 1 and %q:\n%s", r.Code, want, r.Stderr)
	}
}
