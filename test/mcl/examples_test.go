package mcl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/all"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/library"
	"github.com/mgmtpipe/mgmt/pkg/lang/sem"
	_ "github.com/mgmtpipe/mgmt/pkg/resources/all"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestExamplesCheck type-checks every mcl program under examples/ (the
// main.mcl of each example directory), as mcl-compile --check does. A
// directory with a go.mod of its own is a module that builds its own tools
// with its own functions (examples/extend): test/extend checks it with them.
func TestExamplesCheck(t *testing.T) {
	root := filepath.Join(testutil.Root(), "examples")
	n := 0
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != root {
			if _, serr := os.Stat(filepath.Join(p, "go.mod")); serr == nil {
				return filepath.SkipDir
			}
		}
		if err != nil || d.IsDir() || filepath.Base(p) != "main.mcl" {
			return err
		}
		n++
		name := strings.TrimPrefix(p, root+"/")
		t.Run(name, func(t *testing.T) {
			if _, err := sem.Check(p, nil, sem.Options{}); err != nil {
				t.Fatal(err)
			}
		})
		return nil
	})
	if n == 0 {
		t.Fatal("no examples found")
	}
}
