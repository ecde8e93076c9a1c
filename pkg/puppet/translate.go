package puppet

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
)

// Options tune the translation.
type Options struct {
	// Conservative is accepted for compatibility: every translation that
	// cannot be exact falls back to pippet anyway.
	Conservative bool
	// Log receives the translation messages, one line each, in the
	// reference translator's style ("Info: File[/x] ..."). May be nil.
	Log func(line string)
	// Schema looks up the parameter schema of a kind; nil means
	// graph.LookupKind. A kind that is not registered, or lacks one of
	// the parameters a translation needs, makes the resource fall back to
	// pippet.
	Schema func(kind string) (*graph.KindSchema, bool)
	// RunInterval is Puppet's runinterval in seconds (0: 1800). Puppet
	// runs every exec once per run: translated execs rerun at this
	// interval (the exec kind's watchinterval).
	RunInterval int
	// Check, when set, validates a native translation the way the engine
	// will (parameters decoded, the resource's own Validate); an error
	// sends the resource to pippet instead.
	Check func(*graph.Resource) error
	// Puppet is how pippet resources start their Puppet: the same
	// modulepath, environment and puppet.conf as the compilation, so that
	// types and puppet:///modules sources from modules resolve.
	Puppet PuppetEnv
	// ModulePath returns the module path puppet:///modules sources are
	// read from at translation: the one the compilation found its modules
	// in (Puppet's file server serves them from the same path). Translate
	// asks at most once. Nil, or an error, sends those resources to
	// pippet.
	ModulePath func() ([]string, error)

	// declaresBucket is set when the catalog declares Filebucket[puppet].
	declaresBucket bool
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
	Failed      int            // native translation not exact: fell back to pippet
	Unsupported int            // no mapping for the type: pippet directly
	Reasons     map[string]int // "<Ref> <reason>" of every fallback
}

// Summary renders the stats as the reference's `stats` action prints them.
func (s *Stats) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d native translations\n%d failed translations\n%d unsupported resources\n", s.Native, s.Failed, s.Unsupported)
	for _, k := range sortedKeys(s.Reasons) {
		fmt.Fprintf(&b, "%dx %s\n", s.Reasons[k], k)
	}
	return b.String()
}

// note logs why v goes to pippet and counts the reason.
func (s *Stats) note(opts Options, v *Vertex, why string) {
	s.Reasons[v.Ref+" "+why]++
	if opts.Log == nil {
		return
	}
	line := "Info: " + v.Ref + " goes to pippet: " + why
	if v.Res != nil && v.Res.Line > 0 {
		f := v.Res.File
		if f == "" {
			f = "<code>"
		}
		line += fmt.Sprintf(" (file: %s, line: %d)", f, v.Res.Line)
	}
	opts.Log(line)
}

