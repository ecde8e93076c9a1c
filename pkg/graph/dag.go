package graph

import (
	"container/heap"
	"fmt"
	"slices"
	"strings"
)

// An Index gives the vertices of a document integer ids and holds the
// adjacency lists the graph algorithms walk. Edges whose endpoints are not
// resources of the document are left out (Validate reports them).
type Index struct {
	Resources []*Resource // by id
	Edges     []*Edge     // the indexed edges
	Out, In   [][]int     // successor and predecessor ids, per id

	ids *refMap[int]
}

// NewIndex indexes doc. The first of several resources with the same ref
// wins.
func NewIndex(doc *Document) *Index {
	n := len(doc.Resources)
	x := &Index{ids: newRefMap[int]()}
	x.Resources = make([]*Resource, 0, n)
	for _, r := range doc.Resources {
		if r == nil {
			continue
		}
		if _, dup := x.ids.get(r.Ref()); dup {
			continue
		}
		x.ids.set(r.Ref(), len(x.Resources))
		x.Resources = append(x.Resources, r)
	}
	n = len(x.Resources)
	outDeg := make([]int32, n)
	inDeg := make([]int32, n)
	x.Edges = make([]*Edge, 0, len(doc.Edges))
	pairs := make([][2]int, 0, len(doc.Edges))
	for _, e := range doc.Edges {
		if e == nil {
			continue
		}
		f, ok1 := x.ids.get(e.From)
		t, ok2 := x.ids.get(e.To)
		if !ok1 || !ok2 {
			continue
		}
		x.Edges = append(x.Edges, e)
		pairs = append(pairs, [2]int{f, t})
		outDeg[f]++
		inDeg[t]++
	}
	// One backing array per direction keeps this to a few allocations.
	outAll := make([]int, len(pairs))
	inAll := make([]int, len(pairs))
	x.Out = make([][]int, n)
	x.In = make([][]int, n)
	o, i := 0, 0
	for v := 0; v < n; v++ {
		x.Out[v] = outAll[o : o : o+int(outDeg[v])]
		x.In[v] = inAll[i : i : i+int(inDeg[v])]
		o += int(outDeg[v])
		i += int(inDeg[v])
	}
	for _, p := range pairs {
		x.Out[p[0]] = append(x.Out[p[0]], p[1])
		x.In[p[1]] = append(x.In[p[1]], p[0])
	}
	return x
}

// ID returns the id of the resource ref.
func (x *Index) ID(ref Ref) (int, bool) {
	return x.ids.get(ref)
}

// Lookup returns the resource ref, or nil.
func (x *Index) Lookup(ref Ref) *Resource {
	if id, ok := x.ids.get(ref); ok {
		return x.Resources[id]
	}
	return nil
}

func (x *Index) refs(ids []int) []Ref {
	out := make([]Ref, len(ids))
	for i, id := range ids {
		out[i] = x.Resources[id].Ref()
	}
	return out
}

// Successors returns the refs ref has an edge to, sorted.
func (x *Index) Successors(ref Ref) []Ref { return x.neighbours(ref, x.Out) }

// Predecessors returns the refs with an edge to ref, sorted.
func (x *Index) Predecessors(ref Ref) []Ref { return x.neighbours(ref, x.In) }

func (x *Index) neighbours(ref Ref, adj [][]int) []Ref {
	id, ok := x.ids.get(ref)
	if !ok {
		return nil
	}
	out := x.refs(adj[id])
	slices.SortFunc(out, Ref.Compare)
	return slices.CompactFunc(out, func(a, b Ref) bool { return a == b })
}

// idHeap is a min-heap of ids ordered by ref.
type idHeap struct {
	ids []int
	x   *Index
}

func (h *idHeap) Len() int { return len(h.ids) }
func (h *idHeap) Less(i, j int) bool {
	return h.x.Resources[h.ids[i]].Ref().Compare(h.x.Resources[h.ids[j]].Ref()) < 0
}
func (h *idHeap) Swap(i, j int) { h.ids[i], h.ids[j] = h.ids[j], h.ids[i] }
func (h *idHeap) Push(v any)    { h.ids = append(h.ids, v.(int)) }
func (h *idHeap) Pop() any {
	v := h.ids[len(h.ids)-1]
	h.ids = h.ids[:len(h.ids)-1]
	return v
}

// TopoOrder returns the resources in a topological order: every edge goes
// from an earlier to a later resource; among the resources ready at the same
// time the smallest (kind, name) comes first, so the order is canonical. If
// the graph has cycles, it returns nil and the cycles (see Cycles).
func (x *Index) TopoOrder() ([]*Resource, [][]Ref) {
	n := len(x.Resources)
	indeg := make([]int, n)
	for v := range n {
		indeg[v] = len(x.In[v])
	}
	h := &idHeap{x: x}
	for v := range n {
		if indeg[v] == 0 {
			h.ids = append(h.ids, v)
		}
	}
	heap.Init(h)
	out := make([]*Resource, 0, n)
	for h.Len() > 0 {
		v := heap.Pop(h).(int)
		out = append(out, x.Resources[v])
		for _, w := range x.Out[v] {
			if indeg[w]--; indeg[w] == 0 {
				heap.Push(h, w)
			}
		}
	}
	if len(out) < n {
		return nil, x.Cycles()
	}
	return out, nil
}

// Cycles returns one cycle for every strongly connected component that has
// one, in order, starting at its smallest resource and not repeating it at
// the end; the cycles are sorted by their first resource.
func (x *Index) Cycles() [][]Ref {
	var out [][]Ref
	for _, comp := range x.sccs() {
		if len(comp) == 1 && !slices.Contains(x.Out[comp[0]], comp[0]) {
			continue
		}
		out = append(out, x.refs(x.cycleIn(comp)))
	}
	slices.SortFunc(out, func(a, b []Ref) int { return a[0].Compare(b[0]) })
	return out
}

