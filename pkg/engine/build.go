package engine

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// A Vertex is one runnable vertex of a prepared graph: a resource and, when
// autogrouping merged others into it, its members.
type Vertex struct {
	Res Res
	// members are the resources grouped into this one (Members); nil
	// for most vertices, which group none, at the cost of 8 bytes each
	// rather than a slice's 24.
	members *[]*Vertex

	*adjacency              // its edges and document resource until Compact
	src        *source      // where the document gave the resource
	key        string       // kind[name]
	params     paramsDigest // of the document's parameters, which Compact lets go of
	grouped    bool         // merged into another vertex
	changed    bool         // its CheckApply (or its group's) changed something (sched.markChanged)
	// kindLen is the length of the kind at the start of key, 0 when it
	// does not fit (kind then looks for the '['): the sort of a graph's
	// vertices compares kinds and names millions of times. It takes
	// bytes the alignment of the struct leaves unused.
	kindLen uint16
}

// Members returns the resources grouped into v.
func (v *Vertex) Members() []*Vertex {
	if v.members == nil {
		return nil
	}
	return *v.members
}

// An adjacency is the edges of a vertex, which the building of a graph
// reads, and its resource as the document gave it, which Document returns:
// a graph compacted for running has none.
type adjacency struct {
	in, out  []*Edge
	doc      *graph.Resource
	walkMark uint32 // the generation of the last walk of reaches that visited it
	ord      int32  // its position in a topological order, while adding autoedges
}

// A source is what a vertex keeps of its resource's place in the document
// for as long as it runs (its kind and name are its key's): the line and
// column where it was read, and its pos, origin and the name of what it
// was read from, which the vertices of a graph share while they are the
// same (they mostly are in a document without pos). A graph's sources
// are one slice: 16 bytes per resource and a place per run of equal ones,
// instead of a copy of the document's resource (112 bytes).
type source struct {
	line, col int32 // of At; line -1: place.at holds them (too large)
	place     *place
}

// A place is the pos, origin and At of a resource of the document; At's
// line and column only when they do not fit a source.
type place struct {
	pos, origin string
	at          graph.Position
}

// setSource sets s to where the document gave r, sharing prev's place
// when it is the same.
func setSource(s *source, r *graph.Resource, prev *place) {
	at := r.At
	if at.Line < 0 || at.Line > math.MaxInt32 || at.Col < 0 || at.Col > math.MaxInt32 {
		*s = source{line: -1, place: &place{pos: r.Pos, origin: r.Origin, at: at}}
		return
	}
	s.line, s.col = int32(at.Line), int32(at.Col)
	if prev != nil && prev.pos == r.Pos && prev.origin == r.Origin && prev.at == (graph.Position{File: at.File}) {
		s.place = prev
		return
	}
	s.place = &place{pos: r.Pos, origin: r.Origin, at: graph.Position{File: at.File}}
}

// at returns where the document's resource was read.
func (s *source) at() graph.Position {
	if s.line < 0 {
		return s.place.at
	}
	return graph.Position{File: s.place.at.File, Line: int(s.line), Col: int(s.col)}
}

// kind returns the kind of v's resource, the start of its key.
func (v *Vertex) kind() string { return v.key[:v.kindEnd()] }

// name returns the name of v's resource, from its key.
func (v *Vertex) name() string { return v.key[v.kindEnd()+1 : len(v.key)-1] }

// kindEnd returns the index of the '[' that ends the kind in v's key.
func (v *Vertex) kindEnd() int {
	if v.kindLen > 0 {
		return int(v.kindLen)
	}
	return strings.IndexByte(v.key, '[')
}

// compareVertices orders vertices by kind, then name, as graph.Ref.Compare
// orders their references.
func compareVertices(a, b *Vertex) int {
	ka, kb := a.kindEnd(), b.kindEnd()
	if c := strings.Compare(a.key[:ka], b.key[:kb]); c != 0 {
		return c
	}
	return strings.Compare(a.key[ka+1:len(a.key)-1], b.key[kb+1:len(b.key)-1])
}

// ref returns the reference to v's resource.
func (v *Vertex) ref() graph.Ref { return graph.Ref{Kind: v.kind(), Name: v.name()} }

// pos returns the pos the document gave v's resource.
func (v *Vertex) pos() string { return v.src.place.pos }

// where returns the position to report errors about v's resource at, as
// graph.Resource.Where does: its pos when it has one, otherwise where it
// was read.
func (v *Vertex) where() string {
	if p := v.src.place.pos; p != "" {
		return p
	}
	return v.src.at().String()
}

