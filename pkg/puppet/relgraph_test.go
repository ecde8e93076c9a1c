package puppet

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
)

// exampleNames lists the examples of testdata/examples (copies of the
// catalogs and graphs real Puppet produced for the shared examples).
func exampleNames(t *testing.T) []string {
	t.Helper()
	m, err := filepath.Glob("testdata/examples/*.pp")
	if err != nil || len(m) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	var out []string
	for _, f := range m {
		out = append(out, strings.TrimSuffix(filepath.Base(f), ".pp"))
	}
	return out
}

func loadCatalog(t *testing.T, path string) *catalog.Catalog {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := catalog.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func edgeString(s, t, ev, cb string) string {
	return s + " -> " + t + " [" + ev + "/" + cb + "]"
}

// TestRelGraphMatchesPuppet compares the relationship graph built from each
// example catalog with the one Puppet itself dumped: same vertices (ref and
// name) and the same multiset of labelled edges.
func TestRelGraphMatchesPuppet(t *testing.T) {
	for _, name := range exampleNames(t) {
		t.Run(name, func(t *testing.T) {
			c := loadCatalog(t, "testdata/examples/"+name+".catalog.json")
			g, err := BuildRelGraph(c)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile("testdata/examples/" + name + ".relgraph.json")
			if err != nil {
				t.Fatal(err)
			}
			var want struct {
				Vertices []struct{ Ref, Type, Name string }
				Edges    []struct{ Source, Target, Event, Callback string }
			}
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			var gotV, wantV, gotE, wantE []string
			for _, v := range g.Vertices {
				gotV = append(gotV, v.Ref+" "+v.Type+" "+v.Name)
			}
			for _, v := range want.Vertices {
				wantV = append(wantV, v.Ref+" "+v.Type+" "+v.Name)
			}
			for _, e := range g.Edges {
				gotE = append(gotE, edgeString(e.Source.Ref, e.Target.Ref, e.Event, e.Callback))
			}
			for _, e := range want.Edges {
				wantE = append(wantE, edgeString(e.Source, e.Target, e.Event, e.Callback))
			}
			sameSet(t, "vertices", gotV, wantV)
			sameSet(t, "edges", gotE, wantE)
		})
	}
}

func sameSet(t *testing.T, what string, got, want []string) {
	t.Helper()
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s differ:\ngot:\n  %s\nwant:\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestTranslateMissingRelationship: a catalog whose relationship names a
// missing resource is refused, and nothing is logged about the resources
// before it, which are translated meanwhile (one goes to pippet).
func TestTranslateMissingRelationship(t *testing.T) {
	var res []*catalog.Resource
	for i := range 300 {
		res = append(res, &catalog.Resource{Type: "Unknownthing", Title: fmt.Sprint("u", i), Kind: catalog.KindCompilable, Params: map[string]any{}})
	}
	res = append(res, &catalog.Resource{Type: "File", Title: "/f", Kind: catalog.KindCompilable, File: "site.pp", Line: 3,
		Params: map[string]any{"ensure": "file", "require": "File[/missing]"}})
	c := &catalog.Catalog{Name: "n", Resources: res}
	var log strings.Builder
	_, _, err := Translate(c, Options{Log: func(l string) { log.WriteString(l + "\n") }})
	want := "site.pp:3: could not find resource 'File[/missing]' for relationship from 'File[/f]'"
	if err == nil || err.Error() != want {
		t.Errorf("got error %v, want %s", err, want)
	}
	if log.Len() > 0 {
		t.Errorf("logged before the error:\n%s", log.String())
	}
}

// TestTranslateSameRef: two vertices that translate to the same
// reference (here an anchor and the whit of a class) are refused, naming
// both.
func TestTranslateSameRef(t *testing.T) {
	res := []*catalog.Resource{{Type: "Class", Title: "main", Kind: catalog.KindCompilable, Params: map[string]any{}},
		{Type: "Anchor", Title: "completed_Class[Main]", Kind: catalog.KindCompilable, File: "site.pp", Line: 1, Params: map[string]any{}}}
	for i := range 50 {
		res = append(res, &catalog.Resource{Type: "Package", Title: fmt.Sprint("p", i), Kind: catalog.KindCompilable,
			File: "site.pp", Line: 2 + i, Params: map[string]any{"ensure": "installed"}})
	}
	_, _, err := Translate(&catalog.Catalog{Name: "n", Resources: res}, Options{})
	want := "Whit[Completed_class[Main]] and site.pp:1 both translate to noop[completed_Class[Main]]"
	if err == nil || err.Error() != want {
		t.Errorf("got error %v, want %s", err, want)
	}
}
