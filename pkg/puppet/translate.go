package puppet

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
)

// Options tune the translation.
type Options struct {
	// Conservative turns every translation warning into a fallback to
	// the pippet resource.
	Conservative bool
	// Log receives the translation messages, one line each, in the
	// reference translator's style ("Warning: File[/x] ..."). May be nil.
	Log func(line string)
	// Schema looks up the parameter schema of a kind; nil means
	// graph.LookupKind. Parameters a registered kind does not have make
	// the translation fail (fallback to pippet).
	Schema func(kind string) (*graph.KindSchema, bool)
	// RunInterval is Puppet's runinterval in seconds (0: 1800). Puppet
	// runs every exec once per run: translated execs rerun on a watchcmd
	// tick at this interval.
	RunInterval int
}

// DefaultRunInterval is Puppet's default runinterval, in seconds.
const DefaultRunInterval = 1800

func (o Options) runInterval() int {
	if o.RunInterval > 0 {
		return o.RunInterval
	}
	return DefaultRunInterval
}

// Stats counts what a translation did, like the reference's `stats`.
type Stats struct {
	Native      int            // resources translated to a native kind
	Failed      int            // native translation failed: fell back to pippet
	Unsupported int            // no translator: pippet directly
	Errors      map[string]int // "<Ref> <message>" of every error-level message
}

// Summary renders the stats as the reference's `stats` action prints them.
func (s *Stats) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d native translations\n%d failed translations\n%d unsupported resources\n", s.Native, s.Failed, s.Unsupported)
	keys := make([]string, 0, len(s.Errors))
	for k := range s.Errors {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%dx %s\n", s.Errors[k], k)
	}
	return b.String()
}

// Translate builds the relationship graph of c and maps every vertex to a
// resource of our kinds, every relationship edge to a graph edge. Refresh
// events keep Puppet's meaning (see refreshPairs): a resource notifies
// every resource Puppet would refresh after it changes. The document is in
// canonical order.
func Translate(c *catalog.Catalog, opts Options) (*graph.Document, *Stats, error) {
	g, err := BuildRelGraph(c)
	if err != nil {
		return nil, nil, err
	}
	if opts.Schema == nil {
		opts.Schema = graph.LookupKind
	}
	st := &Stats{Errors: map[string]int{}}
	doc := &graph.Document{Mgmt: graph.Version, Graph: c.Name}
	refs := map[*Vertex]graph.Ref{}
	seen := map[graph.Ref]*graph.Resource{}
	for _, v := range g.Vertices {
		r := translateVertex(v, opts, st)
		if old := seen[r.Ref()]; old != nil {
			return nil, nil, &Error{Pos: r.Pos, Msg: fmt.Sprintf("%s and %s both translate to %s", v.Ref, old.Pos, r.Ref())}
		}
		seen[r.Ref()] = r
		refs[v] = r.Ref()
		doc.Resources = append(doc.Resources, r)
	}
	type pair struct{ from, to graph.Ref }
	edges := map[pair]*graph.Edge{}
	for _, e := range g.Edges {
		p := pair{refs[e.Source], refs[e.Target]}
		ge := edges[p]
		if ge == nil {
			ge = &graph.Edge{From: p.from, To: p.to}
			edges[p] = ge
			doc.Edges = append(doc.Edges, ge)
		}
	}
	for _, rp := range refreshPairs(g) {
		p := pair{refs[rp[0]], refs[rp[1]]}
		ge := edges[p]
		if ge == nil {
			ge = &graph.Edge{From: p.from, To: p.to}
			edges[p] = ge
			doc.Edges = append(doc.Edges, ge)
		}
		ge.Notify = true
	}
	Canonicalize(doc)
	return doc, st, nil
}

// refreshPairs returns the pairs of resources (whits excluded) between
// which Puppet passes refresh events: a path of refresh-labelled edges
// whose inner vertices are all whits, which relay the events they get.
// Our noop resources do not relay notifications, so each such pair gets
// its own notify edge (parallel to the path, so ordering is unchanged),
// and the edges to and from whits carry none.
func refreshPairs(g *RelGraph) [][2]*Vertex {
	out := map[*Vertex][]*Vertex{}
	for _, e := range g.Edges {
		if e.Callback == "refresh" {
			out[e.Source] = append(out[e.Source], e.Target)
		}
	}
	var pairs [][2]*Vertex
	for _, v := range g.Vertices {
		if v.Res == nil || len(out[v]) == 0 {
			continue
		}
		seen := map[*Vertex]bool{v: true}
		stack := append([]*Vertex(nil), out[v]...)
		for len(stack) > 0 {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[w] {
				continue
			}
			seen[w] = true
			if w.Res != nil {
				pairs = append(pairs, [2]*Vertex{v, w})
				continue
			}
			stack = append(stack, out[w]...)
		}
	}
	return pairs
}