// resource returns v's resource as the document gave it, or after
// Compact its kind, name and position only.
func (v *Vertex) resource() *graph.Resource {
	if v.adjacency != nil {
		return v.doc
	}
	return &graph.Resource{Kind: v.kind(), Name: v.name(), Pos: v.src.place.pos, Origin: v.src.place.origin, At: v.src.at()}
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
	docEdges []*graph.Edge // explicit edges between resources
	// the automatic edges between resources, in the order they were
	// added, which Document makes into the document's edges
	autoPairs [][2]*Vertex

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
	// the document, by the very resource they were made from, which
	// graph.CheckResource accepted and which has not changed since:
	// Build uses them instead of decoding and validating those
	// resources again, and does not check them alone again. A program that checks resources
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
	// A resource of Made was accepted by graph.CheckResource (NewRes
	// requires it) and has not changed since: it is not checked again.
	var checked func(*graph.Resource) bool
	if len(opts.Made) > 0 {
		checked = func(r *graph.Resource) bool { return opts.Made[r] != nil }
	}
	pairs, err := doc.ValidatePairs(checked)
	if err != nil {
		return nil, err
	}
	g = &Graph{Name: doc.Graph, Seq: doc.Seq, Source: doc.Source, all: make([]*Vertex, 0, len(doc.Resources))}
	// the vertex of each resource, by its index in doc.Resources, which
	// pairs name the ends of the edges by
	byIndex := make([]*Vertex, len(doc.Resources))
	srcs := make([]source, len(doc.Resources))
	var prev *place
	for i, rr := range doc.Resources {
		setSource(&srcs[i], rr, prev)
		prev = srcs[i].place
	}
	if errs := makeVertices(doc.Resources, srcs, byIndex, opts); len(errs) > 0 {
		return nil, errs
	}
	g.all = append(g.all, byIndex...)
	slices.SortFunc(g.all, compareVertices)
	g.linkDocEdges(doc.Edges, pairs, byIndex)
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
	// graph.Validate leaves one edge without send/recv between two
	// resources: only automatic edges and groups can make parallel ones
	g.Edges = g.dedupeEdges(!opts.NoAutoEdges || !opts.NoAutoGroups)
	g.linked, g.walkStack = nil, nil
	return g, nil
}

// Compact lets go of what the graph keeps only for Document: the
// resources as the document gave them, with their parameters and
// metaparameters (each resource holds its own decoded values, each vertex
// its kind, name and position), and the edges as the document spelled
// them (and each vertex's lists of its edges, which only the building
// needs). Document then returns the resources by kind, name and position
// only, without edges. A program that runs the graph without printing it
// calls Compact before Engine.Load, so that the parameter trees, most of
// what a decoded document holds, are not kept for as long as the graph
// runs. The resources of the document are not changed.
func (g *Graph) Compact() {
	for _, v := range g.all {
		// The engine runs the graph from Edges: each vertex's own
		// lists served the building.
		v.adjacency = nil
	}
	g.docEdges, g.autoPairs = nil, nil
}

// parallelMin is the number of resources from which Build makes them, and
// asks them for their automatic edges, on more than one goroutine
// (inParts); a graph smaller than that is done faster than goroutines
// start.
const parallelMin = 512

// partsFor returns the number of parts inParts splits n items into: one
// per processor the runtime uses from parallelMin items on, each of at
// least parallelMin/2, else one.
func partsFor(n int) int {
	if n < parallelMin {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), n/(parallelMin/2))
}

// inParts runs work on the items [0, n) split into parts contiguous
// parts, at once, the last one on the caller's goroutine, and returns when
// every part has ended. Each part's items are done in order; a part
// changes only what belongs to its own items and its own index p. A panic
// in a part is raised again in the caller's goroutine (Build's recover
// turns it into an error).
func inParts(parts, n int, work func(p, lo, hi int)) {
	panics := make([]any, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*n/parts, (p+1)*n/parts
		run := func() {
			defer func() {
				if r := recover(); r != nil {
					panics[p] = r
				}
			}()
			work(p, lo, hi)
		}
		if p == parts-1 {
			run()
		} else {
			wg.Go(run)
		}
	}
	wg.Wait()
	for _, r := range panics {
		if r != nil {
			panic(r)
		}
	}
}

// makeVertices makes the vertex of each resource of rs into byIndex, at
// the same index, with srcs its sources, and returns the errors of those
// that cannot be made, in the order of rs. Each resource is made on its
// own (its parameters decoded into its kind's fields, its own Validate
// run, its parameters digested), in parts made at once (inParts): the
// result is the same as one goroutine's.
func makeVertices(rs []*graph.Resource, srcs []source, byIndex []*Vertex, opts BuildOptions) graph.ErrorList {
	parts := partsFor(len(rs))
	errs := make([]graph.ErrorList, parts)
	inParts(parts, len(rs), func(p, lo, hi int) {
		var dg digester
		for i := lo; i < hi; i++ {
			rr := rs[i]
			v, err := newVertex(rr, &srcs[i], opts, &dg)
			if err != nil {
				l, _ := graph.AsList(err)
				errs[p] = append(errs[p], l...)
				continue
			}
			byIndex[i] = v
			if opts.Consume && (rr.Meta == nil || len(rr.Meta.Export) == 0) {
				rr.Params = nil
			}
		}
	})
	var all graph.ErrorList
	for _, e := range errs {
		all = append(all, e...)
	}
	return all
}

