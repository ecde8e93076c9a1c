package eval

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// An entry is a declared resource: in the catalog, or virtual (declared
// with @, or in a virtual defined type) until realized.
type entry struct {
	res       *catalog.Resource
	ref       string            // res.Ref(), made once
	scope     *scope            // the declaring scope
	container *catalog.Resource // what contains it once in the catalog
	virtual   bool
	exported  bool
	def       *defInst // a defined type's instance, evaluated once realized
	tags      []string // explicit tags (the tag metaparameter and tag())
}

type defInst struct {
	evaluated bool
	depth     int
	parent    *scope // lexical parent: the enclosing scope at declaration
	def       *syntax.DefineDef
	e         *entry
	given     map[string]any
}

var metaparams = map[string]bool{
	"before": true, "require": true, "notify": true, "subscribe": true, "tag": true, "alias": true,
	"noop": true, "schedule": true, "audit": true, "loglevel": true, "stage": true,
}

// addResource adds r to the catalog (unless virtual) and indexes it.
func (e *evaluator) addResource(r *catalog.Resource, s *scope, p syntax.Pos, virtual bool) *entry {
	rref := r.Ref()
	if old := e.entries[rref]; old != nil {
		e.fail(p, "Duplicate declaration: %s is already declared at %s; cannot redeclare", rref, old.res.Pos())
	}
	en := &entry{res: r, ref: rref, scope: s, virtual: virtual, container: s.container}
	e.entries[rref] = en
	if r.Type == "File" {
		k := filePathKey(r.Title)
		if old := e.files[k]; old != nil {
			e.fail(p, "Cannot alias %s to [%q]; resource [\"File\", %q] already declared", rref, k, old.res.Title)
		}
		e.files[k] = en
	}
	if !virtual {
		e.cat.Resources = append(e.cat.Resources, r)
	}
	return en
}

// declare evaluates a resource declaration and returns the references of
// the declared resources.
func (e *evaluator) declare(s *scope, r *syntax.Resource) any {
	// the references: first alone while there is one, the common case,
	// out once there are more
	var first any
	var out []any
	n := 0
	add := func(ref any) {
		switch n++; n {
		case 1:
			first = ref
		case 2:
			out = append(make([]any, 0, 4), first, ref)
		default:
			out = append(out, ref)
		}
	}
	typ := strings.ToLower(strings.TrimPrefix(r.Type, "::"))
	var defaults *attrSet
	for _, b := range r.Bodies {
		if _, isDef := b.Title.(*syntax.Default); isDef {
			defaults = e.attrs(s, b.Attrs)
		}
	}
	for _, b := range r.Bodies {
		if _, isDef := b.Title.(*syntax.Default); isDef {
			continue
		}
		attrs := e.attrs(s, b.Attrs)
		if defaults != nil {
			for i, k := range defaults.keys {
				if !attrs.has(k) {
					attrs.add(k, defaults.vals[i])
				}
			}
		}
		for _, title := range e.titles(s, b.Title) {
			if typ == "class" {
				if r.Virtual || r.Exported {
					e.fail(r.P, "classes cannot be virtual or exported")
				}
				e.declareClass(s, b.P, title, attrs.toMap(), true)
				add(ref{Type: "Class", Title: classTitle(title)})
				continue
			}
			add(e.declareOne(s, r, b.P, typ, title, attrs))
		}
	}
	if n == 1 {
		return first
	}
	return out
}

// attrs evaluates attribute operations (splats unfolded) into values in
// their order.
func (e *evaluator) attrs(s *scope, list []*syntax.Attr) *attrSet {
	attrs := newAttrSet(len(list))
	set := func(p syntax.Pos, k string, v any) {
		if attrs.has(k) {
			e.fail(p, "The attribute '%s' has already been set", k)
		}
		attrs.add(k, v)
	}
	for _, a := range list {
		v := e.expr(s, a.Value)
		if a.Op == "+>" {
			panic(syntax.Unsupported(a.P, "+> in a resource declaration"))
		}
		if a.Name != "*" {
			set(a.P, a.Name, v)
			continue
		}
		switch h := v.(type) {
		case *hash:
			for _, k := range h.keys {
				set(a.P, k, h.m[k])
			}
		case nil:
		default:
			e.fail(a.P, "a splat (* =>) needs a Hash, got %s", typeName(v))
		}
	}
	return attrs
}

