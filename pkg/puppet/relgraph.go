package puppet

import (
	"path"
	"regexp"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
)

// A Vertex of the relationship graph: a catalog resource, or a whit that
// stands for the start (admissible_) or end (completed_) of a container.
type Vertex struct {
	Ref  string            // RAL reference: File[/x], Whit[Admissible_class[Main]]
	Type string            // lower case: file, exec, whit, mything
	Name string            // namevar value; whits: admissible_Class[Main]
	Res  *catalog.Resource // nil for whits
	id   int               // index in the graph's Vertices
}

// A RelEdge orders Source before Target; Callback "refresh" means the edge
// also carries refresh events (notify, subscribe, containment).
type RelEdge struct {
	Source, Target *Vertex
	Event          string // "", ALL_EVENTS or NONE
	Callback       string // "" or refresh
}

// A RelGraph is Puppet's relationship graph of a catalog.
type RelGraph struct {
	Vertices []*Vertex
	Edges    []*RelEdge
}

// namevars maps the types whose namevar is not called "name".
var namevars = map[string]string{"file": "path", "exec": "command", "concat_file": "path"}

// Namevar returns the name of the namevar parameter of a (lower case) type.
func Namevar(typ string) string {
	if n, ok := namevars[typ]; ok {
		return n
	}
	return "name"
}

// NamevarValue returns the value of r's namevar (its title when unset).
func NamevarValue(r *catalog.Resource) string { return namevarValue(r, strings.ToLower(r.Type)) }

// namevarValue is NamevarValue with r's type already in lower case.
func namevarValue(r *catalog.Resource, typ string) string {
	v, ok := r.Params[Namevar(typ)].(string)
	if !ok {
		v = r.Title
	}
	if typ == "file" && len(v) > 1 {
		v = strings.TrimRight(v, "/")
		if v == "" {
			v = "/"
		}
	}
	return v
}

// ralRef is the RAL reference of a catalog resource: like the catalog's,
// except that Class[main] becomes Class[Main].
func ralRef(r *catalog.Resource) string {
	if r.Type == "Class" {
		return "Class[" + catalog.CapitalizeType(r.Title) + "]"
	}
	return r.Ref()
}

// whitRef builds the reference Puppet gives a whit named name: the part
// before '[' is normalized like a type name.
func whitRef(name string) string {
	i := strings.IndexByte(name, '[')
	return "Whit[" + catalog.CapitalizeType(name[:i]) + name[i:] + "]"
}

type builder struct {
	cat     *catalog.Catalog
	g       *RelGraph
	byRef   map[string]*Vertex    // catalog ref -> vertex
	byAlias map[[2]string]*Vertex // lower type, namevar -> vertex
	pairs   map[uint64]bool       // the ids of the vertices an edge joins (pair)
	edges   []*RelEdge
}

// BuildRelGraph builds Puppet's relationship graph of c as
// Puppet::Graph::RelationshipGraph#populate_from does: manual dependencies
// from the relationship metaparameters, automatic requirements, then
// every container replaced by a pair of admissible_/completed_ whits.
func BuildRelGraph(c *catalog.Catalog) (*RelGraph, error) {
	b, err := newBuilder(c)
	if err != nil {
		return nil, err
	}
	b.finish()
	return b.g, nil
}

// newBuilder makes the vertices of c's resources and the edges of their
// relationship metaparameters.
func newBuilder(c *catalog.Catalog) (*builder, error) {
	b := newVertices(c)
	if err := b.link(); err != nil {
		return nil, err
	}
	return b, nil
}

// newVertices returns a builder with the vertices of c's resources.
func newVertices(c *catalog.Catalog) *builder {
	b := &builder{cat: c, g: &RelGraph{Vertices: make([]*Vertex, 0, len(c.Resources))}}
	lower := map[string]string{} // type -> its lower case, made once
	for _, r := range c.Resources {
		typ := lower[r.Type]
		if typ == "" {
			typ = strings.ToLower(r.Type)
			lower[r.Type] = typ
		}
		ref := ralRef(r)
		v := &Vertex{Ref: ref, Type: typ, Name: namevarValue(r, typ), Res: r, id: len(b.g.Vertices)}
		b.g.Vertices = append(b.g.Vertices, v)
	}
	return b
}

