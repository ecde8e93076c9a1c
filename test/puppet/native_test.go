package puppet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// translateNative writes the manifest to site.pp in dir, translates it
// with puppet-graph's native engine (Debian's module path) and checks
// that every resource became one of kind (or a class's noop).
func translateNative(t *testing.T, dir, manifest, kind string) *graph.Document {
	t.Helper()
	site := filepath.Join(dir, "site.pp")
	os.WriteFile(site, []byte(manifest), 0o644)
	p := testutil.Run(t, "", "puppet-graph", "--engine", "native", "--modulepath", "/usr/share/puppet/modules", site)
	if p.Code != 0 {
		t.Fatalf("puppet-graph: exit %d: %s", p.Code, p.Stderr)
	}
	docs, err := graph.ReadAll(strings.NewReader(p.Stdout), "puppet-graph")
	if err != nil || len(docs) != 1 {
		t.Fatalf("decoding the graph: %v", err)
	}
	for _, r := range docs[0].Resources {
		if r.Kind != kind && r.Kind != "noop" {
			t.Errorf("%s[%s] is not translated to a %s", r.Kind, r.Name, kind)
		}
	}
	return docs[0]
}

// applyGraph applies doc with mgmt-apply until it converges.
func applyGraph(t *testing.T, doc *graph.Document) {
	t.Helper()
	var in strings.Builder
	if err := graph.Encode(&in, doc, graph.JSON); err != nil {
		t.Fatal(err)
	}
	a := testutil.Run(t, in.String(), "mgmt-apply", "--converged-timeout", "1", "--tmp-prefix")
	if a.Code != 0 {
		t.Fatalf("mgmt-apply: exit %d: %s", a.Code, a.Stderr)
	}
}
