package engine

import (
	"cmp"
	"slices"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// maxAutoEdgeRounds bounds the Next/Test iterations of one resource, so a
// buggy AutoEdge cannot hang graph preparation.
const maxAutoEdgeRounds = 4096

type uidEntry struct {
	v   *Vertex
	uid ResUID
}

// uidIndexKey is the index key of a UID (uidKey).
type uidIndexKey struct{ kind, name string }

// uidKey is the index key of a UID: its kind and its name without a
// trailing slash, so a directory path matches with or without it. Matching
// then asks IFF, so the key only has to narrow the candidates.
func uidKey(kind, name string) uidIndexKey {
	if len(name) > 1 {
		name = strings.TrimSuffix(name, "/")
	}
	return uidIndexKey{kind, name}
}

// autoEdges adds the automatic edges: for every Edgeable resource whose
// autoedge metaparameter is on, the UIDs its AutoEdge asks for are matched
// (by IFF) against the UIDs of the other resources, and an edge is added
// from each match to the resource (or the reverse when the UID says so). An
// edge that would close a cycle is skipped.
func (g *Graph) autoEdges() error {
	index := make(map[uidIndexKey][]uidEntry, len(g.all))
	for _, v := range g.all {
		ev, ok := v.Res.(Edgeable)
		if !ok {
			continue
		}
		for _, u := range ev.UIDs() {
			k := uidKey(u.GetKind(), u.GetName())
			index[k] = append(index[k], uidEntry{v, u})
		}
	}
	if len(index) == 0 {
		return nil
	}
	order := topoIndex(g.all)
	defer func() { g.linked = nil }()
	for _, v := range g.all {
		ev, ok := v.Res.(Edgeable)
		if !ok || !boolOr(v.Res.MetaParams().AutoEdge, true) {
			continue
		}
		ae, err := ev.AutoEdges()
		if err != nil {
			return graph.Errorf(v.where(), "", "%s: autoedges: %v", v.key, err)
		}
		if ae == nil {
			continue
		}
		for round := 0; round < maxAutoEdgeRounds; round++ {
			uids := ae.Next()
			if len(uids) == 0 {
				break
			}
			found := make([]bool, len(uids))
			for i, u := range uids {
				for _, c := range index[uidKey(u.GetKind(), u.GetName())] {
					if c.v == v || !u.IFF(c.uid) {
						continue
					}
					from, to := c.v, v
					if u.IsReversed() {
						from, to = v, c.v
					}
					if g.addAutoEdge(from, to, order) {
						found[i] = true
					}
				}
			}
			if !ae.Test(found) {
				break
			}
		}
	}
	return nil
}

// addAutoEdge adds from -> to unless it exists or would close a cycle. It
// reports whether the two resources are now connected by an edge. ord is
// a topological order of the graph, kept one as edges are added.
func (g *Graph) addAutoEdge(from, to *Vertex, ord map[*Vertex]int) bool {
	if g.linked == nil {
		n := 0
		for _, v := range g.all {
			n += len(v.out)
		}
		g.linked = make(map[[2]*Vertex]bool, n)
		for _, v := range g.all {
			for _, e := range v.out {
				g.linked[[2]*Vertex{v, e.To}] = true
			}
		}
	}
	if g.linked[[2]*Vertex{from, to}] {
		return true
	}
	if ord[from] > ord[to] && !g.reorder(from, to, ord) {
		return false
	}
	g.linked[[2]*Vertex{from, to}] = true
	e := &Edge{From: from, To: to, Auto: true}
	from.out = append(from.out, e)
	to.in = append(to.in, e)
	g.docEdges = append(g.docEdges, &graph.Edge{From: from.ref(), To: to.ref()})
	return true
}

// reorder makes the topological order ord one for the graph with the edge
// from -> to added, where ord puts from after to; it reports false, and
// changes nothing, when to reaches from (the edge would close a cycle).
// Only the vertices between the two move (Pearce and Kelly's dynamic
// topological order): those to reaches without passing from's position,
// and those that reach from without passing to's, which go first, each
// group keeping its own order, in the positions the two groups held. A
// path from to to from stays within those positions, so the forward walk
// finds it when there is one.
func (g *Graph) reorder(from, to *Vertex, ord map[*Vertex]int) bool {
	lo, hi := ord[to], ord[from]
	gen := g.nextWalk()
	fwd := append(g.walkStack[:0], to)
	to.walkMark = gen
	for i := 0; i < len(fwd); i++ {
		for _, e := range fwd[i].out {
			w := e.To
			if w == from {
				g.walkStack = fwd[:0]
				return false
			}
			if w.walkMark != gen && ord[w] < hi {
				w.walkMark = gen
				fwd = append(fwd, w)
			}
		}
	}
	bwd := []*Vertex{from}
	from.walkMark = gen
	for i := 0; i < len(bwd); i++ {
		for _, e := range bwd[i].in {
			if w := e.From; w.walkMark != gen && ord[w] > lo {
				w.walkMark = gen
				bwd = append(bwd, w)
			}
		}
	}
	byOrd := func(a, b *Vertex) int { return cmp.Compare(ord[a], ord[b]) }
	slices.SortFunc(fwd, byOrd)
	slices.SortFunc(bwd, byOrd)
	moved := append(bwd, fwd...)
	slots := make([]int, len(moved))
	for i, v := range moved {
		slots[i] = ord[v]
	}
	slices.Sort(slots)
	for i, v := range moved {
		ord[v] = slots[i]
	}
	g.walkStack = fwd[:0]
	return true
}

// topoIndex returns the position of each vertex in a topological order.
func topoIndex(vs []*Vertex) map[*Vertex]int {
	indeg := make(map[*Vertex]int, len(vs))
	for _, v := range vs {
		for _, e := range v.out {
			indeg[e.To]++
		}
	}
	queue := make([]*Vertex, 0, len(vs))
	for _, v := range vs {
		if indeg[v] == 0 {
			queue = append(queue, v)
		}
	}
	out := make(map[*Vertex]int, len(vs))
	for i := 0; i < len(queue); i++ {
		v := queue[i]
		out[v] = i
		for _, e := range v.out {
			indeg[e.To]--
			if indeg[e.To] == 0 {
				queue = append(queue, e.To)
			}
		}
	}
	return out
}

// maxGroupTries bounds how many group heads a resource is compared with,
// so that autogrouping stays linear when few resources group: a resource
// that none of the last maxGroupTries heads of its kind accepts starts a
// group of its own.
const maxGroupTries = 16

// maxGroupWalk bounds how many vertices the look for a path between a
// resource and a group head may visit. A pair it cannot settle within the
// bound is taken as joined, and does not group: grouping only saves work,
// and two resources left apart are always right. Without the bound, each
// of many groupable resources (the noops of a Puppet catalog's classes,
// all linked through the graph) would walk the whole graph for each of
// the heads it is compared with, a time quadratic in the graph's size.
const maxGroupWalk = 512

// autoGroup merges groupable resources: within each kind, in sorted order,
// each resource joins the first recent group head whose GroupCmp accepts it,
// unless a path joins the two (merging would close a cycle) or either one
// takes part in send/recv; otherwise it becomes a head. The edges of a
// member move to its group head.
func (g *Graph) autoGroup() {
	byKind := map[string][]*Vertex{}
	var kinds []string
	for _, v := range g.all {
		gr, ok := v.Res.(Groupable)
		if !ok || !boolOr(v.Res.MetaParams().AutoGroup, true) || v.Res.MetaParams().Hidden || gr.IsGrouped() || hasSendRecv(v) {
			continue
		}
		if _, ok := byKind[v.kind()]; !ok {
			kinds = append(kinds, v.kind())
		}
		byKind[v.kind()] = append(byKind[v.kind()], v)
	}
	for _, k := range kinds {
		var heads []*Vertex
		for _, w := range byKind[k] {
			if !g.joinGroup(heads, w) {
				heads = append(heads, w)
			}
		}
	}
}

// joinGroup merges w into one of the last heads that accepts it.
func (g *Graph) joinGroup(heads []*Vertex, w *Vertex) bool {
	wg := w.Res.(Groupable)
	for i, tries := len(heads)-1, 0; i >= 0 && tries < maxGroupTries; i, tries = i-1, tries+1 {
		head := heads[i]
		hg := head.Res.(Groupable)
		if hg.GroupCmp(wg) != nil || g.reaches(head, w, maxGroupWalk) || g.reaches(w, head, maxGroupWalk) {
			continue
		}
		if err := hg.GroupRes(wg); err != nil {
			continue
		}
		wg.SetGrouped(true)
		w.grouped = true
		if head.members == nil {
			head.members = new([]*Vertex)
		}
		*head.members = append(*head.members, w)
		moveEdges(w, head)
		return true
	}
	return false
}

func hasSendRecv(v *Vertex) bool {
	for _, e := range v.in {
		if e.Send != "" {
			return true
		}
	}
	for _, e := range v.out {
		if e.Send != "" {
			return true
		}
	}
	return false
}

// moveEdges re-attaches the edges of w to head.
func moveEdges(w, head *Vertex) {
	for _, e := range w.out {
		e.From = head
		head.out = append(head.out, e)
	}
	for _, e := range w.in {
		e.To = head
		head.in = append(head.in, e)
	}
	w.in, w.out = nil, nil
}
