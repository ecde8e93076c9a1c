package engine

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// A Vertex is one runnable vertex of a prepared graph: a resource and, when
// autogrouping merged others into it, its members.
type Vertex struct {
	Res     Res
	Src     *graph.Resource // the resource as the document gave it
	Members []*Vertex       // resources grouped into this one

	in, out []*Edge
	key     string
	grouped bool // merged into another vertex
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
}

// BuildOptions change how Build prepares a graph.
type BuildOptions struct {
	NoAutoEdges  bool // skip the automatic edges of every resource
	NoAutoGroups bool // skip autogrouping
}

// Build prepares doc: each resource is created from the registry, its
// parameters decoded and coerced, its metaparameters and parameters
// validated; then edges are resolved (send/recv types checked), cycles
// rejected, automatic edges added and groupable resources grouped.
func Build(doc *graph.Document, opts BuildOptions) (g *Graph, err error) {
	defer func() {
		if r := recover(); r != nil {
			g, err = nil, graph.Errorf(doc.At.String(), "", "preparing the graph: panic: %v", r)
		}
	}()
	if doc.IsError() {
		return nil, graph.Errorf(doc.Error.Pos, "", "%s", doc.Error.Message)
	}
	if doc.Mgmt != graph.Version {
		return nil, graph.Errorf("", "", "document version is %q, want %q", doc.Mgmt, graph.Version)
	}
	g = &Graph{Name: doc.Graph, Seq: doc.Seq, Source: doc.Source}
	byKey := map[string]*Vertex{}
	for _, rr := range doc.Resources {
		key := rr.Kind + "[" + rr.Name + "]"
		if old, dup := byKey[key]; dup {
			if reflect.DeepEqual(old.Src.Params, rr.Params) && metaEqual(old.Src.Meta, rr.Meta) {
				continue
			}
			return nil, graph.Errorf(rr.Where(), "", "%s: incompatible duplicate resource (also at %s)", key, posOr(old.Src.Where()))
		}
		v, err := newVertex(rr)
		if err != nil {
			return nil, err
		}
		byKey[key] = v
		g.all = append(g.all, v)
	}
	sort.Slice(g.all, func(i, j int) bool { return lessRes(g.all[i].Src, g.all[j].Src) })
	for _, e := range doc.Edges {
		if err := g.addDocEdge(byKey, e); err != nil {
			return nil, err
		}
	}
	if cyc := findCycle(g.all); cyc != nil {
		return nil, graph.Errorf(cyc[0].Src.Where(), "", "cycle in the graph: %s", cycleString(cyc))
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
	return g, nil
}

func posOr(p string) string {
	if p == "" {
		return "an unknown position"
	}
	return p
}

func lessRes(a, b *graph.Resource) bool {
	if a.Kind != b.Kind {
		return a.Kind < b.Kind
	}
	return a.Name < b.Name
}

// newVertex creates and validates the resource of rr. A panic in the
// resource's code becomes an error about it.
func newVertex(rr *graph.Resource) (v *Vertex, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, graph.Errorf(rr.Where(), "", "%s[%s]: panic: %v", rr.Kind, rr.Name, r)
		}
	}()
	key := rr.Kind + "[" + rr.Name + "]"
	if rr.Name == "" {
		return nil, graph.Errorf(rr.Where(), "", "%s: empty resource name", key)
	}
	res, err := NewResource(rr.Kind)
	if err != nil {
		return nil, graph.Errorf(rr.Where(), "", "%s: %v", key, err)
	}
	if err := DecodeParams(res, rr.Params); err != nil {
		return nil, graph.Errorf(rr.Where(), "", "%s: %v", key, err)
	}
	res.SetName(rr.Name)
	meta := DefaultMeta()
	if rr.Meta != nil {
		m := *rr.Meta
		meta = &m
	}
	res.SetMetaParams(meta)
	if err := ValidateMeta(meta); err != nil {
		return nil, graph.Errorf(rr.Where(), "", "%s: %v", key, err)
	}
	if strings.HasPrefix(rr.Name, "$") && !meta.Dollar {
		return nil, graph.Errorf(rr.Where(), "", "%s: the resource name starts with a $ (set Meta:dollar to allow it)", key)
	}
	if !meta.Hidden {
		if err := res.Validate(); err != nil {
			return nil, graph.Errorf(rr.Where(), "", "%s: invalid: %v", key, err)
		}
	}
	return &Vertex{Res: res, Src: rr, key: key}, nil
}

