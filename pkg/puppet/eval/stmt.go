package eval

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// A relation is one chaining arrow; its sides are resolved to references
// when compilation ends (a collector's side is what it collected by then).
type relation struct {
	pos      syntax.Pos
	from, to any
	notify   bool
}

// block evaluates statements in order and returns the value of the last.
func (e *evaluator) block(s *scope, stmts []syntax.Node) any {
	var last any
	for _, st := range stmts {
		last = e.stmt(s, st)
	}
	return last
}

// stmt evaluates one statement and returns its value (definitions have
// none; they were registered before evaluation).
func (e *evaluator) stmt(s *scope, n syntax.Node) any {
	switch x := n.(type) {
	case *syntax.ClassDef, *syntax.DefineDef, *syntax.NodeDef, *syntax.FunctionDef, *syntax.TypeAlias:
		return nil
	case *syntax.Chain:
		return e.chain(s, x)
	}
	return e.expr(s, n)
}

// assign evaluates $name = value in s.
func (e *evaluator) assign(s *scope, x *syntax.Assign) any {
	if strings.Contains(x.Name, "::") {
		e.fail(x.P, "cannot assign to a qualified variable $%s", x.Name)
	}
	if _, err := strconv.Atoi(x.Name); err == nil {
		e.fail(x.P, "cannot assign to the numeric variable $%s", x.Name)
	}
	if _, dup := s.vars[x.Name]; dup {
		e.fail(x.P, "cannot reassign variable '$%s'", x.Name)
	}
	v := e.expr(s, x.Value)
	s.vars[x.Name] = v
	return v
}

// defaults records resource defaults: File { mode => "0644" }.
func (e *evaluator) defaults(s *scope, x *syntax.Defaults) any {
	t := catalog.CapitalizeType(x.Type)
	if s.defaults[t] == nil {
		s.defaults[t] = map[string]any{}
	}
	for _, a := range x.Attrs {
		if a.Name == "*" {
			h, ok := e.expr(s, a.Value).(*hash)
			if !ok {
				e.fail(a.P, "a splat (* =>) needs a Hash")
			}
			for _, k := range h.keys {
				s.defaults[t][k] = h.m[k]
			}
			continue
		}
		s.defaults[t][a.Name] = e.expr(s, a.Value)
	}
	return nil
}

func (e *evaluator) ifExpr(s *scope, x *syntax.If) any {
	if truthy(e.expr(s, x.Cond)) != x.Not {
		return e.block(s, x.Then)
	}
	return e.block(s, x.Else)
}

func (e *evaluator) caseExpr(s *scope, c *syntax.Case) any {
	v := e.expr(s, c.X)
	def := -1
	for i, opts := range c.Opts {
		for _, o := range opts {
			if _, isDef := o.(*syntax.Default); isDef {
				def = i
				continue
			}
			if e.match(s, v, o) {
				return e.block(s, c.Bodies[i])
			}
		}
	}
	if def >= 0 {
		return e.block(s, c.Bodies[def])
	}
	return nil
}

// match reports whether v matches the case/selector option o, setting the
// regex capture variables on a regex match.
func (e *evaluator) match(s *scope, v any, o syntax.Node) bool {
	ov := e.expr(s, o)
	switch x := ov.(type) {
	case *regexp.Regexp:
		str, isStr := v.(string)
		if !isStr {
			return false
		}
		m := x.FindStringSubmatch(str)
		if m == nil {
			return false
		}
		setCaptures(s, m)
		return true
	case *ptype:
		if _, isType := v.(*ptype); !isType {
			return e.isInstance(o.At(), v, x)
		}
	case []any:
		if _, vIsArr := v.([]any); !vIsArr {
			for _, el := range x {
				if equal(v, el) {
					return true
				}
			}
			return false
		}
	}
	return equal(v, ov)
}

func setCaptures(s *scope, m []string) {
	for i := 0; i < 10; i++ {
		delete(s.vars, strconv.Itoa(i))
	}
	for i, g := range m {
		s.vars[strconv.Itoa(i)] = g
	}
}

// chain records the relationships of a chaining-arrow statement.
func (e *evaluator) chain(s *scope, c *syntax.Chain) any {
	var prev any
	for i, item := range c.Items {
		cur := e.expr(s, item)
		e.refsOf(item.At(), cur) // checks the operand now
		if i > 0 {
			op := c.Ops[i-1]
			r := relation{pos: item.At(), from: prev, to: cur, notify: op == "~>" || op == "<~"}
			if op == "<-" || op == "<~" {
				r.from, r.to = cur, prev
			}
			e.relations = append(e.relations, r)
		}
		prev = cur
	}
	return prev
}

// refsOf turns an operand of a chaining arrow into resource references.
func (e *evaluator) refsOf(p syntax.Pos, v any) []ref {
	var out []ref
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case ref:
			out = append(out, x)
		case []any:
			for _, el := range x {
				walk(el)
			}
		case *collected:
			out = append(out, x.refs(e)...)
		case nil:
		default:
			e.fail(p, "a relationship needs resource references, got %s", typeName(v))
		}
	}
	walk(v)
	return out
}