func (e *evaluator) titles(s *scope, n syntax.Node) []string {
	v := e.expr(s, n)
	if str, ok := v.(string); ok { // the common case, without the walk
		return []string{str}
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, el := range x {
				walk(el)
			}
		case string:
			out = append(out, x)
		case int64, float64:
			out = append(out, toString(x))
		default:
			e.fail(n.At(), "a resource title must be a string, got %s", typeName(v))
		}
	}
	walk(v)
	return out
}

// resourceType resolves a lower-case type name: a defined type (loaded
// from the module path on first use) or a Ruby type.
func (e *evaluator) resourceType(p syntax.Pos, typ string) *syntax.DefineDef {
	def := e.defines[typ]
	if def == nil && !e.knownType(typ) {
		e.loadModule(typ)
		def = e.defines[typ]
	}
	if def == nil && !e.knownType(typ) {
		e.fail(p, "Unknown resource type: '%s'", typ)
	}
	return def
}

func (e *evaluator) declareOne(s *scope, stmt *syntax.Resource, p syntax.Pos, typ, title string, attrs *attrSet) ref {
	def := e.resourceType(stmt.P, typ)
	r := &catalog.Resource{Type: e.capitalType(typ), Title: title, Kind: catalog.KindCompilable,
		File: p.File(), Line: int(p.Line), Col: int(p.Col), Params: make(map[string]any, len(attrs.keys))}
	var given map[string]any // the parameters of an instance of a defined type
	if def != nil {
		given = make(map[string]any, len(attrs.keys))
	}
	var tags []string
	for i, k := range attrs.keys {
		v := attrs.vals[i]
		if v == nil {
			continue
		}
		if def != nil {
			given[k] = v
		}
		e.setParam(r, k, v)
		if k == "tag" {
			tags = append(tags, tagList(v)...)
		}
	}
	if def != nil {
		r.Kind = catalog.KindDefined
	} else if nv := e.namevar(typ); r.Params[nv] == title {
		// Puppet leaves out a namevar that equals the title
		delete(r.Params, nv)
	}
	// defaults in effect now, nearest scope first; an attribute the
	// declaration sets, to undef included, takes no default
	for sc := s; sc != nil; sc = sc.dyn {
		for k, v := range sc.defaults[r.Type] {
			explicit := attrs.has(k)
			if _, set := r.Params[k]; !set && !explicit && v != nil {
				e.setParam(r, k, v)
				if def != nil {
					given[k] = v
				}
			}
		}
	}
	virtual := stmt.Virtual || stmt.Exported || s.virtual
	en := e.addResource(r, s, p, virtual)
	en.exported = stmt.Exported || s.exported
	en.tags = tags
	if typ == "stage" {
		en.container = nil
	}
	if def != nil {
		en.def = &defInst{depth: s.depth + 1, parent: e.enclosing(), def: def, e: en, given: given}
	}
	e.applyPendingOverrides(en)
	if !virtual {
		e.place(en)
	}
	return ref{Type: r.Type, Title: title}
}

// setParam stores a value in a resource's catalog parameters; a
// sensitive value marks the parameter sensitive.
func (e *evaluator) setParam(r *catalog.Resource, k string, v any) {
	r.Params[k] = toParam(v)
	if _, ok := v.(sensitive); ok {
		for _, x := range r.Sensitive {
			if x == k {
				return
			}
		}
		r.Sensitive = append(r.Sensitive, k)
	}
}

// place puts a resource that is in the catalog in its container and
// queues a defined type's instance for evaluation.
func (e *evaluator) place(en *entry) {
	if en.container != nil {
		e.containRef(en.container, en.ref)
	}
	if en.def != nil {
		e.pending = append(e.pending, en.def)
	}
}

