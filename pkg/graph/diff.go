package graph

import "slices"

// A Change is a resource present in both graphs of a Diff with different
// parameters or metaparameters.
type Change struct {
	Old, New *Resource
}

// An EdgeChange is an edge present in both graphs of a Diff whose notify
// flag changed.
type EdgeChange struct {
	Old, New *Edge
}

// A DiffResult lists what changed from one graph to another, each list
// sorted canonically.
type DiffResult struct {
	Added, Removed           []*Resource
	Changed                  []Change
	AddedEdges, RemovedEdges []*Edge
	ChangedEdges             []EdgeChange
}

// Empty reports whether the two graphs were the same.
func (d *DiffResult) Empty() bool {
	return len(d.Added)+len(d.Removed)+len(d.Changed)+len(d.AddedEdges)+len(d.RemovedEdges)+len(d.ChangedEdges) == 0
}

// Diff compares graph a (old) with graph b (new). Resources are matched by
// kind and name and compared with EqualResource; edges are matched by
// (from, to, send, recv) and compared by notify.
func Diff(a, b *Document) *DiffResult {
	d := &DiffResult{}
	old := make(map[Ref]*Resource, len(a.Resources))
	for _, r := range a.Resources {
		old[r.Ref()] = r
	}
	seen := make(map[Ref]bool, len(b.Resources))
	for _, r := range b.Resources {
		seen[r.Ref()] = true
		switch o, ok := old[r.Ref()]; {
		case !ok:
			d.Added = append(d.Added, r)
		case !EqualResource(o, r):
			d.Changed = append(d.Changed, Change{o, r})
		}
	}
	for _, r := range a.Resources {
		if !seen[r.Ref()] {
			d.Removed = append(d.Removed, r)
		}
	}
	oldE := make(map[EdgeKey]*Edge, len(a.Edges))
	for _, e := range a.Edges {
		oldE[e.Key()] = e
	}
	seenE := make(map[EdgeKey]bool, len(b.Edges))
	for _, e := range b.Edges {
		seenE[e.Key()] = true
		switch o, ok := oldE[e.Key()]; {
		case !ok:
			d.AddedEdges = append(d.AddedEdges, e)
		case o.Notify != e.Notify:
			d.ChangedEdges = append(d.ChangedEdges, EdgeChange{o, e})
		}
	}
	for _, e := range a.Edges {
		if !seenE[e.Key()] {
			d.RemovedEdges = append(d.RemovedEdges, e)
		}
	}
	SortResources(d.Added)
	SortResources(d.Removed)
	slices.SortFunc(d.Changed, func(x, y Change) int { return x.New.Ref().Compare(y.New.Ref()) })
	SortEdges(d.AddedEdges)
	SortEdges(d.RemovedEdges)
	slices.SortFunc(d.ChangedEdges, func(x, y EdgeChange) int { return x.New.Key().Compare(y.New.Key()) })
	return d
}
