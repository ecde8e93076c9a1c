package graph

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// randomDoc builds a random graph of n resources and m edges; acyclic
// graphs only get edges from lower to higher numbers.
func randomDoc(rng *rand.Rand, n, m int, acyclic bool) *Document {
	d := &Document{Mgmt: Version, Graph: "r"}
	for i := range n {
		d.Resources = append(d.Resources, &Resource{Kind: "n", Name: fmt.Sprintf("%03d", i)})
	}
	for range m {
		a, b := rng.Intn(n), rng.Intn(n)
		if acyclic {
			if a == b {
				continue
			}
			if a > b {
				a, b = b, a
			}
		}
		d.Edges = append(d.Edges, &Edge{From: d.Resources[a].Ref(), To: d.Resources[b].Ref()})
	}
	return d
}

// naiveReach computes reachability by iterating to a fixed point.
func naiveReach(d *Document, from Ref) map[Ref]bool {
	seen := map[Ref]bool{from: true}
	for changed := true; changed; {
		changed = false
		for _, e := range d.Edges {
			if seen[e.From] && !seen[e.To] {
				seen[e.To] = true
				changed = true
			}
		}
	}
	return seen
}

func TestTopoOrderProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for iter := range 200 {
		n := 1 + rng.Intn(30)
		d := randomDoc(rng, n, rng.Intn(3*n), iter%2 == 0)
		x := NewIndex(d)
		order, cycles := x.TopoOrder()
		// A graph has a cycle iff some resource reaches itself in one or
		// more steps.
		hasCycle := false
		for _, e := range d.Edges {
			if naiveReach(d, e.To)[e.From] {
				hasCycle = true
			}
		}
		if hasCycle != (cycles != nil) {
			t.Fatalf("iteration %d: cycle %v, found %v", iter, hasCycle, cycles)
		}
		if hasCycle {
			for _, c := range cycles {
				for i := range c {
					next := c[(i+1)%len(c)]
					if !slices.ContainsFunc(d.Edges, func(e *Edge) bool { return e.From == c[i] && e.To == next }) {
						t.Fatalf("iteration %d: cycle %s is not a path", iter, CycleString(c))
					}
				}
			}
			continue
		}
		pos := map[Ref]int{}
		for i, r := range order {
			pos[r.Ref()] = i
		}
		if len(order) != n {
			t.Fatalf("order has %d of %d resources", len(order), n)
		}
		for _, e := range d.Edges {
			if pos[e.From] >= pos[e.To] {
				t.Fatalf("edge %s goes backwards", e)
			}
		}
	}
}

func TestReachableComponentsProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	for range 100 {
		n := 1 + rng.Intn(25)
		d := randomDoc(rng, n, rng.Intn(2*n), false)
		x := NewIndex(d)
		start := d.Resources[rng.Intn(n)].Ref()
		want := naiveReach(d, start)
		got := x.Reachable(start)
		if len(got) != len(want) {
			t.Fatalf("reach %v, want %v", got, want)
		}
		for _, r := range got {
			if !want[r] {
				t.Fatalf("%s not reachable", r)
			}
		}
		back := x.ReachableBackward(start)
		rev := naiveReach(Reverse(d), start)
		if len(back) != len(rev) {
			t.Fatalf("backward reach %v, want %v", back, rev)
		}
		// Weak components: two resources are in the same component iff
		// one reaches the other in the undirected graph.
		und := &Document{Resources: d.Resources, Edges: append(slices.Clone(d.Edges), Reverse(d).Edges...)}
		comp := map[Ref]int{}
		total := 0
		for i, c := range x.Components() {
			total += len(c)
			for _, r := range c {
				comp[r] = i
			}
		}
		if total != n {
			t.Fatalf("components cover %d of %d", total, n)
		}
		a, b := d.Resources[rng.Intn(n)].Ref(), d.Resources[rng.Intn(n)].Ref()
		if naiveReach(und, a)[b] != (comp[a] == comp[b]) {
			t.Fatalf("components disagree about %s and %s", a, b)
		}
	}
}

func TestTopoOrderCanonical(t *testing.T) {
	d := decodeOne(t, doc(`"resources":[{"kind":"b","name":"1"},{"kind":"a","name":"2"},{"kind":"a","name":"1"}],"edges":[{"from":{"kind":"b","name":"1"},"to":{"kind":"a","name":"1"}}]`))
	order, err := TopoOrder(d)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range order {
		names = append(names, r.Ref().String())
	}
	if got := strings.Join(names, " "); got != "a[2] b[1] a[1]" {
		t.Errorf("order %s", got)
	}
	x := NewIndex(d)
	if s := x.Successors(Ref{"b", "1"}); len(s) != 1 || s[0] != (Ref{"a", "1"}) {
		t.Errorf("successors %v", s)
	}
	if p := x.Predecessors(Ref{"a", "1"}); len(p) != 1 || p[0] != (Ref{"b", "1"}) {
		t.Errorf("predecessors %v", p)
	}
}

