package puppet

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// translateNative writes the manifest to site.pp in dir, translates it
// with puppet-graph's native engine (Debian's module path) and checks
// that every resource became one of kinds (or a class's noop).
func translateNative(t *testing.T, dir, manifest string, kinds ...string) *graph.Document {
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
		if r.Kind != "noop" && !slices.Contains(kinds, r.Kind) {
			t.Errorf("%s[%s] is not translated to a %s", r.Kind, r.Name, strings.Join(kinds, " or "))
		}
	}
	return docs[0]
}

// puppetApply applies the manifest site with puppet apply and args, and
// fails the test when a resource fails.
func puppetApply(t *testing.T, site string, args ...string) {
	t.Helper()
	out, err := exec.Command("puppet", append(append([]string{"apply"}, args...), site)...).CombinedOutput()
	if err != nil || strings.Contains(string(out), "Error: /Stage") {
		t.Fatalf("puppet apply: %v\n%s", err, out)
	}
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
