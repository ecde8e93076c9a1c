package engine

import (
	"slices"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// A Vertex is one runnable vertex of a prepared graph: a resource and, when
// autogrouping merged others into it, its members.
type Vertex struct {
	Res     Res
	Src     *graph.Resource // the resource as the document gave it
	Members []*Vertex       // resources grouped into this one

	*adjacency // its edges while the graph is built (Compact drops them)
	key        string
	params     paramsDigest // of Src.Params, which Compact may let go of
	grouped    bool         // merged into another vertex
	changed    bool         // its CheckApply (or its group's) changed something (sched.markChanged)
}

// An adjacency is the edges of a vertex, which the building of a graph
// reads: a graph compacted for running has none.
type adjacency struct {
	in, out  []*Edge
	walkMark uint32 // the generation of the last walk of reaches that visited it
}

// An Edge orders From before To; Notify also sends a refresh and Send/Recv
// copy a value.
type Edge struct {
	From, To   *Vertex
	Notify     bool
	Send, Recv string
	Auto       bool // added by autoedges
}

// A Graph is a prepared resource graph: decoded, validated, with its
// automatic edges and groups, ready to run or to print.
type Graph struct {
	Name   string
	Seq    int64
	Source string

	Vertices []*Vertex // runnable vertices (group heads), sorted by kind and name
	Edges    []*Edge   // edges between runnable vertices

	all      []*Vertex     // every resource, grouped or not, sorted
	docEdges []*graph.Edge // explicit and automatic edges between resources

	linked map[[2]*Vertex]bool // pairs joined by an edge, while adding autoedges
	// the walks of reaches: the generation of the last one, and its stack
	walkGen   uint32
	walkStack []*Vertex
}

// BuildOptions change how Build prepares a graph.
type BuildOptions struct {
	NoAutoEdges  bool // skip the automatic edges of every resource
	NoAutoGroups bool // skip autogrouping
	// Made holds resources that NewRes already made from resources of
	// the document, by the very resource they were made from, which has
	// not changed since: Build uses them instead of decoding and
	// validating those resources again. A program that checks resources
	// one at a time (to choose another translation for those refused)
	// and then the whole graph makes each resource once. Each one belongs
	// to the graph Build returns.
	Made map[*graph.Resource]Res
	// NoDigests leaves out the digests of the resources' parameters, which
	// only spare a running engine comparing the resources of two graphs
	// field by field (see Engine.Load): for a graph that is only checked
	// or printed. A graph without them runs the same.
	NoDigests bool
	// Consume lets Build take the parameters out of the document's
	// resources as it makes each one (after digesting them), so that the
	// parameter trees, most of what a decoded document holds, are let go
	// of while the rest of the document is still read, not after: for a
	// program that runs the graph, compacts it (see Compact) and neither
	// prints it nor reads the parameters of the document again. A
	// resource exported through the world (Meta.Export) keeps its
	// parameters, which its export sends. Each resource's name then
	// becomes the bytes of its vertex's key (kind[name]), an equal
	// string, in the document as in the resource, so that the running
	// graph does not hold each name twice.
	Consume bool
}

// Build prepares doc. graph.Validate decides what makes a graph valid
// (duplicates, which it collapses when identical, dangling edges, send/recv
// types, cycles); Build consumes its result: each resource is then created
// from the registry, its parameters decoded and coerced, its
// metaparameters and parameters validated; automatic edges are added and
// groupable resources grouped. Every error is returned, as a
// graph.ErrorList.
func Build(doc *graph.Document, opts BuildOptions) (g *Graph, err error) {
	defer func() {
		if r := recover(); r != nil {
			g, err = nil, graph.Errorf(doc.At.String(), "", "preparing the graph: panic: %v", r)
		}
	}()
	if doc.IsError() {
		return nil, graph.Errorf(doc.Error.Pos, "", "%s", doc.Error.Message)
	}
	if err := doc.Validate(); err != nil {
		return nil, err
	}
	g = &Graph{Name: doc.Graph, Seq: doc.Seq, Source: doc.Source}
	byKey := make(map[graph.Ref]*Vertex, len(doc.Resources))
	var errs graph.ErrorList
	var dg digester
	for _, rr := range doc.Resources {
		v, err := newVertex(rr, opts, &dg)
		if err != nil {
			l, _ := graph.AsList(err)
			errs = append(errs, l...)
			continue
		}
		byKey[rr.Ref()] = v
		g.all = append(g.all, v)
		if opts.Consume && (rr.Meta == nil || len(rr.Meta.Export) == 0) {
			rr.Params = nil
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	slices.SortFunc(g.all, func(a, b *Vertex) int { return a.Src.Ref().Compare(b.Src.Ref()) })
	for _, e := range doc.Edges {
		g.addDocEdge(byKey[e.From], byKey[e.To], e)
	}
	if !opts.NoAutoEdges {
		if err := g.autoEdges(); err != nil {
			return nil, err
		}
	}
	if !opts.NoAutoGroups {
		g.autoGroup()
	}
	for _, v := range g.all {
		if !v.grouped {
			g.Vertices = append(g.Vertices, v)
		}
	}
	g.Edges = dedupeEdges(g.Vertices)
	g.linked, g.walkStack = nil, nil
	return g, nil
}

// Compact lets go of what the graph keeps only for Document: the
// parameters and metaparameters of each resource as the document gave them
// (each resource holds its own decoded values) and the edges as the
// document spelled them (and each vertex's lists of its edges, which
// only the building needs). Document then returns the resources by kind, name
// and position only, without edges. A program that runs the graph without
// printing it calls Compact before Engine.Load, so that the parameter
// trees, most of what a decoded document holds, are not kept for as long
// as the graph runs. The resources of the document are not changed.
func (g *Graph) Compact() {
	srcs := make([]graph.Resource, len(g.all))
	for i, v := range g.all {
		r := v.Src
		srcs[i] = graph.Resource{Kind: r.Kind, Name: r.Name, Pos: r.Pos, Origin: r.Origin, At: r.At}
		v.Src = &srcs[i]
		// The engine runs the graph from Edges: each vertex's own
		// lists served the building.
		v.adjacency = nil
	}
	g.docEdges = nil
}

// newVertex makes the vertex of rr, which Validate checked: its resource
// is opts.Made's or made by NewRes, and dg takes the digest of its
// parameters.
func newVertex(rr *graph.Resource, opts BuildOptions, dg *digester) (*Vertex, error) {
	key := rr.Ref().String()
	if opts.Consume {
		// From now on the name is the key's own bytes (kind[name]), in
		// the document, the vertex and the resource, so that a running
		// graph does not hold each name twice.
		rr.Name = key[len(rr.Kind)+1 : len(key)-1]
	}
	res := opts.Made[rr]
	if res == nil {
		var err error
		if res, err = NewRes(rr); err != nil {
			return nil, err
		}
	} else if opts.Consume {
		res.SetName(rr.Name)
	}
	v := &Vertex{Res: res, Src: rr, adjacency: &adjacency{}, key: key}
	if !opts.NoDigests {
		v.params = dg.params(rr.Params)
	}
	return v, nil
}

// NewRes creates the resource of rr, a resource that graph.Validate (or
// graph.CheckResource) accepts, as Build does: its parameters decoded
// into the kind's fields, its metaparameters set and its own Validate run.
// A panic in the resource's code becomes an error about it.
func NewRes(rr *graph.Resource) (res Res, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, graph.Errorf(rr.Where(), "", "%s: panic: %v", rr.Ref(), r)
		}
	}()
	key := rr.Ref().String()
	res, rerr := NewResource(rr.Kind)
	if rerr != nil {
		return nil, graph.Errorf(rr.Where(), "", "%s: %v", key, rerr)
	}
	if err := DecodeParams(res, rr.Params); err != nil {
		return nil, graph.Errorf(rr.Where(), "", "%s: %v", key, err)
	}
	res.SetName(rr.Name)
	// Resources without metaparameters share one set of defaults: the
	// engine and the resources read them and never change them.
	meta := defaultMeta
	if rr.Meta != nil {
		m := *rr.Meta
		meta = &m
	}
	res.SetMetaParams(meta)
	if !meta.Hidden {
		if err := res.Validate(); err != nil {
			return nil, graph.Errorf(rr.Where(), "", "%s: invalid: %v", key, err)
		}
	}
	return res, nil
}

// addDocEdge adds the edge e of the document, from from to to.
func (g *Graph) addDocEdge(from, to *Vertex, e *graph.Edge) {
	ed := &Edge{From: from, To: to, Notify: e.Notify, Send: e.Send, Recv: e.Recv}
	from.out = append(from.out, ed)
	to.in = append(to.in, ed)
	g.docEdges = append(g.docEdges, e)
}

// reaches reports whether to can be reached from from along edges; with
// a limit above 0 it also reports true once the walk would visit more
// than limit vertices. A walk marks the vertices it visits with a
// generation of its own, so that no set is made or cleared per walk.
func (g *Graph) reaches(from, to *Vertex, limit int) bool {
	gen := g.nextWalk()
	from.walkMark = gen
	visited := 1
	stack := append(g.walkStack[:0], from)
	defer func() { g.walkStack = stack[:0] }()
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range v.out {
			if e.To == to {
				return true
			}
			if e.To.walkMark != gen {
				if limit > 0 && visited >= limit {
					return true
				}
				e.To.walkMark = gen
				visited++
				stack = append(stack, e.To)
			}
		}
	}
	return false
}

