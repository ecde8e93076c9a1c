package eval

import (
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

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
			e.fail(p, "Duplicate declaration: Class[%s] is already declared; cannot redeclare", classTitle(name))
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
	e.enter(p)
	defer e.leave()
	parentScope := e.enclosing()
	if def.Parent != "" {
		parentScope = e.declareClass(s, def.P, def.Parent, map[string]any{}, false)
	}
	kind := catalog.KindUnknown
	if resourceLike {
		kind = catalog.KindClass
	}
	r := &catalog.Resource{Type: "Class", Title: classTitle(name), Kind: kind,
		File: def.P.File(), Line: int(def.P.Line), Col: int(def.P.Col), Params: map[string]any{}}
	if resourceLike {
		r.File, r.Line, r.Col = p.File(), int(p.Line), int(p.Col)
	}
	stageName := "main"
	for k, v := range given {
		if !metaparams[k] {
			continue
		}
		if k == "stage" {
			stageName = toString(v)
		} else {
			e.setParam(r, k, v)
		}
		delete(given, k)
	}
	stage := e.entries["Stage["+stageName+"]"]
	if stage == nil {
		e.fail(p, "Could not find stage %s specified by Class[%s]", stageName, classTitle(name))
	}
	en := e.addResource(r, s, p, false)
	en.container = stage.res
	e.contain(stage.res, r)
	e.cat.Classes = append(e.cat.Classes, name)
	sc := newScope(parentScope, s, r)
	sc.module = e.moduleOf(def.P.File())
	sc.callerModule = s.module
	sc.class = name
	sc.vars["title"] = name
	sc.vars["name"] = name
	e.declared[name] = sc
	e.bindParams(sc, def.P, def.Params, given, r, "Class["+classTitle(name)+"]", name)
	e.block(sc, def.Body)
	return sc
}

// evalDefine evaluates the body of a defined type's instance.
func (e *evaluator) evalDefine(d *defInst) {
	r := d.e.res
	d.evaluated = true
	e.enter(posOf(r))
	defer e.leave()
	sc := newScope(d.parent, d.e.scope, r)
	sc.depth = d.depth
	sc.module = e.moduleOf(d.def.P.File())
	sc.callerModule = d.e.scope.module
	sc.class = strings.ToLower(r.Type)
	sc.virtual, sc.exported = false, false
	sc.vars["title"] = r.Title
	sc.vars["name"] = r.Title
	if n, ok := d.given["name"]; ok {
		sc.vars["name"] = n
	}
	e.bindParams(sc, d.def.P, d.def.Params, d.given, r, r.Ref(), "")
	e.block(sc, d.def.Body)
}

// bindParams sets the parameters of a class or define in its scope: the
// given values, else (classes) a Hiera value for <class>::<param>, else
// the defaults (evaluated in the new scope, in order). Each value must
// match the parameter's data type.
func (e *evaluator) bindParams(sc *scope, p syntax.Pos, params []*syntax.Param, given map[string]any, r *catalog.Resource, what, class string) {
	known := map[string]bool{}
	for _, prm := range params {
		known[prm.Name] = true
	}
	for _, k := range sortedKeys(given) {
		if !known[k] && !metaparams[k] && !(k == "name" && class == "") {
			e.fail(posOf(r), "%s: has no parameter named '%s'", what, k)
		}
	}
	for _, prm := range params {
		v, ok := given[prm.Name]
		if !ok && class != "" {
			v, ok = e.hiera.classParam(prm.P, class+"::"+prm.Name)
		}
		if !ok {
			if prm.Default == nil {
				if prm.Type != nil && e.isInstance(prm.P, nil, e.paramType(sc, prm)) {
					sc.vars[prm.Name] = nil
					continue
				}
				e.fail(posOf(r), "%s: expects a value for parameter '%s'", what, prm.Name)
			}
			v = e.expr(sc, prm.Default)
		}
		if prm.Type != nil {
			if t := e.paramType(sc, prm); !e.isInstance(prm.P, v, t) {
				e.fail(posOf(r), "%s: parameter '%s' expects a value of type %s, got %s", what, prm.Name, t, typeName(v))
			}
		}
		sc.vars[prm.Name] = v
		if v != nil {
			e.setParam(r, prm.Name, v)
		}
	}
	for k, v := range given {
		if metaparams[k] && !known[k] {
			e.setParam(r, k, v)
		}
	}
}

// paramType evaluates the data type of a parameter.
func (e *evaluator) paramType(s *scope, prm *syntax.Param) *ptype {
	t, ok := e.expr(s, prm.Type).(*ptype)
	if !ok {
		e.fail(prm.P, "the type of parameter $%s is not a data type", prm.Name)
	}
	return t
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
		case *ptype:
			if x.name == "Class" && len(x.params) == 1 {
				names = append(names, toString(x.params[0]))
				return
			}
			e.fail(c.P, "%s() expects class names, got %s", c.Name, x)
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