// link indexes the vertices by reference and by alias, and adds the
// edges of the relationship metaparameters.
func (b *builder) link() error {
	n := len(b.g.Vertices)
	b.byRef, b.byAlias, b.pairs = make(map[string]*Vertex, n), make(map[[2]string]*Vertex, n), map[uint64]bool{}
	for _, v := range b.g.Vertices {
		r := v.Res
		if r.Type == "Class" {
			b.byRef[r.Ref()] = v
		} else {
			b.byRef[v.Ref] = v // the catalog's reference (ralRef)
		}
		b.byAlias[[2]string{v.Type, v.Name}] = v
		if r.Type == "Class" {
			b.byRef["Class["+strings.ToLower(r.Title)+"]"] = v
		}
	}
	return b.manual()
}

// finish adds the automatic requirements and replaces the containers by
// their whits: the graph's vertices are then the resources that are not
// containers, in the catalog's order (kept), and the whits after them.
// It changes no resource and no vertex of a resource (Translate
// translates them meanwhile).
func (b *builder) finish() {
	b.auto()
	b.replaceContainers()
	for i, v := range b.g.Vertices {
		v.id = i
	}
}

// kept returns the vertices of the resources that are not containers, in
// order: the first vertices of the finished graph.
func (b *builder) kept() []*Vertex {
	var out []*Vertex
	for _, v := range b.g.Vertices {
		if !v.Res.IsContainer() {
			out = append(out, v)
		}
	}
	return out
}

// find resolves a reference string to a vertex.
func (b *builder) find(ref string) *Vertex {
	typ, title, ok := catalog.ParseRef(ref)
	if !ok {
		return nil
	}
	typ = catalog.CapitalizeType(typ)
	if typ == "Class" {
		title = strings.ToLower(title)
	}
	if v := b.byRef[typ+"["+title+"]"]; v != nil {
		return v
	}
	lt := strings.ToLower(typ)
	if lt == "file" && len(title) > 1 {
		title = strings.TrimRight(title, "/")
	}
	return b.byAlias[[2]string{lt, title}]
}

func (b *builder) addEdge(s, t *Vertex, event, callback string) {
	b.edges = append(b.edges, &RelEdge{Source: s, Target: t, Event: event, Callback: callback})
	b.pairs[pair(s, t)] = true
}

// pair is the key of the vertices an edge from s to t joins.
func pair(s, t *Vertex) uint64 { return uint64(s.id)<<32 | uint64(t.id) }

// manual adds the edges of before/require/notify/subscribe.
func (b *builder) manual() error {
	for _, v := range b.g.Vertices {
		for _, mp := range []string{"require", "subscribe", "before", "notify"} {
			for _, ref := range refList(v.Res.Params[mp]) {
				o := b.find(ref)
				if o == nil {
					return &Error{Pos: v.Res.Pos(), Msg: "could not find resource '" + ref + "' for relationship from '" + v.Res.Ref() + "'"}
				}
				ev, cb := "", ""
				if mp == "subscribe" || mp == "notify" {
					ev, cb = "ALL_EVENTS", "refresh"
				}
				if mp == "require" || mp == "subscribe" {
					b.addEdge(o, v, ev, cb)
				} else {
					b.addEdge(v, o, ev, cb)
				}
			}
		}
	}
	return nil
}

func refList(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, refList(e)...)
		}
		return out
	}
	return nil
}

var absCmd = regexp.MustCompile(`(?m)^(/\S+)`)

// autoRequires lists the references v automatically requires.
func (b *builder) autoRequires(v *Vertex) []*Vertex {
	var out []*Vertex
	add := func(typ, name string) {
		if o := b.byAlias[[2]string{typ, name}]; o != nil && o != v {
			out = append(out, o)
		}
	}
	p := v.Res.Params
	str := func(k string) string { s, _ := p[k].(string); return s }
	switch v.Type {
	case "file":
		for dir := v.Name; dir != "/" && dir != "." && dir != ""; {
			dir = path.Dir(dir)
			if o := b.byAlias[[2]string{"file", dir}]; o != nil {
				out = append(out, o)
				break
			}
		}
		if t := str("target"); t != "" {
			add("file", strings.TrimRight(t, "/"))
		}
		if u := str("owner"); u != "" && !isDigits(u) {
			add("user", u)
		}
		if g := str("group"); g != "" && !isDigits(g) {
			add("group", g)
		}
	case "exec":
		if c := str("cwd"); c != "" {
			add("file", c)
		}
		cmd := v.Res.Title
		switch c := p["command"].(type) {
		case string:
			cmd = c
		case []any:
			cmd, _ = firstString(c)
		}
		for _, m := range absCmd.FindAllStringSubmatch(cmd, -1) {
			add("file", m[1])
		}
		for _, k := range []string{"onlyif", "unless"} {
			for _, line := range stringList(p[k]) {
				for _, m := range absCmd.FindAllStringSubmatch(line, -1) {
					add("file", m[1])
				}
			}
		}
		if u := str("user"); u != "" && !isDigits(u) {
			add("user", u)
		}
	case "ssh_authorized_key":
		if u := str("user"); u != "" {
			add("user", u)
		}
	case "user":
		if g := str("gid"); g != "" && !isDigits(g) {
			add("group", g)
		}
		for _, g := range stringList(p["groups"]) {
			for _, s := range strings.Split(g, ",") {
				add("group", strings.TrimSpace(s))
			}
		}
	}
	return out
}

