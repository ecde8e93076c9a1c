package resources_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestKindExamples compiles each example of examples/kinds with
// mcl-compile --once and prepares it with mgmt-apply --print-graph, and
// checks the kinds and the edges (automatic ones included) of the result.
func TestKindExamples(t *testing.T) {
	for dir, want := range map[string]struct {
		kinds []string
		edges []string // "from -> to" as kind[name]
	}{
		"line": {[]string{"file", "line"}, []string{
			"file[/tmp/mgmt-kinds/app.conf] -> line[listen]", "file[/tmp/mgmt-kinds/app.conf] -> line[no-debug]"}},
		"sysctl":             {[]string{"sysctl"}, nil},
		"ssh-authorized-key": {[]string{"ssh:authorized_key", "user"}, []string{"user[deploy] -> ssh:authorized_key[deploy-ci]"}},
		"json-edit":          {[]string{"exec", "json:edit"}, []string{"exec[settings.json] -> json:edit[/tmp/mgmt-kinds/settings.json]"}},
		"tar-gzip": {[]string{"file", "tar", "gzip"}, []string{
			"file[/tmp/mgmt-kinds/] -> tar[/tmp/mgmt-kinds.tar]", "tar[/tmp/mgmt-kinds.tar] -> gzip[/tmp/mgmt-kinds.tar.gz]"}},
		"exit": {[]string{"file", "exit"}, []string{"file[/tmp/mgmt-kinds-done] -> exit[finished]"}},
	} {
		t.Run(dir, func(t *testing.T) {
			src := filepath.Join(testutil.Root(), "examples", "kinds", dir, "main.mcl")
			c := testutil.Run(t, "", "mcl-compile", "--once", src)
			if c.Code != 0 {
				t.Fatalf("mcl-compile: exit %d\n%s", c.Code, c.Stderr)
			}
			a := testutil.Run(t, c.Stdout, "mgmt-apply", "--print-graph")
			if a.Code != 0 {
				t.Fatalf("mgmt-apply --print-graph: exit %d\n%s", a.Code, a.Stderr)
			}
			var g struct {
				Resources []ref
				Edges     []struct{ From, To ref }
			}
			if err := json.Unmarshal([]byte(a.Stdout), &g); err != nil {
				t.Fatalf("%v: %s", err, a.Stdout)
			}
			var kinds, edges []string
			for _, r := range g.Resources {
				kinds = append(kinds, r.Kind)
			}
			for _, e := range g.Edges {
				edges = append(edges, e.From.Kind+"["+e.From.Name+"] -> "+e.To.Kind+"["+e.To.Name+"]")
			}
			for _, k := range want.kinds {
				if !slices.Contains(kinds, k) {
					t.Errorf("no %s resource in %v", k, kinds)
				}
			}
			for _, e := range want.edges {
				if !slices.Contains(edges, e) {
					t.Errorf("no edge %s in %v", e, edges)
				}
			}
		})
	}
}