// Translate builds the relationship graph of c and maps every vertex to a
// resource of our kinds, every relationship edge to a graph edge. Refresh
// events keep Puppet's meaning (see refreshPairs): a resource notifies
// every resource Puppet would refresh after it changes. The document is in
// canonical order.
//
// The relationship graph's edges (those of the relationship
// metaparameters, the automatic requirements and the containers) are
// worked out on another core while the resources are translated (none
// depends on the other: finish changes no resource and no vertex of a
// resource); then the whits are translated and the edges. The
// translation of each resource is drafted on another core too, ahead of
// its check, counts and messages, which follow the resources' order and
// wait for the relationship metaparameters to be found valid: a catalog
// refused for a relationship is refused with no message about its
// resources, as drafts log nothing.
func Translate(c *catalog.Catalog, opts Options) (*graph.Document, *Stats, error) {
	b := newVertices(c)
	kept := b.kept()
	linked := make(chan error, 1)
	var refresh [][2]*Vertex // refreshPairs of the finished graph
	var wg sync.WaitGroup
	wg.Go(func() {
		err := b.link()
		linked <- err
		if err == nil {
			b.finish()
			refresh = refreshPairs(b.g)
		}
	})
	defer wg.Wait()
	if opts.Schema == nil {
		opts.Schema = graph.LookupKind
	}
	opts.ModulePath, opts.declaresBucket = onceModulePath(opts.ModulePath), declaresBucket(c)
	st := &Stats{Reasons: map[string]int{}}
	comp := findCompanions(&RelGraph{Vertices: kept})
	doc := &graph.Document{Mgmt: graph.Version, Graph: c.Name}
	seen := newRefSet(len(c.Resources))
	res := make([]*graph.Resource, 0, len(c.Resources))
	add := func(v *Vertex, r *graph.Resource) error {
		if !seen.add(r.Ref()) {
			old := res[slices.IndexFunc(res, func(o *graph.Resource) bool { return o.Ref() == r.Ref() })]
			return &Error{Pos: r.Pos, Msg: fmt.Sprintf("%s and %s both translate to %s", v.Ref, old.Pos, r.Ref())}
		}
		res = append(res, r)
		return nil
	}
	// the resources' drafts are made on another core, a batch ahead of
	// their completion here
	drafts := make([]draft, len(kept))
	ready, stop := make(chan int, 1), make(chan struct{})
	var dwg sync.WaitGroup
	dwg.Go(func() {
		defer close(ready)
		var sc scratch
		for i, v := range kept {
			drafts[i] = draftVertex(v, opts, comp, &sc)
			if (i+1)%draftBatch != 0 && i+1 < len(kept) {
				continue
			}
			select {
			case ready <- i + 1:
			case <-stop:
				return
			}
		}
	})
	defer func() { close(stop); dwg.Wait() }()
	if err := <-linked; err != nil {
		return nil, nil, err
	}
	made := 0
	for i, v := range kept {
		for made <= i {
			made = <-ready
		}
		if err := add(v, completeVertex(v, drafts[i], opts, st, comp)); err != nil {
			return nil, nil, err
		}
		drafts[i] = draft{}
	}
	wg.Wait()
	g := b.g
	var sc scratch
	for _, v := range g.Vertices[len(kept):] {
		if err := add(v, translateVertex(v, opts, st, comp, &sc)); err != nil {
			return nil, nil, err
		}
	}
	n := len(g.Vertices)
	// the vertices and the references correspond one to one (seen): the
	// resources are put in canonical order once, and an edge is known by
	// the ranks of its two ends in that order, so that the edges sort and
	// merge as integers
	order := sortedOrder(res)
	rank := make([]int32, n)
	if n > 0 {
		doc.Resources = make([]*graph.Resource, n)
	}
	for k, i := range order {
		rank[i] = int32(k)
		doc.Resources[k] = res[i]
	}
	doc.Edges, doc.EdgeEnds = translateEdges(g, refresh, rank, doc.Resources)
	return doc, st, nil
}

// A refSet is a set of references: a map of names per kind, as a
// translation has few kinds and Go hashes a string key faster than a
// pair of them.
type refSet struct {
	kinds map[string]map[string]struct{}
	hint  int // the size of the first kind's map

	lastKind string // the kind of the last reference added, and its names
	last     map[string]struct{}
}

// newRefSet returns a set for about n references, most of one kind.
func newRefSet(n int) *refSet {
	return &refSet{kinds: map[string]map[string]struct{}{}, hint: n}
}

// add adds ref to the set, and reports whether it was not in it yet.
func (s *refSet) add(ref graph.Ref) bool {
	if s.last == nil || ref.Kind != s.lastKind {
		s.lastKind, s.last = ref.Kind, s.kinds[ref.Kind]
		if s.last == nil {
			s.last = make(map[string]struct{}, s.hint)
			s.hint = 0
			s.kinds[ref.Kind] = s.last
		}
	}
	n := len(s.last)
	s.last[ref.Name] = struct{}{}
	return len(s.last) > n
}

// parallelMin is the least number of items a sort or a loop of Translate
// splits between two cores.
const parallelMin = 1 << 14

// sortedOrder returns the indexes of res in the canonical order of their
// references, which are unique.
func sortedOrder(res []*graph.Resource) []int32 {
	order := make([]int32, len(res))
	for i := range order {
		order[i] = int32(i)
	}
	cmp := func(a, b int32) int { return res[a].Ref().Compare(res[b].Ref()) }
	return sortTwoCores(order, func(s []int32) { slices.SortFunc(s, cmp) }, func(a, b int32) bool { return cmp(a, b) < 0 })
}