// auto adds the automatic requirements unless the pair is already related.
func (b *builder) auto() {
	for _, v := range b.g.Vertices {
		if v.Res.IsContainer() {
			continue
		}
		for _, o := range b.autoRequires(v) {
			if b.pairs[pair(o, v)] || b.pairs[pair(v, o)] {
				continue
			}
			b.addEdge(o, v, "NONE", "")
		}
	}
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

func firstString(l []any) (string, bool) {
	if len(l) == 0 {
		return "", false
	}
	s, ok := l[0].(string)
	return s, ok
}

func stringList(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			} else if l, ok := e.([]any); ok && len(l) > 0 {
				if s, ok := l[0].(string); ok {
					out = append(out, s)
				}
			}
		}
		return out
	}
	return nil
}

// replaceContainers replaces every container by its admissible_/completed_
// whit pair (Puppet's replace_containers_with_anchors).
func (b *builder) replaceContainers() {
	// a container's whits, by its id
	adm, comp := make([]*Vertex, len(b.g.Vertices)), make([]*Vertex, len(b.g.Vertices))
	containers := 0
	kept := b.kept()
	var whits []*Vertex
	for _, v := range b.g.Vertices {
		if !v.Res.IsContainer() {
			continue
		}
		ref := ralRef(v.Res)
		// the two whits of a container are allocated together
		pair := &[2]Vertex{
			{Ref: whitRef("admissible_" + ref), Type: "whit", Name: "admissible_" + ref},
			{Ref: whitRef("completed_" + ref), Type: "whit", Name: "completed_" + ref},
		}
		a, c := &pair[0], &pair[1]
		adm[v.id], comp[v.id] = a, c
		containers++
		whits = append(whits, a, c)
	}
	// a whit is never rerouted: its id is not a catalog vertex's
	admOf := func(v *Vertex) *Vertex {
		if v.Res != nil && adm[v.id] != nil {
			return adm[v.id]
		}
		return v
	}
	compOf := func(v *Vertex) *Vertex {
		if v.Res != nil && comp[v.id] != nil {
			return comp[v.id]
		}
		return v
	}
	children := make([][]*Vertex, len(b.g.Vertices)) // by the container's id
	n := len(b.edges) + containers
	for _, ce := range b.cat.Edges {
		s, t := b.byRef[ce.Source], b.byRef[ce.Target]
		if s == nil || t == nil || adm[s.id] == nil {
			continue
		}
		children[s.id] = append(children[s.id], t)
		n += 2
	}
	out := make([]*RelEdge, 0, n)
	// relationship edges touching containers are rerouted (rules 3 and 4),
	// in place: the builder is done with them
	for _, e := range b.edges {
		e.Source, e.Target = compOf(e.Source), admOf(e.Target)
		out = append(out, e)
	}
	// the containment edges are allocated in one block; a block that
	// turns out too small only means a second one
	block := make([]RelEdge, 0, n-len(out))
	add := func(e RelEdge) {
		block = append(block, e)
		out = append(out, &block[len(block)-1])
	}
	for _, v := range b.g.Vertices {
		a, c := adm[v.id], comp[v.id]
		if a == nil {
			continue
		}
		if len(children[v.id]) == 0 {
			add(RelEdge{Source: a, Target: c})
		}
		for _, ch := range children[v.id] {
			add(RelEdge{Source: a, Target: admOf(ch), Event: "ALL_EVENTS", Callback: "refresh"})
			add(RelEdge{Source: compOf(ch), Target: c, Event: "ALL_EVENTS", Callback: "refresh"})
		}
	}
	b.g.Vertices = append(kept, whits...)
	b.g.Edges = out
}