func TestLongChainNoStackGrowth(t *testing.T) {
	d := &Document{Mgmt: Version}
	const n = 200000
	for i := range n {
		d.Resources = append(d.Resources, &Resource{Kind: "n", Name: fmt.Sprint(i)})
		if i > 0 {
			d.Edges = append(d.Edges, &Edge{From: Ref{"n", fmt.Sprint(i - 1)}, To: Ref{"n", fmt.Sprint(i)}})
		}
	}
	d.Edges = append(d.Edges, &Edge{From: Ref{"n", fmt.Sprint(n - 1)}, To: Ref{"n", "0"}})
	cycles := NewIndex(d).Cycles()
	if len(cycles) != 1 || len(cycles[0]) != n {
		t.Fatalf("got %d cycles", len(cycles))
	}
}

func TestDiff(t *testing.T) {
	a := decodeOne(t, sampleJSON)
	b := decodeOne(t, sampleJSON)
	if d := Diff(a, b); !d.Empty() {
		t.Fatalf("diff of equal graphs: %+v", d)
	}
	b.Resources[1].Params["cmd"] = "echo bye"
	b.Resources = append(b.Resources[:2], &Resource{Kind: "noop", Name: "n"})
	b.Edges[0].Notify = false
	b.Edges = append(b.Edges[:1], &Edge{From: Ref{"noop", "n"}, To: Ref{"exec", "greet"}})
	d := Diff(a, b)
	if len(d.Added) != 1 || d.Added[0].Name != "n" || len(d.Removed) != 1 || d.Removed[0].Name != "/tmp/a/b" ||
		len(d.Changed) != 1 || d.Changed[0].New.Name != "greet" ||
		len(d.AddedEdges) != 1 || len(d.RemovedEdges) != 1 || len(d.ChangedEdges) != 1 {
		t.Errorf("diff %+v", d)
	}
}

// A cycle is named in full up to maxCycleShown resources; a longer one
// by its ends and the number left out, and the error of a ring of 200,000
// resources stays one short line.
func TestCycleString(t *testing.T) {
	ring := func(n int) []Ref {
		var c []Ref
		for i := range n {
			c = append(c, Ref{Kind: "n", Name: fmt.Sprint(i)})
		}
		return c
	}
	if got, want := CycleString(ring(3)), "n[0] -> n[1] -> n[2] -> n[0]"; got != want {
		t.Errorf("3: got %q, want %q", got, want)
	}
	if got := CycleString(ring(maxCycleShown)); strings.Contains(got, "more") || strings.Count(got, " -> ") != maxCycleShown {
		t.Errorf("%d: got %q", maxCycleShown, got)
	}
	want := "n[0] -> n[1] -> n[2] -> n[3] -> n[4] -> n[5] -> n[6] -> n[7] -> n[8] -> n[9] -> (1 more) -> " +
		"n[11] -> n[12] -> n[13] -> n[14] -> n[15] -> n[16] -> n[17] -> n[18] -> n[19] -> n[20] -> n[0]"
	if got := CycleString(ring(maxCycleShown + 1)); got != want {
		t.Errorf("%d: got %q, want %q", maxCycleShown+1, got, want)
	}

	d := &Document{Mgmt: Version, Graph: "r"}
	const n = 200000
	for i := range n {
		d.Resources = append(d.Resources, &Resource{Kind: "n", Name: fmt.Sprint(i)})
		d.Edges = append(d.Edges, &Edge{From: Ref{Kind: "n", Name: fmt.Sprint(i)}, To: Ref{Kind: "n", Name: fmt.Sprint((i + 1) % n)}})
	}
	_, err := TopoOrder(d)
	if err == nil {
		t.Fatal("a ring has no order")
	}
	msg := err.Error()
	if len(msg) > 500 || !strings.Contains(msg, "n[0] -> n[1] -> ") || !strings.Contains(msg, "(199980 more) -> n[199990]") || !strings.HasSuffix(msg, "n[199999] -> n[0]") {
		t.Errorf("ring of %d: %d bytes: %.600s", n, len(msg), msg)
	}
}