// realize makes a virtual resource part of the catalog.
func (e *evaluator) realize(en *entry) {
	if !en.virtual {
		return
	}
	en.virtual = false
	e.cat.Resources = append(e.cat.Resources, en.res)
	e.place(en)
}

var tagName = regexp.MustCompile(`^[a-z0-9_][a-z0-9_:.-]*$`)

// tagsOf returns a resource's tags: its type, its title when it is a
// valid tag, the names of its containers (and their :: segments) and its
// explicit tags.
func (e *evaluator) tagsOf(en *entry) map[string]bool {
	out := map[string]bool{}
	add := func(t string) {
		t = strings.ToLower(t)
		if !tagName.MatchString(t) {
			return
		}
		out[t] = true
		if strings.Contains(t, "::") {
			for _, seg := range strings.Split(t, "::") {
				out[seg] = true
			}
		}
	}
	add(en.res.Type)
	add(en.res.Title)
	for _, t := range en.tags {
		add(t)
	}
	seen := map[*catalog.Resource]bool{}
	for c := en.container; c != nil && !seen[c]; {
		seen[c] = true
		switch c.Type {
		case "Class":
			if c.Title != "main" && c.Title != "Settings" {
				add(c.Title)
			}
		case "Node", "Stage":
		default:
			add(c.Type)
		}
		ce := e.entries[c.Ref()]
		if ce == nil {
			break
		}
		for _, t := range ce.tags {
			add(t)
		}
		c = ce.container
	}
	return out
}

func tagList(v any) []string {
	var out []string
	switch x := v.(type) {
	case string:
		out = append(out, x)
	case []any:
		for _, el := range x {
			out = append(out, tagList(el)...)
		}
	}
	return out
}

var namevarParam = regexp.MustCompile(`newparam\(\s*:(\w+)[^)]*namevar:\s*true|newparam\(\s*:(\w+)[^)]*:namevar\s*=>\s*true`)
var isNamevar = regexp.MustCompile(`newparam\(\s*:(\w+)[^\n]*\n(?:[^\n]*\n){0,3}?\s*isnamevar`)

// namevar returns the namevar of a Ruby resource type: path for file,
// command for exec, else what the type's Ruby code marks (name by
// default).
func (e *evaluator) namevar(typ string) string {
	switch typ {
	case "file":
		return "path"
	case "exec":
		return "command"
	}
	if BuiltinTypes[typ] {
		return "name"
	}
	key := "nv:" + typ
	if e.namevars == nil {
		e.namevars = map[string]string{}
	}
	if nv, ok := e.namevars[key]; ok {
		return nv
	}
	nv := "name"
	if m := e.modules().find(filepath.Join("lib", "puppet", "type", typ+".rb")); len(m) > 0 {
		src := readString(m[0])
		if x := namevarParam.FindStringSubmatch(src); x != nil {
			nv = x[1] + x[2]
		} else if x := isNamevar.FindStringSubmatch(src); x != nil {
			nv = x[1]
		}
	}
	e.namevars[key] = nv
	return nv
}

// filePathKey is what Puppet identifies a file by: its path without
// trailing slashes, so that File["/a/"] is File["/a"].
func filePathKey(title string) string {
	if k := strings.TrimRight(title, "/"); k != "" {
		return k
	}
	return title
}

// sameFileSpelling refuses a reference to a file declared under another
// spelling of its path (File["/a/"] for File["/a"]): Puppet resolves it
// through an alias the translation does not follow.
func (e *evaluator) sameFileSpelling(p syntax.Pos, refStr string) {
	typ, title, ok := catalog.ParseRef(refStr)
	if !ok || typ != "File" || e.entries[refStr] != nil {
		return
	}
	if en := e.files[filePathKey(title)]; en != nil {
		panic(syntax.Unsupported(p, "a reference to "+en.res.Ref()+" as "+refStr))
	}
}
