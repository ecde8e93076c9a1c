package graph

import (
	"slices"
	"strconv"
	"strings"
)

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
	old := newRefMap[*Resource]()
	for _, r := range a.Resources {
		old.set(r.Ref(), r)
	}
	seen := newRefMap[bool]()
	for _, r := range b.Resources {
		seen.set(r.Ref(), true)
		switch o, ok := old.get(r.Ref()); {
		case !ok:
			d.Added = append(d.Added, r)
		case !EqualResource(o, r):
			d.Changed = append(d.Changed, Change{o, r})
		}
	}
	for _, r := range a.Resources {
		if _, ok := seen.get(r.Ref()); !ok {
			d.Removed = append(d.Removed, r)
		}
	}
	oldE := make(map[string]*Edge, len(a.Edges))
	for _, e := range a.Edges {
		oldE[edgeID(e)] = e
	}
	seenE := make(map[string]bool, len(b.Edges))
	for _, e := range b.Edges {
		seenE[edgeID(e)] = true
		switch o, ok := oldE[edgeID(e)]; {
		case !ok:
			d.AddedEdges = append(d.AddedEdges, e)
		case o.Notify != e.Notify:
			d.ChangedEdges = append(d.ChangedEdges, EdgeChange{o, e})
		}
	}
	for _, e := range a.Edges {
		if !seenE[edgeID(e)] {
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

// edgeID spells an edge's key as one string (maps hash strings much faster
// than structs of strings); names are length-prefixed so that no two keys
// spell alike.
func edgeID(e *Edge) string {
	var b strings.Builder
	for _, s := range []string{e.From.Kind, e.From.Name, e.To.Kind, e.To.Name, e.Send, e.Recv} {
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	return b.String()
}

// SameGraph reports whether a and b hold the same graph, as their
// canonical encodings would show apart from seq and source: the same name,
// the same resources (EqualResource, with the same pos and origin), the
// same edges with the same notify flags, or the same error. It compares
// without encoding, so a producer can tell cheaply whether a new document
// is worth writing.
func SameGraph(a, b *Document) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Mgmt != b.Mgmt || a.Graph != b.Graph || (a.Error == nil) != (b.Error == nil) {
		return false
	}
	if a.Error != nil {
		return *a.Error == *b.Error
	}
	ca, cb := Canonical(a), Canonical(b)
	return slices.EqualFunc(ca.Resources, cb.Resources, func(x, y *Resource) bool {
		return x.Pos == y.Pos && x.Origin == y.Origin && EqualResource(x, y)
	}) && slices.EqualFunc(ca.Edges, cb.Edges, func(x, y *Edge) bool {
		return x.Key() == y.Key() && x.Notify == y.Notify
	})
}
