package eval

import (
	"sort"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// A collector is Type <| query |>: it realizes the matching virtual
// resources and sets its attributes on every matching resource, virtual
// or not, declared before or after it (Puppet evaluates collectors until
// the catalog stops changing).
type collector struct {
	x     *syntax.Collect
	s     *scope
	typ   string // capitalized type
	attrs []attrOp
	done  map[*entry]bool // resources already overridden
}

// An attrOp is one attribute of an override or a collector's block.
type attrOp struct {
	p     syntax.Pos
	name  string
	value any
	add   bool // +>
}

// collected is the value of a collector expression: the references of
// what it collected when compilation ends (for relationships).
type collected struct{ c *collector }

func (c *collected) refs(e *evaluator) []ref {
	var out []ref
	for _, en := range e.sortedEntries() {
		if !en.virtual && en.res.Type == c.c.typ && e.queryMatch(c.c, en) {
			out = append(out, ref{Type: en.res.Type, Title: en.res.Title})
		}
	}
	return out
}

// An override is Type["title"] { attr => value }: applied at once to a
// resource already declared, else when it is.
type override struct {
	p     syntax.Pos
	s     *scope
	attrs []attrOp
}

func (e *evaluator) attrOps(s *scope, list []*syntax.Attr) []attrOp {
	var out []attrOp
	for _, a := range list {
		v := e.expr(s, a.Value)
		if a.Name == "*" {
			h, ok := v.(*hash)
			if !ok {
				e.fail(a.P, "a splat (* =>) needs a Hash, got %s", typeName(v))
			}
			for _, k := range h.keys {
				out = append(out, attrOp{p: a.P, name: k, value: h.m[k]})
			}
			continue
		}
		out = append(out, attrOp{p: a.P, name: a.Name, value: v, add: a.Op == "+>"})
	}
	return out
}

// collect records a collector and returns its value.
func (e *evaluator) collect(s *scope, x *syntax.Collect) any {
	if x.Exported {
		panic(syntax.Unsupported(x.P, "exported resource collectors (<<| |>>), which need PuppetDB"))
	}
	c := &collector{x: x, s: s, typ: catalog.CapitalizeType(strings.TrimPrefix(x.Type, "::")),
		attrs: e.attrOps(s, x.Attrs), done: map[*entry]bool{}}
	if c.typ == "Class" {
		e.fail(x.P, "classes cannot be collected")
	}
	e.checkQuery(x.Query)
	e.collects = append(e.collects, c)
	e.runCollector(c)
	return &collected{c: c}
}

// checkQuery refuses query forms the engine does not evaluate.
func (e *evaluator) checkQuery(q syntax.Node) {
	switch x := q.(type) {
	case nil:
	case *syntax.Binary:
		switch x.Op {
		case "and", "or":
			e.checkQuery(x.L)
			e.checkQuery(x.R)
		case "==", "!=":
			if _, ok := x.L.(*syntax.Name); !ok {
				panic(syntax.Unsupported(x.P, "a collector query whose left side is not an attribute name"))
			}
		default:
			panic(syntax.Unsupported(x.P, "the operator "+x.Op+" in a collector query"))
		}
	default:
		panic(syntax.Unsupported(q.At(), "this collector query"))
	}
}

// runCollectors runs every collector once more; it reports whether one
// realized a resource.
func (e *evaluator) runCollectors() bool {
	progress := false
	for _, c := range e.collects {
		if e.runCollector(c) {
			progress = true
		}
	}
	return progress
}

func (e *evaluator) runCollector(c *collector) bool {
	progress := false
	for _, en := range e.sortedEntries() {
		if en.res.Type != c.typ || en.exported || c.done[en] || !e.queryMatch(c, en) {
			continue
		}
		if en.virtual {
			e.realize(en)
			progress = true
		}
		c.done[en] = true
		e.setAttrs(en, c.attrs)
	}
	return progress
}

// sortedEntries returns the declared resources in declaration-independent
// order (by reference).
func (e *evaluator) sortedEntries() []*entry {
	keys := make([]string, 0, len(e.entries))
	for k := range e.entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*entry, len(keys))
	for i, k := range keys {
		out[i] = e.entries[k]
	}
	return out
}