func (g *Graph) addDocEdge(byKey map[string]*Vertex, e *graph.Edge) error {
	from, ok := byKey[e.From.String()]
	if !ok {
		return graph.Errorf("", "", "edge %s -> %s: no resource %s", e.From, e.To, e.From)
	}
	to, ok := byKey[e.To.String()]
	if !ok {
		return graph.Errorf(from.Src.Where(), "", "edge %s -> %s: no resource %s", e.From, e.To, e.To)
	}
	if from == to {
		return graph.Errorf(from.Src.Where(), "", "edge %s -> %s: a resource cannot depend on itself", e.From, e.To)
	}
	if (e.Send == "") != (e.Recv == "") {
		return graph.Errorf(from.Src.Where(), "", "edge %s -> %s: send and recv must be set together", e.From, e.To)
	}
	if e.Send != "" {
		if err := checkSendRecv(from, to, e.Send, e.Recv); err != nil {
			return err
		}
	}
	ed := &Edge{From: from, To: to, Notify: e.Notify, Send: e.Send, Recv: e.Recv}
	from.out = append(from.out, ed)
	to.in = append(to.in, ed)
	de := *e
	g.docEdges = append(g.docEdges, &de)
	return nil
}

// checkSendRecv checks, with the schema registry, that the sender can send
// key send, the receiver can receive into param recv, and the types agree.
func checkSendRecv(from, to *Vertex, send, recv string) error {
	end := fmt.Sprintf("send/recv %s.%s -> %s.%s", from.key, send, to.key, recv)
	fs, _ := graph.LookupKind(from.Src.Kind)
	ts, _ := graph.LookupKind(to.Src.Kind)
	if fs == nil || fs.Sends == nil {
		return graph.Errorf(from.Src.Where(), "", "%s: %s cannot send values", end, from.key)
	}
	st, ok := fs.Sends[send]
	if !ok {
		return graph.Errorf(from.Src.Where(), "", "%s: %s has no send key %q", end, from.key, send)
	}
	if ts == nil || !ts.Recv {
		return graph.Errorf(to.Src.Where(), "", "%s: %s cannot receive values", end, to.key)
	}
	rt, ok := ts.Params[recv]
	if !ok {
		return graph.Errorf(to.Src.Where(), "", "%s: %s has no parameter %q", end, to.key, recv)
	}
	if st != rt {
		return graph.Errorf(to.Src.Where(), "", "%s: type mismatch: %s sends %s, %s.%s is %s", end, from.key, st, to.key, recv, rt)
	}
	return nil
}

// findCycle returns one cycle of the graph of vs, in edge order, or nil.
func findCycle(vs []*Vertex) []*Vertex {
	const (
		white = iota
		grey
		black
	)
	color := map[*Vertex]int{}
	var stack []*Vertex
	var found []*Vertex
	var visit func(v *Vertex) bool
	visit = func(v *Vertex) bool {
		color[v] = grey
		stack = append(stack, v)
		for _, e := range v.out {
			switch color[e.To] {
			case grey:
				for i, s := range stack {
					if s == e.To {
						found = append([]*Vertex(nil), stack[i:]...)
					}
				}
				return true
			case white:
				if visit(e.To) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[v] = black
		return false
	}
	for _, v := range vs {
		if color[v] == white && visit(v) {
			return found
		}
	}
	return nil
}

func cycleString(cyc []*Vertex) string {
	parts := make([]string, 0, len(cyc)+1)
	for _, v := range cyc {
		parts = append(parts, v.key)
	}
	parts = append(parts, cyc[0].key)
	return strings.Join(parts, " -> ")
}

// reachable reports whether to can be reached from from along edges.
func reachable(from, to *Vertex) bool {
	seen := map[*Vertex]bool{from: true}
	stack := []*Vertex{from}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range v.out {
			if e.To == to {
				return true
			}
			if !seen[e.To] {
				seen[e.To] = true
				stack = append(stack, e.To)
			}
		}
	}
	return false
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
	seen := map[string]bool{}
	for _, e := range g.docEdges {
		b, _ := json.Marshal(e)
		if seen[string(b)] {
			continue
		}
		seen[string(b)] = true
		d.Edges = append(d.Edges, e)
	}
	sort.SliceStable(d.Edges, func(i, j int) bool {
		a, b := d.Edges[i], d.Edges[j]
		if a.From != b.From {
			return refLess(a.From, b.From)
		}
		if a.To != b.To {
			return refLess(a.To, b.To)
		}
		if a.Send != b.Send {
			return a.Send < b.Send
		}
		return a.Recv < b.Recv
	})
	return d
}

func refLess(a, b graph.Ref) bool {
	if a.Kind != b.Kind {
		return a.Kind < b.Kind
	}
	return a.Name < b.Name
}

// Len returns the number of resources in the graph, grouped ones included.
func (g *Graph) Len() int { return len(g.all) }