// sccs returns the strongly connected components (Tarjan's algorithm,
// iterative so that long chains do not grow the stack).
func (x *Index) sccs() [][]int {
	n := len(x.Resources)
	index := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var comps [][]int
	type frame struct{ v, next int }
	next := 0
	for root := range n {
		if index[root] >= 0 {
			continue
		}
		call := []frame{{root, 0}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if f.next < len(x.Out[v]) {
				w := x.Out[v][f.next]
				f.next++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{w, 0})
				} else if onStack[w] && index[w] < low[v] {
					low[v] = index[w]
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				if p := call[len(call)-1].v; low[v] < low[p] {
					low[p] = low[v]
				}
			}
			if low[v] == index[v] {
				var comp []int
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp = append(comp, w)
					if w == v {
						break
					}
				}
				comps = append(comps, comp)
			}
		}
	}
	return comps
}

// cycleIn returns a shortest cycle through the smallest vertex of a
// strongly connected component, found by breadth-first search.
func (x *Index) cycleIn(comp []int) []int {
	in := make(map[int]bool, len(comp))
	s := comp[0]
	for _, v := range comp {
		in[v] = true
		if x.Resources[v].Ref().Compare(x.Resources[s].Ref()) < 0 {
			s = v
		}
	}
	parent := map[int]int{s: -1}
	queue := []int{s}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		succ := slices.Clone(x.Out[v])
		slices.SortFunc(succ, func(a, b int) int { return x.Resources[a].Ref().Compare(x.Resources[b].Ref()) })
		for _, w := range succ {
			if w == s {
				var path []int
				for u := v; u != -1; u = parent[u] {
					path = append(path, u)
				}
				slices.Reverse(path)
				return path
			}
			if _, seen := parent[w]; !seen && in[w] {
				parent[w] = v
				queue = append(queue, w)
			}
		}
	}
	return []int{s}
}

// maxCycleShown is the number of resources of a cycle an error names; a
// longer cycle is shown by its first and last resources and the number of
// those between.
const maxCycleShown = 20

// CycleString prints a cycle as a -> b -> c -> a. A cycle of more than
// maxCycleShown resources (a ring of 200,000 files would make a line of
// megabytes) names its first and last maxCycleShown/2 resources and says
// how many it leaves out between them.
func CycleString(c []Ref) string {
	if len(c) == 0 {
		return ""
	}
	var b strings.Builder
	half := maxCycleShown / 2
	for i, r := range c {
		if len(c) > maxCycleShown && i == half {
			fmt.Fprintf(&b, "(%d more) -> ", len(c)-maxCycleShown)
		}
		if len(c) > maxCycleShown && i >= half && i < len(c)-half {
			continue
		}
		b.WriteString(r.String())
		b.WriteString(" -> ")
	}
	b.WriteString(c[0].String())
	return b.String()
}

// Reachable returns the resources reachable from the given ones by
// following edges forward (the starting resources included), sorted.
func (x *Index) Reachable(from ...Ref) []Ref { return x.walk(from, x.Out) }

// ReachableBackward returns the resources from which one of the given ones
// can be reached (those included), sorted.
func (x *Index) ReachableBackward(to ...Ref) []Ref { return x.walk(to, x.In) }

func (x *Index) walk(start []Ref, adj [][]int) []Ref {
	seen := make([]bool, len(x.Resources))
	var queue []int
	for _, r := range start {
		if id, ok := x.ids.get(r); ok && !seen[id] {
			seen[id] = true
			queue = append(queue, id)
		}
	}
	for i := 0; i < len(queue); i++ {
		for _, w := range adj[queue[i]] {
			if !seen[w] {
				seen[w] = true
				queue = append(queue, w)
			}
		}
	}
	out := x.refs(queue)
	slices.SortFunc(out, Ref.Compare)
	return out
}

// Components returns the weakly connected components: each sorted, and
// the components sorted by their first resource.
func (x *Index) Components() [][]Ref {
	n := len(x.Resources)
	comp := make([]int, n)
	for i := range comp {
		comp[i] = -1
	}
	var out [][]Ref
	for s := range n {
		if comp[s] >= 0 {
			continue
		}
		c := len(out)
		comp[s] = c
		queue := []int{s}
		for i := 0; i < len(queue); i++ {
			v := queue[i]
			for _, adj := range [2][]int{x.Out[v], x.In[v]} {
				for _, w := range adj {
					if comp[w] < 0 {
						comp[w] = c
						queue = append(queue, w)
					}
				}
			}
		}
		refs := x.refs(queue)
		slices.SortFunc(refs, Ref.Compare)
		out = append(out, refs)
	}
	slices.SortFunc(out, func(a, b []Ref) int { return a[0].Compare(b[0]) })
	return out
}

// Reverse returns a copy of doc with every edge turned around. Resources
// are shared with doc.
func Reverse(doc *Document) *Document {
	c := *doc
	c.Edges = make([]*Edge, len(doc.Edges))
	for i, e := range doc.Edges {
		r := *e
		r.From, r.To = e.To, e.From
		c.Edges[i] = &r
	}
	return &c
}

// TopoOrder returns doc's resources in canonical topological order, or an
// error naming the cycles.
func TopoOrder(doc *Document) ([]*Resource, error) {
	x := NewIndex(doc)
	order, cycles := x.TopoOrder()
	if cycles != nil {
		var errs ErrorList
		for _, c := range cycles {
			errs.Add(x.Lookup(c[0]).Where(), "cycle: %s", CycleString(c))
		}
		return nil, errs
	}
	return order, nil
}
