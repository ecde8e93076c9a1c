package sem_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/sem"
)

// TestModuleMetadata: a module's metadata.yaml names its entry file;
// without one, or with one that says nothing, it is main.mcl. One that
// cannot be parsed is an error at its line, whether the module is given
// or imported, never a module read from main.mcl that the file did not
// name.
func TestModuleMetadata(t *testing.T) {
	dir := t.TempDir()
	mod := filepath.Join(dir, "m")
	os.MkdirAll(mod, 0o755)
	os.WriteFile(filepath.Join(mod, "main.mcl"), []byte("$which = \"main\"\n"), 0o644)
	os.WriteFile(filepath.Join(mod, "entry.mcl"), []byte("$which = \"entry\"\n"), 0o644)
	top := filepath.Join(dir, "top.mcl")
	os.WriteFile(top, []byte("import \"m/\"\ntest [$m.which] {}\n"), 0o644)
	md := filepath.Join(mod, "metadata.yaml")
	for _, c := range []struct{ metadata, want string }{
		{"", "test[main]"},
		{"# defaults\n", "test[main]"},
		{"main: entry.mcl\n", "test[entry]"},
		{"main: [entry.mcl\n", md + ":1:1: scope error: did not find expected ',' or ']'"},
		{"license: x\nmain: [entry.mcl]\n", md + ":2:1: scope error: cannot unmarshal !!seq into string"},
	} {
		os.Remove(md)
		if c.metadata != "" {
			os.WriteFile(md, []byte(c.metadata), 0o644)
		}
		got := ""
		p, err := sem.Check(top, nil, sem.Options{})
		if err != nil {
			got = err.Error()
		} else {
			err = sem.NewEngine(p).Run(context.Background(), true, func(d *graph.Document) error {
				got = d.Resources[0].Kind + "[" + d.Resources[0].Name + "]"
				return nil
			})
			if err != nil {
				t.Fatalf("%q: %v", c.metadata, err)
			}
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("metadata.yaml %q: got %q, want %q", c.metadata, got, c.want)
		}
		if strings.HasPrefix(c.want, md) {
			if _, err := sem.ModuleMain(mod); err == nil || err.Error() != c.want {
				t.Errorf("ModuleMain with metadata.yaml %q: %v, want %s", c.metadata, err, c.want)
			}
		}
	}
}
