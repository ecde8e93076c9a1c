package docs

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/refdoc/generate"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/sem"
)

// TestReferenceInSync fails when a kind or function changed (or was added)
// without regenerating docs/reference, or lacks its documentation.
func TestReferenceInSync(t *testing.T) {
	files, problems, err := generate.Files("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("undocumented: %s", p)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is out of date with the registries and doc comments: run go generate ./docs", name)
		}
	}
}

// TestFunctionExamples type-checks every function's example, as an
// expression or else as a statement, in a program importing its module.
func TestFunctionExamples(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "main.mcl")
	check := func(src string) error {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := sem.Check(path, []byte(src), sem.Options{})
		return err
	}
	for _, f := range funcs.All() {
		if strings.HasPrefix(f.Name, "_") || f.Example == "" {
			continue
		}
		imp := ""
		if f.Module != "" {
			imp = "import \"" + f.Module + "\"\n"
		}
		err := check(imp + "$x = " + f.Example + "\n")
		if err != nil && check(imp+f.Example+"\n") == nil {
			err = nil
		}
		if err != nil {
			t.Errorf("example of %s does not compile: %v\n%s", f.FullName(), err, f.Example)
		}
	}
}
