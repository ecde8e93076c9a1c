package eval

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// Values are nil (undef), string, int64, float64, bool, []any, *hash,
// ref, defaultValue and *regexp.Regexp.

// A ref is a resource reference value.
type ref struct{ Type, Title string }

func (r ref) String() string { return r.Type + "[" + r.Title + "]" }

type defaultValue struct{}

// A hash keeps Puppet's insertion order.
type hash struct {
	keys []string
	m    map[string]any
}

func (h *hash) set(k string, v any) {
	if _, ok := h.m[k]; !ok {
		h.keys = append(h.keys, k)
	}
	h.m[k] = v
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "Undef"
	case string:
		return "String"
	case int64:
		return "Integer"
	case float64:
		return "Float"
	case bool:
		return "Boolean"
	case []any:
		return "Array"
	case *hash:
		return "Hash"
	case ref:
		return "a resource reference"
	case *regexp.Regexp:
		return "Regexp"
	}
	return "Default"
}

func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	}
	return true
}

// toString renders a value the way Puppet interpolates it.
func toString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		s := strconv.FormatFloat(x, 'f', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return s
	case bool:
		return strconv.FormatBool(x)
	case []any:
		parts := make([]string, len(x))
		for i, el := range x {
			parts[i] = toString(el)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *hash:
		parts := make([]string, len(x.keys))
		for i, k := range x.keys {
			parts[i] = toString(k) + " => " + toString(x.m[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case ref:
		return x.String()
	case *regexp.Regexp:
		return "/" + x.String() + "/"
	}
	return "default"
}

// toParam converts a value to its catalog form: references become
// strings, hashes maps.
func toParam(v any) any {
	switch x := v.(type) {
	case ref:
		return x.String()
	case []any:
		out := make([]any, len(x))
		for i, el := range x {
			out[i] = toParam(el)
		}
		return out
	case *hash:
		m := make(map[string]any, len(x.keys))
		for _, k := range x.keys {
			m[k] = toParam(x.m[k])
		}
		return m
	case *regexp.Regexp:
		return "/" + x.String() + "/"
	}
	return v
}

func mustRegexp(e *evaluator, p syntax.Pos, pat string) *regexp.Regexp {
	re, err := regexp.Compile(pat)
	if err != nil {
		e.fail(p, "bad regular expression /%s/: %v", pat, err)
	}
	return re
}

func (e *evaluator) expr(s *scope, n syntax.Node) any {
	switch x := n.(type) {
	case *syntax.Str:
		if x.Parts == nil {
			return x.Value
		}
		var b strings.Builder
		for _, part := range x.Parts {
			b.WriteString(toString(e.expr(s, part)))
		}
		return b.String()
	case *syntax.Name:
		return x.Value
	case *syntax.Num:
		return e.number(x)
	case *syntax.Bool:
		return x.Value
	case *syntax.Undef:
		return nil
	case *syntax.Default:
		return defaultValue{}
	case *syntax.Var:
		return e.lookup(s, x.P, x.Name)
	case *syntax.Regex:
		return mustRegexp(e, x.P, x.Pattern)
	case *syntax.Array:
		out := make([]any, 0, len(x.Elems))
		for _, el := range x.Elems {
			out = append(out, e.expr(s, el))
		}
		return out
	case *syntax.Hash:
		h := &hash{m: map[string]any{}}
		for i, k := range x.Keys {
			h.set(toString(e.expr(s, k)), e.expr(s, x.Vals[i]))
		}
		return h
	case *syntax.TypeRef:
		return e.typeRef(s, x)
	case *syntax.Access:
		return e.access(s, x)
	case *syntax.Unary:
		v := e.expr(s, x.X)
		if x.Op == "!" {
			return !truthy(v)
		}
		return e.arith(x.P, "-", int64(0), v)
	case *syntax.Binary:
		return e.binary(s, x)
	case *syntax.Selector:
		return e.selector(s, x)
	case *syntax.Call:
		return e.call(s, x)
	case *syntax.Resource:
		refs := e.declare(s, x)
		return refs
	}
	e.fail(n.At(), "unsupported Puppet construct: %T here (install Puppet to compile this manifest)", n)
	return nil
}

func (e *evaluator) number(n *syntax.Num) any {
	t := n.Text
	if strings.ContainsAny(t, ".eE") && !strings.HasPrefix(t, "0x") {
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			e.fail(n.P, "bad number %q", t)
		}
		return f
	}
	base := 10
	switch {
	case strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X"):
		base, t = 16, t[2:]
	case len(t) > 1 && t[0] == '0':
		base = 8
	}
	i, err := strconv.ParseInt(t, base, 64)
	if err != nil {
		e.fail(n.P, "bad number %q", n.Text)
	}
	return i
}

func (e *evaluator) typeRef(s *scope, x *syntax.TypeRef) any {
	if x.Titles == nil {
		e.fail(x.P, "unsupported Puppet construct: data type %s used as a value (install Puppet to compile this manifest)", x.Type)
	}
	typ := catalog.CapitalizeType(x.Type)
	var out []any
	for _, tn := range x.Titles {
		for _, t := range e.titles(s, tn) {
			if typ == "Class" {
				t = classTitle(t)
			}
			out = append(out, ref{Type: typ, Title: t})
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return out
}

func (e *evaluator) access(s *scope, x *syntax.Access) any {
	v := e.expr(s, x.X)
	if len(x.Index) != 1 {
		e.fail(x.P, "unsupported Puppet construct: access with %d keys (install Puppet to compile this manifest)", len(x.Index))
	}
	k := e.expr(s, x.Index[0])
	switch c := v.(type) {
	case []any:
		i, ok := k.(int64)
		if !ok {
			e.fail(x.P, "an array index must be an Integer, got %s", typeName(k))
		}
		if i < 0 {
			i += int64(len(c))
		}
		if i < 0 || i >= int64(len(c)) {
			return nil
		}
		return c[i]
	case *hash:
		return c.m[toString(k)]
	case nil:
		e.fail(x.P, "operator '[]' is not applicable to an Undef value")
	}
	e.fail(x.P, "operator '[]' is not applicable to %s", typeName(v))
	return nil
}

func (e *evaluator) selector(s *scope, x *syntax.Selector) any {
	v := e.expr(s, x.X)
	def := -1
	for i, m := range x.Matches {
		if _, isDef := m.(*syntax.Default); isDef {
			def = i
			continue
		}
		if e.match(s, v, m) {
			return e.expr(s, x.Values[i])
		}
	}
	if def >= 0 {
		return e.expr(s, x.Values[def])
	}
	e.fail(x.P, "No matching entry for selector parameter with value '%s'", toString(v))
	return nil
}

// match reports whether v matches the case/selector option o, setting the
// regex capture variables on a regex match.
func (e *evaluator) match(s *scope, v any, o syntax.Node) bool {
	ov := e.expr(s, o)
	if re, ok := ov.(*regexp.Regexp); ok {
		str, isStr := v.(string)
		if !isStr {
			return false
		}
		m := re.FindStringSubmatch(str)
		if m == nil {
			return false
		}
		for i, g := range m {
			s.vars[strconv.Itoa(i)] = g
		}
		return true
	}
	if arr, ok := ov.([]any); ok {
		if _, vIsArr := v.([]any); !vIsArr {
			for _, el := range arr {
				if equal(v, el) {
					return true
				}
			}
			return false
		}
	}
	return equal(v, ov)
}

func equal(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && strings.EqualFold(x, y)
	case int64, float64:
		fa, ok1 := toFloat(a)
		fb, ok2 := toFloat(b)
		_, bIsStr := b.(string)
		return ok1 && ok2 && !bIsStr && fa == fb
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case *hash:
		y, ok := b.(*hash)
		if !ok || len(x.keys) != len(y.keys) {
			return false
		}
		for k, v := range x.m {
			if w, ok := y.m[k]; !ok || !equal(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}

func (e *evaluator) binary(s *scope, x *syntax.Binary) any {
	switch x.Op {
	case "and":
		return truthy(e.expr(s, x.L)) && truthy(e.expr(s, x.R))
	case "or":
		return truthy(e.expr(s, x.L)) || truthy(e.expr(s, x.R))
	}
	l, r := e.expr(s, x.L), e.expr(s, x.R)
	switch x.Op {
	case "==":
		return equal(l, r)
	case "!=":
		return !equal(l, r)
	case "=~", "!~":
		var re *regexp.Regexp
		switch p := r.(type) {
		case *regexp.Regexp:
			re = p
		case string:
			re = mustRegexp(e, x.P, p)
		default:
			e.fail(x.P, "unsupported Puppet construct: matching against %s (install Puppet to compile this manifest)", typeName(r))
		}
		str, ok := l.(string)
		if !ok {
			e.fail(x.P, "operator '%s' needs a String on the left, got %s", x.Op, typeName(l))
		}
		m := re.FindStringSubmatch(str)
		for i, g := range m {
			s.vars[strconv.Itoa(i)] = g
		}
		return (m != nil) == (x.Op == "=~")
	case "in":
		return e.in(x.P, l, r)
	case "<", ">", "<=", ">=":
		return e.compare(x.P, x.Op, l, r)
	case "<<":
		if arr, ok := l.([]any); ok {
			return append(append([]any{}, arr...), r)
		}
	case "+":
		if la, ok := l.([]any); ok {
			if ra, ok := r.([]any); ok {
				return append(append([]any{}, la...), ra...)
			}
			return append(append([]any{}, la...), r)
		}
		if lh, ok := l.(*hash); ok {
			if rh, ok := r.(*hash); ok {
				out := &hash{m: map[string]any{}}
				for _, k := range lh.keys {
					out.set(k, lh.m[k])
				}
				for _, k := range rh.keys {
					out.set(k, rh.m[k])
				}
				return out
			}
		}
	}
	return e.arith(x.P, x.Op, l, r)
}

func (e *evaluator) in(p syntax.Pos, l, r any) bool {
	switch c := r.(type) {
	case string:
		ls, ok := l.(string)
		return ok && strings.Contains(strings.ToLower(c), strings.ToLower(ls))
	case []any:
		for _, el := range c {
			if equal(l, el) {
				return true
			}
		}
		return false
	case *hash:
		for _, k := range c.keys {
			if equal(l, k) {
				return true
			}
		}
		return false
	}
	return false
}

func (e *evaluator) compare(p syntax.Pos, op string, l, r any) bool {
	var c int
	ls, lok := l.(string)
	rs, rok := r.(string)
	if lok && rok {
		c = strings.Compare(strings.ToLower(ls), strings.ToLower(rs))
	} else {
		lf, ok1 := l.(int64)
		rf, ok2 := r.(int64)
		a, b := float64(lf), float64(rf)
		if !ok1 || !ok2 {
			var okA, okB bool
			a, okA = numeric(l)
			b, okB = numeric(r)
			if !okA || !okB {
				e.fail(p, "comparison of %s with %s failed", typeName(l), typeName(r))
			}
		}
		switch {
		case a < b:
			c = -1
		case a > b:
			c = 1
		}
	}
	switch op {
	case "<":
		return c < 0
	case ">":
		return c > 0
	case "<=":
		return c <= 0
	}
	return c >= 0
}

func numeric(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// arith implements + - * / % on numbers (numeric strings are converted).
func (e *evaluator) arith(p syntax.Pos, op string, l, r any) any {
	conv := func(v any) any {
		if s, ok := v.(string); ok {
			if i, err := strconv.ParseInt(s, 0, 64); err == nil {
				return i
			}
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				return f
			}
		}
		return v
	}
	l, r = conv(l), conv(r)
	li, lInt := l.(int64)
	ri, rInt := r.(int64)
	if lInt && rInt {
		switch op {
		case "+":
			return li + ri
		case "-":
			return li - ri
		case "*":
			return li * ri
		case "/", "%":
			if ri == 0 {
				e.fail(p, "division by 0")
			}
			if op == "/" {
				return li / ri
			}
			return li % ri
		}
	}
	lf, ok1 := numeric(l)
	rf, ok2 := numeric(r)
	if !ok1 || !ok2 {
		e.fail(p, "operator '%s' is not applicable to %s and %s", op, typeName(l), typeName(r))
	}
	switch op {
	case "+":
		return lf + rf
	case "-":
		return lf - rf
	case "*":
		return lf * rf
	case "/":
		return lf / rf
	}
	return math.Mod(lf, rf)
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var _ = fmt.Sprint