// sortTwoCores sorts s with sort, a large s in two halves, one on another
// core, then merged by less into a new slice, which it returns. Equal
// items are in no particular order, as sort leaves them.
func sortTwoCores[T any](s []T, sort func([]T), less func(a, b T) bool) []T {
	if len(s) < parallelMin {
		sort(s)
		return s
	}
	lo, hi := s[:len(s)/2], s[len(s)/2:]
	var wg sync.WaitGroup
	wg.Go(func() { sort(hi) })
	sort(lo)
	wg.Wait()
	out := make([]T, 0, len(s))
	for len(lo) > 0 && len(hi) > 0 {
		if less(hi[0], lo[0]) {
			out, hi = append(out, hi[0]), hi[1:]
		} else {
			out, lo = append(out, lo[0]), lo[1:]
		}
	}
	out = append(out, lo...)
	return append(out, hi...)
}

// translateEdges returns the graph edges of g's relationship edges and of
// its refresh pairs (pairs, see refreshPairs), in canonical order: by the ranks of
// their ends (rank holds each vertex's, sorted its resources), one edge
// per pair of resources, notifying when one of its pairs does. It also
// returns the ranks of each edge's ends (see graph.Document.EdgeEnds).
func translateEdges(g *RelGraph, pairs [][2]*Vertex, rank []int32, sorted []*graph.Resource) ([]*graph.Edge, [][2]int32) {
	// a key is the rank of the source, of the target, and the notify bit
	keys := make([]uint64, 0, len(g.Edges)+len(pairs))
	key := func(from, to *Vertex, notify uint64) uint64 {
		return uint64(rank[from.id])<<33 | uint64(rank[to.id])<<1 | notify
	}
	for _, e := range g.Edges {
		keys = append(keys, key(e.Source, e.Target, 0))
	}
	for _, rp := range pairs {
		keys = append(keys, key(rp[0], rp[1], 1))
	}
	keys = sortTwoCores(keys, slices.Sort[[]uint64], func(a, b uint64) bool { return a < b })
	// a pair's keys are together, the one that notifies last
	uniq := 0
	for i, k := range keys {
		if i+1 < len(keys) && keys[i+1]>>1 == k>>1 {
			continue
		}
		keys[uniq] = k
		uniq++
	}
	keys = keys[:uniq]
	if len(keys) == 0 {
		return nil, nil
	}
	block := make([]graph.Edge, len(keys))
	out := make([]*graph.Edge, len(keys))
	ends := make([][2]int32, len(keys))
	fill := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			k := keys[i]
			from, to := int32(k>>33), int32(k>>1&(1<<32-1))
			block[i] = graph.Edge{From: sorted[from].Ref(), To: sorted[to].Ref(), Notify: k&1 == 1}
			out[i] = &block[i]
			ends[i] = [2]int32{from, to}
		}
	}
	if len(keys) < parallelMin {
		fill(0, len(keys))
		return out, ends
	}
	var wg sync.WaitGroup
	wg.Go(func() { fill(len(keys)/2, len(keys)) })
	fill(0, len(keys)/2)
	wg.Wait()
	return out, ends
}

