package eval

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// regexp compiles a Puppet (Ruby) regular expression: ^ and $ match at
// line boundaries, as in Ruby; constructs Go's RE2 lacks (look-around,
// back references, \h, \Z) are refused.
func (e *evaluator) regexp(p syntax.Pos, pat string) *regexp.Regexp {
	if eq, ok := knownRegexps[pat]; ok {
		pat = eq
	}
	re, err := regexp.Compile("(?m)" + pat)
	if err != nil {
		panic(syntax.Unsupported(p, "the regular expression /"+pat+"/ ("+err.Error()+")"))
	}
	return re
}

// knownRegexps are Ruby regexps of common modules that use what RE2
// lacks, each with an RE2 pattern matching exactly the same strings.
var knownRegexps = map[string]string{
	// Stdlib::Compat::Ipv4: every (?!\d) follows an octet that the
	// pattern requires to be followed by ".", "/" or the end, never a
	// digit, so the look-aheads change nothing
	ipv4Compat: strings.ReplaceAll(ipv4Compat, `(?!\d)`, ""),
}

const ipv4Compat = `^((([0-9](?!\d)|[1-9][0-9](?!\d)|1[0-9]{2}(?!\d)|2[0-4][0-9](?!\d)|25[0-5](?!\d))[.]){3}([0-9](?!\d)|[1-9][0-9](?!\d)|1[0-9]{2}(?!\d)|2[0-4][0-9](?!\d)|25[0-5](?!\d)))(/((([0-9](?!\d)|[1-9][0-9](?!\d)|1[0-9]{2}(?!\d)|2[0-4][0-9](?!\d)|25[0-5](?!\d))[.]){3}([0-9](?!\d)|[1-9][0-9](?!\d)|1[0-9]{2}(?!\d)|2[0-4][0-9](?!\d)|25[0-5](?!\d))|[0-9]+))?$`

// interpolated evaluates the parts of an interpolated string and joins
// them, in one allocation.
func (e *evaluator) interpolated(s *scope, parts []syntax.Node) string {
	var small [8]string
	strs := small[:0]
	if len(parts) > len(small) {
		strs = make([]string, 0, len(parts))
	}
	n := 0
	for _, part := range parts {
		v := e.expr(s, part)
		if _, isStr := part.(*syntax.Str); !isStr {
			e.checkInterpolated(part.At(), v)
		}
		str := toString(v)
		strs = append(strs, str)
		n += len(str)
		e.checkText(part.At(), n)
	}
	var b strings.Builder
	b.Grow(n)
	for _, str := range strs {
		b.WriteString(str)
	}
	return b.String()
}

func (e *evaluator) expr(s *scope, n syntax.Node) any {
	e.tick()
	e.at = n
	switch x := n.(type) {
	case *syntax.Str:
		if x.Parts == nil {
			return x.Value
		}
		return e.interpolated(s, x.Parts)
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
		return e.regexp(x.P, x.Pattern)
	case *syntax.Array:
		return e.array(s, x)
	case *syntax.Hash:
		return e.hashLit(s, x)
	case *syntax.TypeRef:
		return e.typeRef(s, x)
	case *syntax.Access:
		return e.access(s, x)
	case *syntax.Unary:
		return e.unary(s, x)
	case *syntax.Binary:
		return e.binary(s, x)
	case *syntax.Selector:
		return e.selector(s, x)
	case *syntax.Call:
		return e.call(s, x)
	case *syntax.Resource:
		return e.declare(s, x)
	case *syntax.Assign:
		return e.assign(s, x)
	case *syntax.If:
		return e.ifExpr(s, x)
	case *syntax.Case:
		return e.caseExpr(s, x)
	case *syntax.Defaults:
		return e.defaults(s, x)
	case *syntax.Override:
		return e.override(s, x)
	case *syntax.Collect:
		return e.collect(s, x)
	case *syntax.Chain:
		return e.chain(s, x)
	}
	panic(syntax.Unsupported(n.At(), "this construct here"))
}

// checkInterpolated refuses values whose string form the engine does not
// render like Puppet.
func (e *evaluator) checkInterpolated(p syntax.Pos, v any) {
	switch v.(type) {
	case *ptype, *deferred, *lambdaValue:
		panic(syntax.Unsupported(p, "interpolating a "+typeName(v)))
	}
}

// numberRe is the syntax of Puppet's numbers: hexadecimal, octal (a
// leading 0), decimal, and floats with an optional exponent.
var numberRe = regexp.MustCompile(`^(?:0[xX][0-9A-Fa-f]+|[0-9]+(?:\.[0-9]+)?(?:[eE]-?[0-9]+)?)$`)

