package puppet

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestMergedExamples runs puppet-graph on the catalogs of the mixed-graph
// examples 2 and 3 (examples/puppet/mixed-ex2, mixed-ex3), merges each with its mcl side
// through graph-merge and compares the vertices and edges with the merged
// graphs of ../shared/puppet/examples/exN.merged.txt.
func TestMergedExamples(t *testing.T) {
	shared := testutil.NeedShared(t)
	ex := filepath.Join(shared, "puppet", "examples")
	for _, name := range []string{"ex2", "ex3"} {
		t.Run(name, func(t *testing.T) {
			p := testutil.Run(t, "", "puppet-graph", "--catalog", filepath.Join(ex, name+".catalog.json"))
			if p.Code != 0 {
				t.Fatalf("puppet-graph: %s", p.Stderr)
			}
			pj := filepath.Join(t.TempDir(), "p.json")
			os.WriteFile(pj, []byte(p.Stdout), 0o644)
			g := testutil.Run(t, "", "graph-merge", filepath.Join(ex, name+".lang.yaml"), pj)
			if g.Code != 0 {
				t.Fatalf("graph-merge: %s", g.Stderr)
			}
			docs, err := graph.ReadAll(strings.NewReader(g.Stdout), "merged")
			if err != nil || len(docs) != 1 {
				t.Fatalf("merged output: %v", err)
			}
			var got []string
			for _, r := range docs[0].Resources {
				got = append(got, "v "+r.Ref().String())
			}
			for _, e := range docs[0].Edges {
				got = append(got, "e "+e.From.String()+" -> "+e.To.String())
			}
			want := readMerged(t, filepath.Join(ex, name+".merged.txt"))
			sort.Strings(got)
			if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
				t.Errorf("merged graph:\n%s\nwant:\n%s", g, w)
			}
		})
	}
}

// readMerged reads the vertex and edge lists of an exN.merged.txt file.
func readMerged(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	section := ""
	for _, line := range strings.Split(string(b), "\n") {
		switch strings.TrimSpace(line) {
		case "vertices:":
			section = "v "
			continue
		case "edges:":
			section = "e "
			continue
		}
		if item, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok && section != "" {
			out = append(out, section+item)
		}
	}
	sort.Strings(out)
	return out
}

// TestMergedExample1 is the mixed-graph example 1: no hand-over vertices, so
// the merged graph is the union of the two graphs, each keeping its edges.
func TestMergedExample1(t *testing.T) {
	shared := testutil.NeedShared(t)
	p := testutil.Run(t, "", "puppet-graph", "--catalog", filepath.Join(shared, "puppet", "examples", "ex1.catalog.json"))
	if p.Code != 0 {
		t.Fatalf("puppet-graph: %s", p.Stderr)
	}
	dir := t.TempDir()
	pj, lj := filepath.Join(dir, "p.json"), filepath.Join(dir, "lang.json")
	os.WriteFile(pj, []byte(p.Stdout), 0o644)
	os.WriteFile(lj, []byte(`{"mgmt":"graph/v1","graph":"lang","seq":1,"resources":[`+
		`{"kind":"file","name":"/tmp/mgmt_dir/","params":{"state":"exists"}},`+
		`{"kind":"file","name":"/tmp/mgmt_dir/a","params":{"state":"exists"}}],`+
		`"edges":[{"from":{"kind":"file","name":"/tmp/mgmt_dir/"},"to":{"kind":"file","name":"/tmp/mgmt_dir/a"}}]}`+"\n"), 0o644)
	g := testutil.Run(t, "", "graph-merge", lj, pj)
	if g.Code != 0 {
		t.Fatalf("graph-merge: %s", g.Stderr)
	}
	for _, want := range []string{
		`{"from":{"kind":"file","name":"/tmp/mgmt_dir/"},"to":{"kind":"file","name":"/tmp/mgmt_dir/a"}}`,
		`{"from":{"kind":"file","name":"/tmp/puppet_dir"},"to":{"kind":"file","name":"/tmp/puppet_dir/a"}}`,
		`"name":"admissible_Stage[main]"`,
	} {
		if !strings.Contains(g.Stdout, want) {
			t.Errorf("merged graph lacks %s:\n%s", want, g.Stdout)
		}
	}
}