// refreshPairs returns the pairs of resources (whits excluded) between
// which Puppet passes refresh events: a path of refresh-labelled edges
// whose inner vertices are all whits, which relay the events they get.
// Our noop resources do not relay notifications, so each such pair gets
// its own notify edge (parallel to the path, so ordering is unchanged),
// and the edges to and from whits carry none.
func refreshPairs(g *RelGraph) [][2]*Vertex {
	n := len(g.Vertices)
	// the targets of the refresh edges out of vertex i are
	// next[start[i]:start[i+1]], in the order of the edges
	start := make([]int32, n+1)
	for _, e := range g.Edges {
		if e.Callback == "refresh" {
			start[e.Source.id+1]++
		}
	}
	for i := 1; i <= n; i++ {
		start[i] += start[i-1]
	}
	next := make([]*Vertex, start[n])
	fill := slices.Clone(start[:n])
	for _, e := range g.Edges {
		if e.Callback == "refresh" {
			next[fill[e.Source.id]] = e.Target
			fill[e.Source.id]++
		}
	}
	// seen[i] is one more than the id of the vertex whose walk last
	// reached vertex i
	seen := make([]int32, n)
	var pairs [][2]*Vertex
	var stack []*Vertex
	for _, v := range g.Vertices {
		out := next[start[v.id]:start[v.id+1]]
		if v.Res == nil || len(out) == 0 {
			continue
		}
		walk := int32(v.id + 1)
		seen[v.id] = walk
		stack = append(stack[:0], out...)
		for len(stack) > 0 {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[w.id] == walk {
				continue
			}
			seen[w.id] = walk
			if w.Res != nil {
				pairs = append(pairs, [2]*Vertex{v, w})
				continue
			}
			stack = append(stack, next[start[w.id]:start[w.id+1]]...)
		}
	}
	return pairs
}

// Canonicalize sorts resources by (kind, name) and edges by (from, to).
func Canonicalize(doc *graph.Document) {
	graph.SortResources(doc.Resources)
	graph.SortEdges(doc.Edges)
}

// draftBatch is the number of drafts Translate hands over at a time.
const draftBatch = 64

// translateVertex translates v with the mapping of its type, or hands it
// to pippet: when its type has no mapping, or the mapping cannot express
// it exactly (the reason is logged at info level).
func translateVertex(v *Vertex, opts Options, st *Stats, comp companions, sc *scratch) *graph.Resource {
	return completeVertex(v, draftVertex(v, opts, comp, sc), opts, st, comp)
}

// A draft is the part of a vertex's translation that neither checks the
// resource nor counts or logs anything (draftVertex): Translate makes the
// drafts on another core, ahead of their completion (completeVertex),
// which runs in the order of the vertices.
type draft struct {
	done *graph.Resource // the translation, when the draft is all of it (a noop)
	r    *graph.Resource // the native resource, when v's type has a mapping
	t    *tr             // and its translation
}

// draftVertex makes v's draft: its noop, or the native resource its
// mapping gives (with the reason to fall back, if any), or nothing when
// its type has no mapping.
func draftVertex(v *Vertex, opts Options, comp companions, sc *scratch) draft {
	if v.Res == nil || managesNothing(v) {
		name := v.Name
		if v.Res != nil && v.Type != "anchor" {
			name = v.Ref // a user and an anchor may share a name
		}
		return draft{done: &graph.Resource{Kind: "noop", Name: name, Origin: "puppet", Pos: pos(v)}}
	}
	m := mappings[v.Type]
	if m == nil {
		return draft{}
	}
	params, used := sc.take(v.Res)
	t := &tr{v: v, opts: opts, comp: comp[v], params: params, used: used, out: map[string]any{}, keys: sc.keys}
	if len(v.Res.Sensitive) > 0 {
		t.secret = make(map[string]bool, len(v.Res.Sensitive))
		for _, k := range v.Res.Sensitive {
			t.secret[k] = true
		}
	}
	// A Sensitive content is a file's with show_diff false (fileWhole):
	// the engine keeps it out of every log and event, as Puppet does.
	if len(v.Res.Sensitive) > 0 && !(v.Type == "file" && len(t.secret) == 1 && t.secret["content"]) {
		t.fallback("sensitive parameters (%s): Puppet keeps them out of its logs", strings.Join(v.Res.Sensitive, ", "))
	}
	if rich := richParam(t.params); rich != "" {
		t.fallback("parameter '%s' holds a value only Puppet can resolve (%s)", rich, inspect(t.params[rich]))
	}
	if t.why == "" {
		t.run(m)
		sc.keys = t.keys
	}
	if t.why == "" {
		t.checkSchema(m.kind)
	}
	// the scratch maps are the next draft's
	t.params, t.used, t.keys = nil, nil, nil
	name := v.Name
	if m.title {
		name = v.Res.Title
	}
	r := &graph.Resource{Kind: m.kind, Name: name, Params: t.out, Origin: "puppet", Pos: pos(v)}
	if t.meta.Noop || t.meta.Retry != 0 || t.meta.Delay != 0 {
		r.Meta = &graph.Meta{Noop: t.meta.Noop, Retry: t.meta.Retry, Delay: t.meta.Delay}
	}
	return draft{r: r, t: t}
}

