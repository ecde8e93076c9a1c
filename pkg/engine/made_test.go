package engine_test

import (
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// TestBuildMadeSameErrors checks that a graph whose accepted resources
// were made beforehand (BuildOptions.Made, which Build does not check
// alone again) is refused with the very errors, positions included, of
// the same graph built from scratch: the problems of the resources not
// made, differing duplicates, edges to missing resources.
func TestBuildMadeSameErrors(t *testing.T) {
	register()
	spec := func() *graph.Document {
		return doc(1, []string{"a want=1", "b want=2", "c want=3 meta.retry=-5", "$d want=4", "a want=9", "e want=5"},
			"a -> b", "b -> zz", "a -> e", "a -> e")
	}
	want := ""
	if _, err := engine.Build(spec(), engine.BuildOptions{}); err == nil {
		t.Fatal("the graph was accepted")
	} else {
		want = err.Error()
	}
	d := spec()
	made := map[*graph.Resource]engine.Res{}
	for _, r := range d.Resources {
		if graph.CheckResource(r) != nil {
			continue
		}
		res, err := engine.NewRes(r)
		if err != nil {
			t.Fatalf("NewRes(%s): %v", r.Ref(), err)
		}
		made[r] = res
	}
	if len(made) != 4 {
		t.Fatalf("made %d resources, want 4 (a, b, the second a, e)", len(made))
	}
	_, err := engine.Build(d, engine.BuildOptions{Made: made, NoDigests: true})
	if err == nil {
		t.Fatal("the graph with made resources was accepted")
	}
	if got := err.Error(); got != want {
		t.Errorf("errors with made resources:\n%s\nwant those without:\n%s", got, want)
	}
	for _, s := range []string{"retry -5", "starts with a $", "duplicate resource tval[a]", "no resource tval[zz]"} {
		if !strings.Contains(want, s) {
			t.Errorf("errors %q do not hold %q", want, s)
		}
	}

	// Valid, the same graph either way.
	ok := func() *graph.Document { return doc(1, []string{"a want=1", "b want=2"}, "a -> b", "a ~> b") }
	d = ok()
	made = map[*graph.Resource]engine.Res{}
	for _, r := range d.Resources {
		res, err := engine.NewRes(r)
		if err != nil {
			t.Fatal(err)
		}
		made[r] = res
	}
	g, err := engine.Build(d, engine.BuildOptions{Made: made})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Edges) != 1 || !g.Edges[0].Notify || g.Len() != 2 {
		t.Errorf("got %d edges (notify %v) and %d resources, want one notifying edge and 2", len(g.Edges), len(g.Edges) > 0 && g.Edges[0].Notify, g.Len())
	}
}