// Canonicalize sorts resources by (kind, name) and edges by (from, to).
func Canonicalize(doc *graph.Document) {
	graph.SortResources(doc.Resources)
	graph.SortEdges(doc.Edges)
}

// translateVertex picks the translator of v's type and falls back to
// pippet when there is none or it failed.
func translateVertex(v *Vertex, opts Options, st *Stats) *graph.Resource {
	if v.Res == nil || v.Type == "anchor" && len(realParams(v.Res)) == 0 {
		return &graph.Resource{Kind: "noop", Name: v.Name, Origin: "puppet", Pos: pos(v)}
	}
	fn := translators[v.Type]
	if fn == nil {
		msg := "cannot be translated natively, falling back to pippet"
		logf(opts, st, "Error", v, msg)
		st.Unsupported++
		return pippet(v, opts)
	}
	t := &tr{v: v, opts: opts, st: st, params: realParams(v.Res), used: map[string]bool{},
		out: map[string]any{}, meta: &graph.Meta{}}
	t.kind = v.Type
	fn(t)
	for _, k := range v.Res.SortedParamNames() {
		if _, ok := t.params[k]; ok && !t.used[k] {
			t.fail(fmt.Sprintf("cannot translate attribute '%s', failing resource translation (value: %s)", k, inspect(t.params[k])))
		}
	}
	t.checkSchema()
	if t.unclean {
		logf(opts, nil, "Warning", v, "emitting a pippet node because of the errors above.")
		st.Failed++
		return pippet(v, opts)
	}
	st.Native++
	r := &graph.Resource{Kind: t.kind, Name: v.Res.Title, Params: t.out, Origin: "puppet", Pos: pos(v)}
	if t.meta.Noop || t.meta.Retry != 0 || t.meta.Delay != 0 {
		r.Meta = t.meta
	}
	return r
}

func pos(v *Vertex) string {
	if v.Res == nil {
		return ""
	}
	return v.Res.Pos()
}

// realParams returns the parameters a translator must handle: all but the
// relationship metaparameters (they became edges) and the ones without
// meaning for us.
func realParams(r *catalog.Resource) map[string]any {
	out := map[string]any{}
	for k, v := range r.Params {
		switch k {
		case "before", "require", "notify", "subscribe", "tag", "alias":
			continue
		}
		out[k] = v
	}
	return out
}

func logf(opts Options, st *Stats, level string, v *Vertex, msg string) {
	if st != nil && level == "Error" {
		st.Errors[v.Ref+" "+msg]++
	}
	if opts.Log == nil {
		return
	}
	line := level + ": " + v.Ref + " " + msg
	if v.Res != nil && v.Res.Line > 0 {
		f := v.Res.File
		if f == "" {
			f = "<code>"
		}
		line += fmt.Sprintf(" (file: %s, line: %d)", f, v.Res.Line)
	}
	opts.Log(line)
}

// inspect renders a value the way Ruby's inspect would, for messages.
func inspect(v any) string {
	switch x := v.(type) {
	case string:
		b, _ := json.Marshal(x)
		return string(b)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = inspect(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = inspect(k) + "=>" + inspect(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// pippet is the catch-all translation: the resource is handed to Puppet.
func pippet(v *Vertex, _ Options) *graph.Resource {
	p := map[string]any{}
	for k, val := range v.Res.Params {
		switch k {
		case "name", "before", "require", "notify", "subscribe":
			continue
		}
		p[k] = val
	}
	if nv := Namevar(v.Type); nv != "name" {
		p[nv] = v.Name
	}
	js, _ := json.Marshal(p)
	return &graph.Resource{
		Kind: "pippet",
		Name: rubyCapitalize(v.Type) + "[" + v.Name + "]",
		Params: map[string]any{
			"type":   v.Type,
			"title":  v.Res.Title,
			"params": string(js),
		},
		Origin: "puppet",
		Pos:    v.Res.Pos(),
	}
}

// rubyCapitalize upper-cases the first letter and lower-cases the rest.
func rubyCapitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + strings.ToLower(s[1:])
}
