package graph

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// randomDedupDoc returns a document of up to n resources of two kinds, in
// canonical order or not, with identical and differing duplicates now
// and then, and edges between them (repeated, notifying, or naming a
// missing resource now and then; mostly without cycles), and the indexes of each edge's ends in
// its resources before any duplicate is removed.
func randomDedupDoc(r *rand.Rand, n int) (*Document, [][2]int32) {
	d := &Document{Mgmt: Version, Graph: "g"}
	for i := range n {
		d.Resources = append(d.Resources, &Resource{Kind: []string{"a", "b"}[i%2], Name: fmt.Sprint("r", i)})
	}
	slices.SortFunc(d.Resources, func(a, b *Resource) int { return a.Ref().Compare(b.Ref()) })
	if r.Intn(3) == 0 && n > 1 {
		i := r.Intn(n - 1)
		d.Resources[i], d.Resources[i+1] = d.Resources[i+1], d.Resources[i]
	}
	if r.Intn(3) == 0 && n > 0 {
		i := r.Intn(n)
		dup := *d.Resources[i]
		if r.Intn(2) == 0 {
			dup.Params = map[string]any{"x": "differs"}
		}
		d.Resources = slices.Insert(d.Resources, i+r.Intn(2), &dup)
	}
	var ends [][2]int32
	acyclic := r.Intn(5) > 0
	for range r.Intn(3 * n) {
		f, t := r.Intn(len(d.Resources)), r.Intn(len(d.Resources))
		if acyclic && d.Resources[f].Ref().Compare(d.Resources[t].Ref()) >= 0 {
			continue
		}
		e := &Edge{From: d.Resources[f].Ref(), To: d.Resources[t].Ref(), Notify: r.Intn(4) == 0}
		if r.Intn(40) == 0 {
			e.To = Ref{Kind: "a", Name: "missing"}
		}
		d.Edges = append(d.Edges, e)
		ends = append(ends, [2]int32{int32(f), int32(t)})
	}
	if r.Intn(2) == 0 {
		slices.SortFunc(d.Edges, func(a, b *Edge) int {
			if c := a.From.Compare(b.From); c != 0 {
				return c
			}
			return a.To.Compare(b.To)
		})
		ends = nil // no longer in the edges' order
	}
	return d, ends
}

func cloneDoc(d *Document) *Document {
	c := *d
	c.Resources = slices.Clone(d.Resources)
	c.Edges = slices.Clone(d.Edges)
	return &c
}

// TestEdgeEnds checks that ValidatePairs gives the same graph, pairs and
// errors whatever EdgeEnds holds: nothing, the right indexes, wrong ones
// or indexes out of range.
func TestEdgeEnds(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := range 2000 {
		d, ends := randomDedupDoc(r, 1+r.Intn(12))
		want := cloneDoc(d)
		wantPairs, wantErr := want.ValidatePairs(nil)
		if wantErr == nil {
			checkEdgeDedup(t, i, d.Edges, want.Edges)
		}
		for _, hint := range []string{"right", "wrong", "range", "short"} {
			got := cloneDoc(d)
			switch hint {
			case "right":
				got.EdgeEnds = ends
			case "wrong", "range", "short":
				for range d.Edges {
					f, t := int32(r.Intn(len(d.Resources))), int32(r.Intn(len(d.Resources)))
					if hint == "range" {
						f, t = f-int32(len(d.Resources)), t+int32(len(d.Resources))
					}
					got.EdgeEnds = append(got.EdgeEnds, [2]int32{f, t})
				}
				if hint == "short" && len(ends) > 0 {
					got.EdgeEnds = ends[:len(ends)/2]
				}
			}
			pairs, err := got.ValidatePairs(nil)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("doc %d, %s ends: error %v, want %v", i, hint, err, wantErr)
			}
			if err != nil {
				continue
			}
			if !slices.Equal(pairs, wantPairs) || !slices.Equal(got.Resources, want.Resources) || !slices.EqualFunc(got.Edges, want.Edges, func(a, b *Edge) bool { return *a == *b }) {
				t.Fatalf("doc %d, %s ends: pairs %v, want %v", i, hint, pairs, wantPairs)
			}
			for k, p := range pairs {
				if got.Resources[p[0]].Ref() != got.Edges[k].From || got.Resources[p[1]].Ref() != got.Edges[k].To {
					t.Fatalf("doc %d, %s ends: pair %d %v is not edge %v", i, hint, k, p, got.Edges[k])
				}
			}
		}
	}
}

// TestValidateSortedDedup checks duplicates of a document in canonical
// order, which ValidatePairs finds without a map, against a reference
// that keeps the first resource of each ref.
func TestValidateSortedDedup(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := range 2000 {
		d, _ := randomDedupDoc(r, 1+r.Intn(12))
		seen := map[Ref]*Resource{}
		var wantRefs []Ref
		wantErr := false
		for _, res := range d.Resources {
			if old, ok := seen[res.Ref()]; ok {
				if _, ok := MergeDuplicate(old, res); !ok {
					wantErr = true
				}
				continue
			}
			seen[res.Ref()] = res
			wantRefs = append(wantRefs, res.Ref())
		}
		got := cloneDoc(d)
		got.Edges = nil
		err := got.Validate()
		if (err != nil) != wantErr {
			t.Fatalf("doc %d: error %v, want one: %v", i, err, wantErr)
		}
		if err != nil {
			continue
		}
		var refs []Ref
		for _, res := range got.Resources {
			refs = append(refs, res.Ref())
		}
		if !slices.Equal(refs, wantRefs) {
			t.Fatalf("doc %d: resources %v, want %v", i, refs, wantRefs)
		}
	}
}

// checkEdgeDedup checks that the edges kept are the first of each pair of
// ends in the order given, notifying when any of the pair's edges does.
func checkEdgeDedup(t *testing.T, i int, given, kept []*Edge) {
	t.Helper()
	type ends struct{ from, to Ref }
	notify := map[ends]bool{}
	var want []ends
	for _, e := range given {
		k := ends{e.From, e.To}
		if _, ok := notify[k]; !ok {
			want = append(want, k)
		}
		notify[k] = notify[k] || e.Notify
	}
	if len(kept) != len(want) {
		t.Fatalf("doc %d: %d edges kept, want %d", i, len(kept), len(want))
	}
	for k, e := range kept {
		if w := want[k]; e.From != w.from || e.To != w.to || e.Notify != notify[w] {
			t.Fatalf("doc %d: edge %d is %v, want %v notify %v", i, k, e, w, notify[w])
		}
	}
}