// number evaluates a number literal; one Puppet would not read (1_000,
// 0b1, 1e+3, 09) is refused.
func (e *evaluator) number(n *syntax.Num) any {
	t := n.Text
	if !numberRe.MatchString(t) {
		e.fail(n.P, "bad number %q", t)
	}
	if strings.ContainsAny(t, ".eE") && !strings.HasPrefix(t, "0x") && !strings.HasPrefix(t, "0X") {
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			e.fail(n.P, "bad number %q", t)
		}
		return f
	}
	i, err := strconv.ParseInt(t, 0, 64)
	if err != nil {
		e.fail(n.P, "bad number %q", n.Text)
	}
	return i
}

// array evaluates an array literal; a splatted element (*$x) is unfolded.
func (e *evaluator) array(s *scope, x *syntax.Array) any {
	out := make([]any, 0, len(x.Elems))
	for _, el := range x.Elems {
		if u, ok := el.(*syntax.Unary); ok && u.Op == "*" {
			v := e.expr(s, u.X)
			if a, ok := v.([]any); ok {
				out = append(out, a...)
				continue
			}
			out = append(out, v)
			continue
		}
		out = append(out, e.expr(s, el))
	}
	return out
}

// hashLit evaluates a hash literal. Keys are strings; the Optional['k']
// and NotUndef['k'] keys of a Struct type are kept as markers.
func (e *evaluator) hashLit(s *scope, x *syntax.Hash) any {
	h := newHash()
	for i, k := range x.Keys {
		kv := e.expr(s, k)
		var key string
		switch kx := kv.(type) {
		case string:
			key = kx
		case *ptype:
			if (kx.name == "Optional" || kx.name == "NotUndef") && len(kx.params) == 1 {
				if ks, ok := kx.params[0].(string); ok {
					key = ks
					if kx.name == "Optional" {
						key = "\x00opt:" + ks
					}
					break
				}
			}
			panic(syntax.Unsupported(k.At(), "a hash key of type "+kx.String()))
		default:
			panic(syntax.Unsupported(k.At(), "a hash key that is not a string ("+typeName(kv)+")"))
		}
		h.set(key, e.expr(s, x.Vals[i]))
	}
	return h
}

