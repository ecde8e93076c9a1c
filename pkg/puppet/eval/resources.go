package eval

import (
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// A scope holds variables (looked up through parent, Puppet's lexical
// chain) and resource defaults (looked up through dyn, the dynamic chain of
// declarations). container is the resource that contains what the scope
// declares.
type scope struct {
	vars      map[string]any
	parent    *scope
	dyn       *scope
	defaults  map[string]map[string]any
	container *catalog.Resource
	depth     int // nesting of defined types
}

func newScope(parent, dyn *scope, container *catalog.Resource) *scope {
	return &scope{vars: map[string]any{}, parent: parent, dyn: dyn,
		defaults: map[string]map[string]any{}, container: container}
}

// enclosing is the lexical parent of class and define scopes: the node
// scope once a node block is being evaluated, else top scope.
func (e *evaluator) enclosing() *scope {
	if e.node != nil {
		return e.node
	}
	return e.top
}

// lookup finds a variable: qualified names in the named class's scope,
// others along the lexical chain.
func (e *evaluator) lookup(s *scope, p syntax.Pos, name string) any {
	if i := strings.LastIndex(name, "::"); i >= 0 {
		cls, v := name[:i], name[i+2:]
		if cls == "" {
			return e.top.vars[v]
		}
		cs := e.declared[strings.ToLower(cls)]
		if cs == nil {
			e.fail(p, "could not look up $%s: class %s has not been evaluated", name, cls)
		}
		return cs.vars[v]
	}
	for sc := s; sc != nil; sc = sc.parent {
		if v, ok := sc.vars[name]; ok {
			return v
		}
	}
	return nil
}

// declare evaluates a resource declaration and returns the references of
// the declared resources.
func (e *evaluator) declare(s *scope, r *syntax.Resource) []any {
	var out []any
	typ := strings.ToLower(r.Type)
	for _, b := range r.Bodies {
		attrs := map[string]any{}
		var order []string
		for _, a := range b.Attrs {
			if _, dup := attrs[a.Name]; dup {
				e.fail(a.P, "the attribute '%s' has already been set", a.Name)
			}
			attrs[a.Name] = e.expr(s, a.Value)
			order = append(order, a.Name)
		}
		for _, title := range e.titles(s, b.Title) {
			if typ == "class" {
				e.declareClass(s, b.P, title, attrs, true)
				out = append(out, ref{Type: "Class", Title: classTitle(title)})
				continue
			}
			out = append(out, e.declareOne(s, r.P, b.P, typ, title, attrs, order))
		}
	}
	return out
}

func (e *evaluator) titles(s *scope, n syntax.Node) []string {
	v := e.expr(s, n)
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, el := range x {
				walk(el)
			}
		case string, int64, float64:
			out = append(out, toString(x))
		default:
			e.fail(n.At(), "a resource title must be a string, got %s", typeName(v))
		}
	}
	walk(v)
	return out
}

func (e *evaluator) declareOne(s *scope, stmt, p syntax.Pos, typ, title string, attrs map[string]any, order []string) ref {
	def := e.defines[typ]
	if def == nil && !e.knownType(typ) {
		e.loadModule(typ)
		def = e.defines[typ]
	}
	if def == nil && !e.knownType(typ) {
		e.fail(stmt, "unknown resource type: '%s'", typ)
	}
	r := &catalog.Resource{Type: catalog.CapitalizeType(typ), Title: title, Kind: catalog.KindCompilable,
		File: p.File, Line: p.Line, Col: p.Col, Params: map[string]any{}}
	given := map[string]any{}
	for _, k := range order {
		v := attrs[k]
		if v == nil {
			continue
		}
		given[k] = v
		r.Params[k] = toParam(v)
	}
	if def != nil {
		r.Kind = catalog.KindDefined
	}
	// defaults in effect now, nearest scope first
	for sc := s; sc != nil; sc = sc.dyn {
		for k, v := range sc.defaults[r.Type] {
			if _, set := r.Params[k]; !set && v != nil {
				r.Params[k] = toParam(v)
			}
		}
	}
	en := e.addResource(r, s, p)
	if typ != "stage" {
		e.contain(s.container, r)
	}
	if def != nil {
		e.pending = append(e.pending, &defInst{depth: s.depth + 1, parent: e.enclosing(), def: def, e: en, given: given})
	}
	return ref{Type: r.Type, Title: title}
}

var metaparams = map[string]bool{
	"before": true, "require": true, "notify": true, "subscribe": true, "tag": true, "alias": true,
	"noop": true, "schedule": true, "audit": true, "loglevel": true, "stage": true,
}