// queryMatch evaluates a collector query on a resource: attr == value
// (an array attribute matches when one element equals), !=, and, or;
// title and tag are attributes too.
func (e *evaluator) queryMatch(c *collector, en *entry) bool {
	var eval func(q syntax.Node) bool
	eval = func(q syntax.Node) bool {
		if q == nil {
			return true
		}
		b := q.(*syntax.Binary)
		switch b.Op {
		case "and":
			return eval(b.L) && eval(b.R)
		case "or":
			return eval(b.L) || eval(b.R)
		}
		name := b.L.(*syntax.Name).Value
		want := e.expr(c.s, b.R)
		var have []any
		switch name {
		case "title":
			have = []any{en.res.Title}
		case "tag":
			for t := range e.tagsOf(en) {
				have = append(have, t)
			}
		default:
			v := fromJSON(en.res.Params[name])
			if l, ok := v.([]any); ok {
				have = l
			} else if v != nil {
				have = []any{v}
			}
		}
		found := false
		for _, h := range have {
			if equal(h, want) {
				found = true
			}
		}
		return found == (b.Op == "==")
	}
	return eval(c.x.Query)
}

// override applies Type["title"] { ... } to the resources already
// declared and keeps it for the others.
func (e *evaluator) override(s *scope, x *syntax.Override) any {
	v := e.expr(s, x.Target)
	o := &override{p: x.P, s: s, attrs: e.attrOps(s, x.Attrs)}
	for _, r := range e.refsOf(x.P, v) {
		if en := e.entries[r.String()]; en != nil {
			e.applyOverride(o, en)
			continue
		}
		if e.pendingOverrides == nil {
			e.pendingOverrides = map[string][]*override{}
		}
		e.pendingOverrides[r.String()] = append(e.pendingOverrides[r.String()], o)
	}
	return v
}

// applyPendingOverrides applies the overrides waiting for a resource
// just declared.
func (e *evaluator) applyPendingOverrides(en *entry) {
	if len(e.pendingOverrides) == 0 {
		return
	}
	for _, o := range e.pendingOverrides[en.ref] {
		e.applyOverride(o, en)
	}
	delete(e.pendingOverrides, en.ref)
}

// checkOverrides fails on an override whose resource was never declared.
func (e *evaluator) checkOverrides() {
	for _, k := range sortedKeys(anyMap(e.pendingOverrides)) {
		e.fail(e.pendingOverrides[k][0].p, "Could not find resource '%s' for overriding", k)
	}
}

func anyMap[V any](m map[string]V) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// applyOverride checks that the override's scope may override en (it
// declared en, or is a class inheriting from the one that did) and sets
// the attributes.
func (e *evaluator) applyOverride(o *override, en *entry) {
	if !e.mayOverride(o.s, en) {
		e.fail(o.p, "Only subclasses can override parameters of %s", en.res.Ref())
	}
	e.setAttrs(en, o.attrs)
}

// mayOverride reports whether code in s may override en's attributes:
// s is the declaring class or a subclass of it.
func (e *evaluator) mayOverride(s *scope, en *entry) bool {
	declaring := en.scope.class
	for sc := s; sc != nil; sc = sc.parent {
		if sc.class == declaring {
			return true
		}
		if sc == e.top || sc == e.node {
			break
		}
	}
	return false
}

// setAttrs sets (or with +>, appends to) attributes of a resource; undef
// removes one.
func (e *evaluator) setAttrs(en *entry, ops []attrOp) {
	r := en.res
	for _, op := range ops {
		if en.def != nil && en.def.evaluated {
			panic(syntax.Unsupported(op.p, "overriding an attribute of "+r.Ref()+" after its body was evaluated"))
		}
		if op.value == nil {
			delete(r.Params, op.name)
			if en.def != nil {
				delete(en.def.given, op.name)
			}
			continue
		}
		v := op.value
		if op.add {
			old := fromJSON(r.Params[op.name])
			if old != nil {
				l, ok := old.([]any)
				if !ok {
					l = []any{old}
				}
				if add, ok := v.([]any); ok {
					v = append(append([]any{}, l...), add...)
				} else {
					v = append(append([]any{}, l...), v)
				}
			}
		}
		e.setParam(r, op.name, v)
		if en.def != nil {
			en.def.given[op.name] = v
		}
	}
}
