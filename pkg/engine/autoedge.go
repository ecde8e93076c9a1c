package engine

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// maxAutoEdgeRounds bounds the Next/Test iterations of one resource, so a
// buggy AutoEdge cannot hang graph preparation.
const maxAutoEdgeRounds = 4096

// A uidEntry is a UID of a vertex in the index of autoEdges: the entries
// of one key are chained by next, the index of the following entry (-1
// ends the chain), in the order of the graph's vertices.
type uidEntry struct {
	v    *Vertex
	uid  ResUID
	next int32
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

// A uidIndex finds the UIDs of the graph's resources by their key: the
// map gives the first entry of a key's chain, so that a key, mostly
// the UID of one resource, costs no slice of its own.
type uidIndex struct {
	first   map[uidIndexKey]int32
	entries []uidEntry
}

// newUIDIndex indexes the UIDs of the resources of vs, prep[i].uids those
// of vs[i] (prepareAutoEdges).
func newUIDIndex(vs []*Vertex, prep []autoPrep) *uidIndex {
	x := &uidIndex{first: make(map[uidIndexKey]int32, len(vs)), entries: make([]uidEntry, 0, len(vs))}
	// Backwards, each entry put first in its chain: a chain then holds
	// its entries in the order of vs, and of each resource's UIDs.
	for i := len(vs) - 1; i >= 0; i-- {
		uids := prep[i].uids
		for j := len(uids) - 1; j >= 0; j-- {
			u := uids[j]
			k := uidKey(u.GetKind(), u.GetName())
			next, ok := x.first[k]
			if !ok {
				next = -1
			}
			x.first[k] = int32(len(x.entries))
			x.entries = append(x.entries, uidEntry{v: vs[i], uid: u, next: next})
		}
	}
	return x
}

// head returns the index of the first entry of the UIDs of u's key, or -1.
func (x *uidIndex) head(u ResUID) int32 {
	if i, ok := x.first[uidKey(u.GetKind(), u.GetName())]; ok {
		return i
	}
	return -1
}

// An autoPrep is what autoEdges asks of one resource before it adds any
// edge: its UIDs, and when its automatic edges are on, its AutoEdge (a
// failedAutoEdge when its AutoEdges failed).
type autoPrep struct {
	uids []ResUID
	ae   AutoEdge
}

// A failedAutoEdge stands for the AutoEdge of a resource whose AutoEdges
// returned err.
type failedAutoEdge struct{ err error }

func (failedAutoEdge) Next() []ResUID   { return nil }
func (failedAutoEdge) Test([]bool) bool { return false }

// prepareAutoEdges asks each Edgeable resource of vs for its UIDs, and each
// whose autoedge metaparameter is on for its AutoEdge: calls of the
// resources' own code, each about its own resource alone, which a graph
// of parallelMin resources or more makes on every processor (inParts), as
// it reads each resource from memory once. A resource is asked for its
// UIDs before its AutoEdges, as it was when one loop asked them all.
func prepareAutoEdges(vs []*Vertex) []autoPrep {
	prep := make([]autoPrep, len(vs))
	inParts(partsFor(len(vs)), len(vs), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			ev, ok := vs[i].Res.(Edgeable)
			if !ok {
				continue
			}
			p := &prep[i]
			p.uids = ev.UIDs()
			if !boolOr(ev.MetaParams().AutoEdge, true) {
				continue
			}
			ae, err := ev.AutoEdges()
			if err != nil {
				ae = failedAutoEdge{err}
			}
			p.ae = ae
		}
	})
	return prep
}

// autoEdges adds the automatic edges: for every Edgeable resource whose
// autoedge metaparameter is on, the UIDs its AutoEdge asks for are matched
// (by IFF) against the UIDs of the other resources, and an edge is added
// from each match to the resource (or the reverse when the UID says so). An
// edge that would close a cycle is skipped. The resources are asked first,
// all at once (prepareAutoEdges); the edges are then added one resource
// after the other, in the order of the graph's vertices.
func (g *Graph) autoEdges() error {
	if len(g.all) >= math.MaxInt32 {
		return graph.Errorf("", "", "autoedges: too many resources (%d)", len(g.all))
	}
	prep := prepareAutoEdges(g.all)
	index := newUIDIndex(g.all, prep)
	if len(index.entries) == 0 {
		return nil
	}
	g.topoOrder()
	defer func() { g.linked = nil }()
	var found []bool
	for vi, v := range g.all {
		ae := prep[vi].ae
		if f, ok := ae.(failedAutoEdge); ok {
			return graph.Errorf(v.where(), "", "%s: autoedges: %v", v.key, f.err)
		}
		if ae == nil {
			continue
		}
		for round := 0; round < maxAutoEdgeRounds; round++ {
			uids := ae.Next()
			if len(uids) == 0 {
				break
			}
			found = slices.Grow(found[:0], len(uids))[:len(uids)]
			clear(found)
			for i, u := range uids {
				for j := index.head(u); j >= 0; j = index.entries[j].next {
					c := &index.entries[j]
					if c.v == v || !u.IFF(c.uid) {
						continue
					}
					from, to := c.v, v
					if u.IsReversed() {
						from, to = v, c.v
					}
					if g.addAutoEdge(from, to) {
						found[i] = true
					}
				}
			}
			if !ae.Test(found) {
				break
			}
		}
		prep[vi] = autoPrep{} // what the resource's AutoEdge holds goes with it
	}
	return nil
}