// evalDefine evaluates the body of a defined type's instance.
func (e *evaluator) evalDefine(d *defInst) {
	r := d.e.res
	sc := newScope(d.parent, d.e.scope, r)
	sc.depth = d.depth
	sc.vars["title"] = r.Title
	sc.vars["name"] = r.Title
	e.bindParams(sc, d.def.P, d.def.Params, d.given, r, "defined type "+r.Type)
	e.block(sc, d.def.Body)
}

// bindParams sets the parameters of a class or define in its scope: the
// given values, else the defaults (evaluated in the new scope, in order).
func (e *evaluator) bindParams(sc *scope, p syntax.Pos, params []*syntax.Param, given map[string]any, r *catalog.Resource, what string) {
	known := map[string]bool{}
	for _, prm := range params {
		known[prm.Name] = true
		if v, ok := given[prm.Name]; ok {
			sc.vars[prm.Name] = v
			continue
		}
		if prm.Default == nil {
			e.fail(posOf(r), "%s expects a value for parameter '%s'", what, prm.Name)
		}
		v := e.expr(sc, prm.Default)
		sc.vars[prm.Name] = v
		if v != nil {
			r.Params[prm.Name] = toParam(v)
		}
	}
	for k, v := range given {
		if metaparams[k] {
			continue
		}
		if !known[k] {
			e.fail(posOf(r), "%s has no parameter named '%s'", what, k)
		}
		sc.vars[k] = v
	}
}

// classTitle capitalizes a class name per :: segment, as catalog titles
// of classes are.
func classTitle(name string) string {
	name = strings.TrimPrefix(strings.ToLower(name), "::")
	if name == "main" {
		return "main"
	}
	return catalog.CapitalizeType(name)
}

// declareClass declares class name (once) and returns its scope.
func (e *evaluator) declareClass(s *scope, p syntax.Pos, name string, given map[string]any, resourceLike bool) *scope {
	name = strings.TrimPrefix(strings.ToLower(name), "::")
	if cs := e.declared[name]; cs != nil {
		if resourceLike {
			e.fail(p, "Duplicate declaration: Class[%s] is already declared", classTitle(name))
		}
		return cs
	}
	def := e.classes[name]
	if def == nil {
		e.loadModule(name)
		def = e.classes[name]
	}
	if def == nil {
		e.fail(p, "Could not find class ::%s", name)
	}
	parentScope := e.enclosing()
	if def.Parent != "" {
		parentScope = e.declareClass(s, def.P, def.Parent, nil, false)
	}
	kind := catalog.KindUnknown
	if resourceLike {
		kind = catalog.KindClass
	}
	r := &catalog.Resource{Type: "Class", Title: classTitle(name), Kind: kind,
		File: def.P.File, Line: def.P.Line, Col: def.P.Col, Params: map[string]any{}}
	if resourceLike {
		r.File, r.Line, r.Col = p.File, p.Line, p.Col
	}
	stageName := "main"
	for k, v := range given {
		if metaparams[k] && k != "stage" {
			r.Params[k] = toParam(v)
		}
		if k == "stage" {
			stageName = toString(v)
		}
	}
	stage := e.entries["Stage["+stageName+"]"]
	if stage == nil {
		e.fail(p, "Could not find stage %s specified by Class[%s]", stageName, classTitle(name))
	}
	e.addResource(r, s, p)
	e.contain(stage.res, r)
	e.cat.Classes = append(e.cat.Classes, name)
	sc := newScope(parentScope, s, r)
	sc.vars["title"] = name
	sc.vars["name"] = name
	e.declared[name] = sc
	for k, v := range given {
		if metaparams[k] {
			delete(given, k)
			_ = v
		}
	}
	e.bindParams(sc, def.P, def.Params, given, r, "class "+name)
	for k, v := range given {
		r.Params[k] = toParam(v)
	}
	e.block(sc, def.Body)
	return sc
}

// includeLike implements include, require and contain.
func (e *evaluator) includeLike(s *scope, c *syntax.Call, args []any) {
	var names []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			names = append(names, x)
		case ref:
			if x.Type != "Class" {
				e.fail(c.P, "%s() expects classes, got %s", c.Name, x)
			}
			names = append(names, x.Title)
		case []any:
			for _, el := range x {
				walk(el)
			}
		default:
			e.fail(c.P, "%s() expects class names, got %s", c.Name, typeName(v))
		}
	}
	for _, a := range args {
		walk(a)
	}
	for _, n := range names {
		cs := e.declareClass(s, c.P, n, map[string]any{}, false)
		switch c.Name {
		case "contain":
			if cs.container != s.container {
				e.contain(s.container, cs.container)
			}
		case "require":
			appendParam(s.container, "require", cs.container.Ref())
		}
	}
}