// completeVertex completes v's translation from its draft d: the native
// resource checked (opts.Check) and counted, or pippet's, with the reason
// logged.
func completeVertex(v *Vertex, d draft, opts Options, st *Stats, comp companions) *graph.Resource {
	if d.done != nil {
		return d.done
	}
	if d.t == nil {
		st.Unsupported++
		st.note(opts, v, "no native kind for type "+v.Type)
		return pippet(v, opts, comp[v])
	}
	t := d.t
	if t.why == "" && opts.Check != nil {
		if err := opts.Check(d.r); err != nil {
			t.fallback("%v", err)
		}
	}
	if t.why != "" {
		st.Failed++
		st.note(opts, v, t.why)
		return pippet(v, opts, comp[v])
	}
	st.Native++
	return d.r
}

// managesNothing reports whether Puppet applies v without looking at the
// system: an anchor, or a user with neither ensure nor anything else
// (its ensure defaults to present only when the resource sets a
// property). Such a vertex only orders the others.
func managesNothing(v *Vertex) bool {
	if v.Type != "anchor" && v.Type != "user" {
		return false
	}
	for k := range v.Res.Params {
		if !notTranslated(k) && (k != "name" || v.Type == "anchor") {
			return false
		}
	}
	return true
}

func pos(v *Vertex) string {
	if v.Res == nil {
		return ""
	}
	return v.Res.Pos()
}

// fillRealParams puts into out the parameters a translator must handle:
// all but the relationship metaparameters (they became edges) and the
// ones without meaning for us.
func fillRealParams(out map[string]any, r *catalog.Resource) {
	for k, v := range r.Params {
		if !notTranslated(k) {
			out[k] = v
		}
	}
}

// notTranslated reports whether k is a metaparameter that is not
// translated as a parameter: the relationships (they became edges) and
// the ones without meaning for us.
func notTranslated(k string) bool {
	switch k {
	case "before", "require", "notify", "subscribe", "tag", "alias":
		return true
	}
	return false
}

// A scratch holds the maps a translation uses only while it runs (the
// parameters to translate, the ones consumed), reused from one resource to
// the next.
type scratch struct {
	params map[string]any
	used   map[string]bool
	keys   []string
}

// scratchMax is the size past which a scratch map is dropped rather than
// emptied: emptying costs its capacity, which one large resource would
// otherwise leave for all the others.
const scratchMax = 32

// take returns the scratch maps emptied, the parameters r's translation
// handles in the first.
func (sc *scratch) take(r *catalog.Resource) (map[string]any, map[string]bool) {
	if sc.params == nil || len(sc.params) > scratchMax {
		sc.params = make(map[string]any, len(r.Params))
	} else {
		clear(sc.params)
	}
	if sc.used == nil || len(sc.used) > scratchMax {
		sc.used = make(map[string]bool, len(r.Params))
	} else {
		clear(sc.used)
	}
	fillRealParams(sc.params, r)
	return sc.params, sc.used
}

// richParam returns the name of a parameter whose value is Puppet rich
// data (a Deferred, a Hash with non-string keys, ...), or "".
func richParam(params map[string]any) string {
	rich := false
	for _, v := range params {
		if isRich(v) {
			rich = true
			break
		}
	}
	if !rich {
		return ""
	}
	for _, k := range sortedKeys(params) { // the first in order
		if isRich(params[k]) {
			return k
		}
	}
	return ""
}

func isRich(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["__ptype"]; ok {
			return true
		}
		for _, e := range x {
			if isRich(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if isRich(e) {
				return true
			}
		}
	}
	return false
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
		keys := sortedKeys(x)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = inspect(k) + "=>" + inspect(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// rubyCapitalize upper-cases the first letter and lower-cases the rest.
func rubyCapitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + strings.ToLower(s[1:])
}