// typeRef evaluates a capitalized name with optional parameters: a data
// type, or references to resources (File["/a"], Class[x]).
func (e *evaluator) typeRef(s *scope, x *syntax.TypeRef) any {
	name := x.Type
	switch {
	case name == "Class" || name == "Resource":
		if x.Titles == nil || name == "Resource" && len(x.Titles) < 2 {
			return e.dataType(s, x)
		}
	case isCoreType(name) || e.typeAlias(name) != nil:
		return e.dataType(s, x)
	case x.Titles == nil:
		return &ptype{name: catalog.CapitalizeType(name)} // a resource type: File
	}
	typ := catalog.CapitalizeType(name)
	titles := x.Titles
	if typ == "Resource" {
		typ = catalog.CapitalizeType(toString(e.expr(s, titles[0])))
		titles = titles[1:]
	}
	var out []any
	for _, tn := range titles {
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

func isCoreType(name string) bool {
	_, ok := coreTypes[name]
	return ok
}

func (e *evaluator) access(s *scope, x *syntax.Access) any {
	v := e.expr(s, x.X)
	keys := make([]any, len(x.Index))
	for i, k := range x.Index {
		keys[i] = e.expr(s, k)
	}
	switch c := v.(type) {
	case []any:
		return e.slice(x.P, c, keys, len(c), func(i, n int) any {
			if n < 0 {
				return c[i]
			}
			return append([]any{}, c[i:i+n]...)
		})
	case string:
		r := []rune(c)
		return e.slice(x.P, nil, keys, len(r), func(i, n int) any {
			if n < 0 {
				return string(r[i])
			}
			return string(r[i : i+n])
		})
	case *hash:
		if len(keys) != 1 {
			out := []any{}
			for _, k := range keys {
				if hv, ok := c.m[toString(k)]; ok {
					out = append(out, hv)
				}
			}
			return out
		}
		k, ok := keys[0].(string)
		if !ok {
			return nil
		}
		if hv, ok := c.m[k]; ok {
			return hv
		}
		if c == e.top.vars["facts"] {
			hv, _ := e.factValue(x.P, k)
			return hv
		}
		return nil
	case *ptype:
		panic(syntax.Unsupported(x.P, "parameters on the type value "+c.String()))
	case nil:
		e.fail(x.P, "Operator '[]' is not applicable to an Undef Value")
	}
	e.fail(x.P, "Operator '[]' is not applicable to %s", typeName(v))
	return nil
}

// slice implements [index] and [start, count] on arrays and strings
// (negative positions count from the end; out of range gives undef, or
// an empty slice).
func (e *evaluator) slice(p syntax.Pos, _ []any, keys []any, n int, at func(i, cnt int) any) any {
	if len(keys) == 0 || len(keys) > 2 {
		e.fail(p, "Operator '[]' expects one or two arguments, got %d", len(keys))
	}
	i, ok := keys[0].(int64)
	if !ok {
		e.fail(p, "an index must be an Integer, got %s", typeName(keys[0]))
	}
	if i < 0 {
		i += int64(n)
	}
	if len(keys) == 1 {
		if i < 0 || i >= int64(n) {
			return nil
		}
		return at(int(i), -1)
	}
	cnt, ok := keys[1].(int64)
	if !ok {
		e.fail(p, "a count must be an Integer, got %s", typeName(keys[1]))
	}
	if i < 0 {
		cnt += i
		i = 0
	}
	if cnt < 0 {
		cnt += int64(n) - i + 1
	}
	if i > int64(n) {
		i = int64(n)
	}
	if cnt < 0 {
		cnt = 0
	}
	if i+cnt > int64(n) {
		cnt = int64(n) - i
	}
	return at(int(i), int(cnt))
}

func (e *evaluator) unary(s *scope, x *syntax.Unary) any {
	v := e.expr(s, x.X)
	switch x.Op {
	case "!":
		return !truthy(v)
	case "*":
		return v // a splat outside an array or call passes the value
	}
	switch n := v.(type) {
	case int64:
		return -n
	case float64:
		return -n
	case string:
		if f, ok := e.toNumber(n); ok {
			return e.arith(x.P, "-", int64(0), f)
		}
	}
	e.fail(x.P, "Operator '-' is not applicable to %s", typeName(v))
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
		return e.matchOp(s, x, l, r) == (x.Op == "=~")
	case "in":
		return e.in(x.P, l, r)
	case "<", ">", "<=", ">=":
		return e.compare(x.P, x.Op, l, r)
	case "<<":
		if arr, ok := l.([]any); ok {
			e.checkElements(x.P, len(arr)+1)
			return append(append([]any{}, arr...), r)
		}
	case "+":
		if la, ok := l.([]any); ok {
			switch ra := r.(type) {
			case []any:
				e.checkElements(x.P, len(la)+len(ra))
				return append(append([]any{}, la...), ra...)
			case *hash:
				e.checkElements(x.P, len(la)+len(ra.keys))
				out := append([]any{}, la...)
				for _, k := range ra.keys {
					out = append(out, []any{k, ra.m[k]})
				}
				return out
			}
			e.checkElements(x.P, len(la)+1)
			return append(append([]any{}, la...), r)
		}
		if lh, ok := l.(*hash); ok {
			return e.hashPlus(x.P, lh, r)
		}
	case "-":
		if la, ok := l.([]any); ok {
			return arrayMinus(la, r)
		}
		if lh, ok := l.(*hash); ok {
			return hashMinus(lh, r)
		}
	}
	return e.arith(x.P, x.Op, l, r)
}

func (e *evaluator) hashPlus(p syntax.Pos, lh *hash, r any) any {
	out := lh.copy()
	switch rh := r.(type) {
	case *hash:
		for _, k := range rh.keys {
			out.set(k, rh.m[k])
		}
	case []any:
		if len(rh) == 2 {
			if k, ok := rh[0].(string); ok {
				out.set(k, rh[1])
				return out
			}
		}
		e.fail(p, "Operator '+' on a Hash needs a Hash or a [key, value] pair")
	default:
		e.fail(p, "Operator '+' is not applicable to a Hash and %s", typeName(r))
	}
	return out
}

func arrayMinus(la []any, r any) any {
	rem, ok := r.([]any)
	if !ok {
		if rh, isHash := r.(*hash); isHash {
			rem = nil
			for _, k := range rh.keys {
				rem = append(rem, []any{k, rh.m[k]})
			}
		} else {
			rem = []any{r}
		}
	}
	out := []any{}
	for _, v := range la {
		keep := true
		for _, w := range rem {
			if equal(v, w) {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, v)
		}
	}
	return out
}

func hashMinus(lh *hash, r any) any {
	out := lh.copy()
	switch x := r.(type) {
	case *hash:
		for _, k := range x.keys {
			out.delete(k)
		}
	case []any:
		for _, k := range x {
			out.delete(toString(k))
		}
	default:
		out.delete(toString(r))
	}
	return out
}

// matchOp implements =~ against a regexp, a pattern string or a type.
func (e *evaluator) matchOp(s *scope, x *syntax.Binary, l, r any) bool {
	var re *regexp.Regexp
	switch p := r.(type) {
	case *regexp.Regexp:
		re = p
	case string:
		re = e.regexp(x.P, p)
	case *ptype:
		return e.isInstance(x.P, l, p)
	default:
		e.fail(x.P, "operator '%s' needs a Regexp, a String or a Type on the right, got %s", x.Op, typeName(r))
	}
	str, ok := l.(string)
	if !ok {
		e.fail(x.P, "operator '%s' needs a String on the left, got %s", x.Op, typeName(l))
	}
	m := re.FindStringSubmatch(str)
	if m != nil {
		setCaptures(s, m)
	}
	return m != nil
}

func (e *evaluator) in(p syntax.Pos, l, r any) bool {
	test := func(v any) bool {
		switch lx := l.(type) {
		case *regexp.Regexp:
			sv, ok := v.(string)
			return ok && lx.MatchString(sv)
		case *ptype:
			return e.isInstance(p, v, lx)
		}
		return equal(l, v)
	}
	switch c := r.(type) {
	case string:
		switch lx := l.(type) {
		case string:
			return strings.Contains(strings.ToLower(c), strings.ToLower(lx))
		case *regexp.Regexp:
			return lx.MatchString(c)
		}
		return false
	case []any:
		for _, el := range c {
			if test(el) {
				return true
			}
		}
		return false
	case *hash:
		for _, k := range c.keys {
			if test(k) {
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
	switch {
	case lok && rok:
		c = strings.Compare(strings.ToLower(ls), strings.ToLower(rs))
	default:
		a, okA := numeric(l)
		b, okB := numeric(r)
		if !okA || !okB {
			e.fail(p, "Comparison of: %s %s %s, is not possible", typeName(l), op, typeName(r))
		}
		switch {
		case a < b:
			c = -1
		case a > b:
			c = 1
		}
	}
	return ordered(op, c)
}

// ordered reports whether a comparison's result c (-1, 0 or 1) satisfies
// the operator op: <, >, <= or >=.
func ordered(op string, c int) bool {
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

// toNumber converts a numeric string the way Puppet's arithmetic does
// (0x hex, leading-zero octal, decimal, float).
func (e *evaluator) toNumber(s string) (any, bool) {
	t := strings.TrimSpace(s)
	if i, err := strconv.ParseInt(t, 0, 64); err == nil {
		return i, true
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil && !strings.ContainsAny(t, "xXpP_") {
		return f, true
	}
	return nil, false
}

// arith implements + - * / % << >> on numbers (numeric strings are
// converted), with Ruby's semantics: integer division and modulo round
// toward negative infinity, integers stay within 64 bits.
func (e *evaluator) arith(p syntax.Pos, op string, l, r any) any {
	conv := func(v any) any {
		if s, ok := v.(string); ok {
			if n, ok := e.toNumber(s); ok {
				return n
			}
		}
		return v
	}
	l, r = conv(l), conv(r)
	li, lInt := l.(int64)
	ri, rInt := r.(int64)
	if lInt && rInt {
		return e.intArith(p, op, li, ri)
	}
	lf, ok1 := numeric(l)
	rf, ok2 := numeric(r)
	if !ok1 || !ok2 || op == "<<" || op == ">>" {
		e.fail(p, "Operator '%s' is not applicable to %s and %s", op, typeName(l), typeName(r))
	}
	if op == "/" && rf == 0 {
		e.fail(p, "division by 0")
	}
	if f, ok := floatArith(op, lf, rf); ok {
		return f
	}
	e.fail(p, "Operator '%%' is not applicable to Float values")
	return nil
}

// floatArith applies + - * or / to two floats (Puppet and Ruby alike);
// it reports false for any other operator.
func floatArith(op string, a, b float64) (float64, bool) {
	switch op {
	case "+":
		return a + b, true
	case "-":
		return a - b, true
	case "*":
		return a * b, true
	case "/":
		return a / b, true
	}
	return 0, false
}

func (e *evaluator) intArith(p syntax.Pos, op string, a, b int64) any {
	var z big.Int
	x, y := big.NewInt(a), big.NewInt(b)
	switch op {
	case "+":
		z.Add(x, y)
	case "-":
		z.Sub(x, y)
	case "*":
		z.Mul(x, y)
	case "/", "%":
		if b == 0 {
			e.fail(p, "division by 0")
		}
		var m big.Int
		z.DivMod(x, y, &m) // Euclidean: fix up to Ruby's floored division
		if m.Sign() != 0 && b < 0 {
			z.Sub(&z, big.NewInt(1))
			m.Add(&m, y)
		}
		if op == "%" {
			z.Set(&m)
		}
	case "<<", ">>":
		if b < 0 {
			b, op = -b, map[string]string{"<<": ">>", ">>": "<<"}[op]
		}
		if b > 64 {
			b = 64
		}
		if op == "<<" {
			z.Lsh(x, uint(b))
		} else {
			z.Rsh(x, uint(b))
		}
	}
	if !z.IsInt64() {
		e.fail(p, "the result of %d %s %d is outside of the 64 bit range", a, op, b)
	}
	return z.Int64()
}