// nextWalk returns the generation of a new walk over the graph's vertices.
func (g *Graph) nextWalk() uint32 {
	g.walkGen++
	if g.walkGen == 0 { // wrapped around: old marks could match
		for _, v := range g.all {
			v.walkMark = 0
		}
		g.walkGen = 1
	}
	return g.walkGen
}

// dedupeEdges collects the edges of vs, merging parallel edges without
// send/recv into one (notify if any of them notifies).
func dedupeEdges(vs []*Vertex) []*Edge {
	var out []*Edge
	for _, v := range vs {
		seen := map[*Vertex]*Edge{}
		var keep []*Edge
		for _, e := range v.out {
			if e.Send == "" {
				if prev, ok := seen[e.To]; ok {
					prev.Notify = prev.Notify || e.Notify
					continue
				}
				seen[e.To] = e
			}
			keep = append(keep, e)
		}
		v.out = keep
		out = append(out, keep...)
	}
	for _, v := range vs {
		v.in = v.in[:0]
	}
	for _, e := range out {
		e.To.in = append(e.To.in, e)
	}
	return out
}

// Document returns the prepared graph as a graph document: every resource
// (grouped ones included) and every edge, explicit and automatic, in
// canonical order.
func (g *Graph) Document() *graph.Document {
	d := &graph.Document{Mgmt: graph.Version, Graph: g.Name, Seq: g.Seq, Source: g.Source}
	for _, v := range g.all {
		d.Resources = append(d.Resources, v.Src)
	}
	seen := make(map[graph.EdgeKey]bool, len(g.docEdges))
	for _, e := range g.docEdges {
		if seen[e.Key()] {
			continue
		}
		seen[e.Key()] = true
		d.Edges = append(d.Edges, e)
	}
	graph.SortEdges(d.Edges)
	return d
}

// Len returns the number of resources in the graph, grouped ones included.
func (g *Graph) Len() int { return len(g.all) }
