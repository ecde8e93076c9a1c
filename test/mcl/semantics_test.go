package mcl

import (
	"path/filepath"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestSemantics runs the cases of testdata/semantics, written in the
// layout of the conformance corpus (files, then OUTPUT with the graph or
// "# err: errStage: ..."), through the built tools as TestConformance
// does: `mcl-compile --once DIR/ | mgmt-apply --print-graph`, so the
// printed graph holds the automatic edges. Every case must pass.
func TestSemantics(t *testing.T) {
	cases, _ := filepath.Glob(filepath.Join("testdata", "semantics", "*.txtar"))
	if len(cases) == 0 {
		t.Fatal("no cases in testdata/semantics")
	}
	bin := testutil.Tools(t)
	for _, c := range cases {
		t.Run(filepath.Base(c), func(t *testing.T) {
			if why := conformanceCase(bin, c); why != "" {
				t.Error(why)
			}
		})
	}
}
