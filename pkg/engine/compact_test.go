package engine_test

import (
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// TestSwapOfCompactedGraphs checks that graphs compacted before they are
// loaded swap as the full ones do: a resource whose parameters are the
// same stays running untouched, a changed one is replaced.
func TestSwapOfCompactedGraphs(t *testing.T) {
	h := start(t, engine.Config{})
	load := func(d *graph.Document) {
		t.Helper()
		g, err := engine.Build(d, engine.BuildOptions{})
		if err != nil {
			t.Fatalf("build: %v", err)
		}
		g.Compact()
		h.e.Load(g)
	}
	load(doc(1, []string{"ca want=1 rate=#2", "cb want=2", "cgone want=3"}, "ca -> cb"))
	h.converge(1)
	load(doc(2, []string{"ca want=1 rate=#2", "cb want=22", "cnew want=4"}, "ca -> cb"))
	h.converge(2)
	if sys.count("ca") != 1 {
		t.Errorf("unchanged ca ran %d times, want 1", sys.count("ca"))
	}
	if sys.get("cb") != "22" || sys.get("cnew") != "4" {
		t.Errorf("cb=%q cnew=%q", sys.get("cb"), sys.get("cnew"))
	}
	if !strings.Contains(h.logs.String(), "1 added, 1 removed, 1 changed, 1 unchanged") {
		t.Errorf("swap log missing:\n%s", h.logs)
	}
}

// TestCompactKeepsTheDocument checks that Compact changes neither the
// document the graph was built from nor the identity of its resources,
// and that Document then gives the resources without their parameters.
func TestCompactKeepsTheDocument(t *testing.T) {
	register()
	d := doc(1, []string{"a want=1 meta.noop=true", "b want=2"}, "a -> b")
	g, err := engine.Build(d, engine.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g.Compact()
	if d.Resources[0].Params["want"] != "1" || d.Resources[0].Meta == nil || len(d.Edges) != 1 {
		t.Errorf("the document changed: %+v", d.Resources[0])
	}
	out := g.Document()
	if len(out.Resources) != 2 || len(out.Edges) != 0 {
		t.Fatalf("got %d resources and %d edges, want 2 and 0", len(out.Resources), len(out.Edges))
	}
	for i, r := range out.Resources {
		if r.Ref() != d.Resources[i].Ref() || r.Pos != d.Resources[i].Pos || r.Params != nil || r.Meta != nil {
			t.Errorf("resource %d: got %+v", i, r)
		}
	}
	if !g.Vertices[0].Res.MetaParams().Noop {
		t.Errorf("the resource lost its metaparameters")
	}
}

// TestConsumeTakesTheParameters checks that Build with Consume leaves the
// document's resources without their parameters, except an exported one,
// and that the graph swaps as one built from the whole document: a
// resource whose parameters are the same stays running untouched, a
// changed one is replaced.
func TestConsumeTakesTheParameters(t *testing.T) {
	h := start(t, engine.Config{})
	load := func(d *graph.Document) {
		t.Helper()
		g, err := engine.Build(d, engine.BuildOptions{Consume: true})
		if err != nil {
			t.Fatalf("build: %v", err)
		}
		g.Compact()
		h.e.Load(g)
	}
	d := doc(1, []string{"ca want=1 rate=#2", "cb want=2", "cx want=5 meta.export=h2"}, "ca -> cb")
	load(d)
	h.converge(1)
	for _, r := range d.Resources {
		if exported := r.Name == "cx"; (r.Params != nil) != exported {
			t.Errorf("%s: params %v after a consuming build", r.Ref(), r.Params)
		}
	}
	load(doc(2, []string{"ca want=1 rate=#2", "cb want=22", "cx want=5 meta.export=h2"}, "ca -> cb"))
	h.converge(2)
	if sys.count("ca") != 1 || sys.count("cx") != 1 {
		t.Errorf("unchanged ca and cx ran %d and %d times, want 1", sys.count("ca"), sys.count("cx"))
	}
	if sys.get("cb") != "22" {
		t.Errorf("cb=%q", sys.get("cb"))
	}
}

// TestConsumeSharesTheNames: a consuming build gives each resource its
// name as the bytes of its vertex's key, the same in the document and the
// resource, and equal to the name as decoded; a build that does not
// consume leaves the document's names as they were.
func TestConsumeSharesTheNames(t *testing.T) {
	register()
	names := []string{"n1", "a longer name/with a slash", "x[y]"}
	for _, consume := range []bool{false, true} {
		d := doc(1, nil)
		for _, n := range names {
			// A name of its own, as a decoder makes one.
			d.Resources = append(d.Resources, &graph.Resource{Kind: "tval", Name: strings.Clone(n), Params: map[string]any{}})
		}
		before := make([]*byte, len(d.Resources))
		for i, r := range d.Resources {
			before[i] = unsafe.StringData(r.Name)
		}
		g, err := engine.Build(d, engine.BuildOptions{Consume: consume})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range d.Resources {
			if r.Name != names[i] {
				t.Errorf("consume %v: name %q, want %q", consume, r.Name, names[i])
			}
			if moved := unsafe.StringData(r.Name) != before[i]; moved != consume {
				t.Errorf("consume %v: %q moved %v", consume, r.Name, moved)
			}
		}
		docName := map[string]string{}
		for _, r := range d.Resources {
			docName[r.Name] = r.Name
		}
		for _, v := range g.Vertices {
			n, ok := docName[v.Res.Name()]
			if !ok || consume && unsafe.StringData(v.Res.Name()) != unsafe.StringData(n) {
				t.Errorf("consume %v: the resource's name %q is not the document's", consume, v.Res.Name())
			}
		}
	}
}

// TestCompactKeepsThePositions checks that a compacted graph's Document
// gives each resource its kind, name, pos, origin and the place it was
// read exactly as the document did, whether resources share a file and
// origin or not, and with a line or column too large to keep in 32 bits.
func TestCompactKeepsThePositions(t *testing.T) {
	register()
	d := doc(1, []string{"a want=1", "b want=2", "c want=3", "d want=4", "e want=5", "f[x] want=6"})
	d.Resources[0].Pos, d.Resources[0].At = "", graph.Position{File: "in.json", Line: 3}
	d.Resources[1].Pos, d.Resources[1].At = "", graph.Position{File: "in.json", Line: 3, Col: 7}
	d.Resources[2].Origin, d.Resources[2].At = "mcl", graph.Position{File: "in.yaml", Line: 1 << 40, Col: 2}
	d.Resources[3].Origin, d.Resources[3].At = "mcl", graph.Position{File: "in.yaml", Line: 9, Col: -1}
	d.Resources[4].Pos, d.Resources[4].At = "", graph.Position{}
	want := make([]graph.Resource, len(d.Resources))
	for i, r := range d.Resources {
		want[i] = graph.Resource{Kind: r.Kind, Name: r.Name, Pos: r.Pos, Origin: r.Origin, At: r.At}
	}
	for _, consume := range []bool{false, true} {
		g, err := engine.Build(d, engine.BuildOptions{Consume: consume})
		if err != nil {
			t.Fatal(err)
		}
		g.Compact()
		out := g.Document()
		if len(out.Resources) != len(want) {
			t.Fatalf("got %d resources, want %d", len(out.Resources), len(want))
		}
		for i, r := range out.Resources {
			if !reflect.DeepEqual(*r, want[i]) {
				t.Errorf("consume %v: resource %d: got %+v, want %+v", consume, i, *r, want[i])
			}
		}
	}
}