// newVertex makes the vertex of rr, which Validate checked, at src: its
// resource is opts.Made's or made by NewRes, and dg takes the digest of its
// parameters.
func newVertex(rr *graph.Resource, src *source, opts BuildOptions, dg *digester) (*Vertex, error) {
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
	v := &Vertex{Res: res, adjacency: &adjacency{doc: rr}, src: src, key: key}
	if len(rr.Kind) <= math.MaxUint16 {
		v.kindLen = uint16(len(rr.Kind))
	}
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
	res, rerr := NewResource(rr.Kind)
	if rerr != nil {
		return nil, graph.Errorf(rr.Where(), "", "%s: %v", rr.Ref(), rerr)
	}
	if err := DecodeParams(res, rr.Params); err != nil {
		return nil, graph.Errorf(rr.Where(), "", "%s: %v", rr.Ref(), err)
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
			return nil, graph.Errorf(rr.Where(), "", "%s: invalid: %v", rr.Ref(), err)
		}
	}
	return res, nil
}

// linkDocEdges adds the edges of the document, where edges[i] goes from
// the vertex byIndex[pairs[i][0]] to byIndex[pairs[i][1]]. The edges are
// one slice, and so are the vertices' lists of them, each list sized by
// a count first (an automatic edge added later gets its own copy of the
// list).
func (g *Graph) linkDocEdges(edges []*graph.Edge, pairs [][2]int32, byIndex []*Vertex) {
	nOut := make([]int32, len(byIndex))
	nIn := make([]int32, len(byIndex))
	for _, p := range pairs {
		nOut[p[0]]++
		nIn[p[1]]++
	}
	lists := make([]*Edge, 2*len(edges))
	for i, v := range byIndex {
		v.out, lists = lists[:0:nOut[i]], lists[nOut[i]:]
		v.in, lists = lists[:0:nIn[i]], lists[nIn[i]:]
	}
	slab := make([]Edge, len(edges))
	g.docEdges = slices.Grow(g.docEdges, len(edges))
	for i, e := range edges {
		from, to := byIndex[pairs[i][0]], byIndex[pairs[i][1]]
		ed := &slab[i]
		*ed = Edge{From: from, To: to, Notify: e.Notify, Send: e.Send, Recv: e.Recv}
		from.out = append(from.out, ed)
		to.in = append(to.in, ed)
		g.docEdges = append(g.docEdges, e)
	}
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

// dedupeEdges collects the edges of the runnable vertices, merging
// parallel edges without send/recv into one (notify if any of them
// notifies) when merge is set, which it need not be when no two such
// edges join the same vertices. The first edge of a vertex to each other
// one is found by marking the other with a walk's generation and its
// position among the edges kept in its ord, which autoedges no longer
// needs.
func (g *Graph) dedupeEdges(merge bool) []*Edge {
	vs := g.Vertices
	n := 0
	for _, v := range vs {
		n += len(v.out)
	}
	out := make([]*Edge, 0, n)
	for _, v := range vs {
		if !merge || len(v.out) < 2 {
			out = append(out, v.out...) // nothing to merge
			continue
		}
		gen := g.nextWalk()
		keep := v.out[:0]
		for _, e := range v.out {
			if e.Send == "" {
				w := e.To
				if w.walkMark == gen {
					prev := keep[w.ord]
					prev.Notify = prev.Notify || e.Notify
					continue
				}
				w.walkMark, w.ord = gen, int32(len(keep))
			}
			keep = append(keep, e)
		}
		clear(v.out[len(keep):])
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
		d.Resources = append(d.Resources, v.resource())
	}
	seen := make(map[graph.EdgeKey]bool, len(g.docEdges)+len(g.autoPairs))
	add := func(e *graph.Edge) {
		if !seen[e.Key()] {
			seen[e.Key()] = true
			d.Edges = append(d.Edges, e)
		}
	}
	for _, e := range g.docEdges {
		add(e)
	}
	for _, p := range g.autoPairs {
		add(&graph.Edge{From: p[0].ref(), To: p[1].ref()})
	}
	graph.SortEdges(d.Edges)
	return d
}

// Len returns the number of resources in the graph, grouped ones included.
func (g *Graph) Len() int { return len(g.all) }