// maxEdgeScan is the number of edges of a vertex that linked scans for an
// edge before it asks the map of every pair joined by an edge instead.
const maxEdgeScan = 32

// isLinked reports whether an edge joins from to to. It scans the shorter of
// from's outgoing and to's incoming edges, which is mostly short (a file
// has one edge in, from its directory), and otherwise asks g.linked, made
// the first time it is needed and kept up to date by addAutoEdge after.
func (g *Graph) isLinked(from, to *Vertex) bool {
	if g.linked == nil {
		if len(from.out) <= maxEdgeScan {
			return hasEdgeTo(from.out, to)
		}
		if len(to.in) <= maxEdgeScan {
			return hasEdgeFrom(to.in, from)
		}
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
	return g.linked[[2]*Vertex{from, to}]
}

func hasEdgeTo(es []*Edge, to *Vertex) bool {
	for _, e := range es {
		if e.To == to {
			return true
		}
	}
	return false
}

func hasEdgeFrom(es []*Edge, from *Vertex) bool {
	for _, e := range es {
		if e.From == from {
			return true
		}
	}
	return false
}

// addAutoEdge adds from -> to unless it exists or would close a cycle. It
// reports whether the two resources are now connected by an edge. The
// vertices' ord is a topological order of the graph, kept one as edges
// are added.
func (g *Graph) addAutoEdge(from, to *Vertex) bool {
	if g.isLinked(from, to) {
		return true
	}
	if from.ord > to.ord && !g.reorder(from, to) {
		return false
	}
	if g.linked != nil {
		g.linked[[2]*Vertex{from, to}] = true
	}
	e := &Edge{From: from, To: to, Auto: true}
	from.out = append(from.out, e)
	to.in = append(to.in, e)
	g.autoPairs = append(g.autoPairs, [2]*Vertex{from, to})
	return true
}

// reorder makes the topological order of the vertices' ord one for the
// graph with the edge from -> to added, where ord puts from after to; it
// reports false, and changes nothing, when to reaches from (the edge would
// close a cycle). Only the vertices between the two move (Pearce and
// Kelly's dynamic topological order): those to reaches without passing
// from's position, and those that reach from without passing to's, which
// go first, each group keeping its own order, in the positions the two
// groups held. A path from to to from stays within those positions, so the
// forward walk finds it when there is one.
func (g *Graph) reorder(from, to *Vertex) bool {
	lo, hi := to.ord, from.ord
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
			if w.walkMark != gen && w.ord < hi {
				w.walkMark = gen
				fwd = append(fwd, w)
			}
		}
	}
	bwd := []*Vertex{from}
	from.walkMark = gen
	for i := 0; i < len(bwd); i++ {
		for _, e := range bwd[i].in {
			if w := e.From; w.walkMark != gen && w.ord > lo {
				w.walkMark = gen
				bwd = append(bwd, w)
			}
		}
	}
	byOrd := func(a, b *Vertex) int { return cmp.Compare(a.ord, b.ord) }
	slices.SortFunc(fwd, byOrd)
	slices.SortFunc(bwd, byOrd)
	moved := append(bwd, fwd...)
	slots := make([]int32, len(moved))
	for i, v := range moved {
		slots[i] = v.ord
	}
	slices.Sort(slots)
	for i, v := range moved {
		v.ord = slots[i]
	}
	g.walkStack = fwd[:0]
	return true
}

// topoOrder sets the ord of each vertex of the graph to its position in a
// topological order (Kahn's), counting each vertex's incoming edges in
// its ord first. A vertex no order reaches, on a cycle, which a valid
// graph has none of, is put at 0.
func (g *Graph) topoOrder() {
	for _, v := range g.all {
		v.ord = 0
	}
	for _, v := range g.all {
		for _, e := range v.out {
			e.To.ord++
		}
	}
	gen := g.nextWalk()
	queue := make([]*Vertex, 0, len(g.all))
	for _, v := range g.all {
		if v.ord == 0 {
			v.walkMark = gen
			queue = append(queue, v)
		}
	}
	for i := 0; i < len(queue); i++ {
		v := queue[i]
		v.ord = int32(i)
		for _, e := range v.out {
			if w := e.To; w.walkMark != gen {
				if w.ord--; w.ord == 0 {
					w.walkMark = gen
					queue = append(queue, w)
				}
			}
		}
	}
	if len(queue) < len(g.all) {
		for _, v := range g.all {
			if v.walkMark != gen {
				v.ord = 0
			}
		}
	}
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
