package eval

// Ruby values compared, ordered and written as Ruby does (to_s,
// inspect, ==, <=>), for the templates.

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// rubyToS is Ruby's to_s (what <%= %> writes).
func rubyToS(v any) string {
	switch x := v.(type) {
	case nil, string, int64, float64, bool:
		return toString(v) // Puppet interpolates these as Ruby writes them
	case rsym:
		return string(x)
	case rclass:
		return string(x)
	case rmatchData:
		return rubyToS(x.groups[0])
	case rrange:
		op := ".."
		if x.excl {
			op = "..."
		}
		return strconv.FormatInt(x.lo, 10) + op + strconv.FormatInt(x.hi, 10)
	}
	return rubyInspectValue(v)
}

// rubyInspectValue is Ruby's inspect.
func rubyInspectValue(v any) string { return rubyInspect(v, map[any]bool{}) }

// rubySymbolWord is a symbol that inspect writes without quotes.
var rubySymbolWord = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*[?!]?$`)

// rubyInspect is inspect within the arrays and hashes open: one that
// holds itself is written [...] or {...} inside, as Ruby does.
func rubyInspect(v any, open map[any]bool) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case string:
		return rubyQuote(x)
	case rsym:
		if rubySymbolWord.MatchString(string(x)) {
			return ":" + string(x)
		}
		return ":" + rubyQuote(string(x))
	case *rarray:
		if open[x] {
			return "[...]"
		}
		open[x] = true
		defer delete(open, x)
		parts := make([]string, len(x.v))
		n := 0
		for i, el := range x.v {
			parts[i] = part(&n, rubyInspect(el, open))
		}
		return joinText("[", parts, ", ", "]")
	case *rhash:
		if open[x] {
			return "{...}"
		}
		open[x] = true
		defer delete(open, x)
		parts := make([]string, len(x.keys))
		n := 0
		for i, k := range x.keys {
			parts[i] = part(&n, rubyInspect(k, open)+"=>"+rubyInspect(x.m[keyOf(k)], open))
		}
		return joinText("{", parts, ", ", "}")
	case *regexp.Regexp:
		return "/" + reSource(x) + "/"
	case rmatchData:
		return x.inspect()
	case rscopeHash:
		panic(syntax.Unsupported(x.p, "Ruby in a template: scope.to_hash as a whole"))
	}
	return rubyToS(v)
}

// rubyQuote quotes a string as String#inspect does.
func rubyQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i, c := range s {
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case 27:
			b.WriteString(`\e`)
		case '#':
			if i+1 < len(s) && (s[i+1] == '{' || s[i+1] == '$' || s[i+1] == '@') {
				b.WriteString(`\#`)
			} else {
				b.WriteByte('#')
			}
		default:
			if c < 0x20 || c == 0x7f {
				b.WriteString(`\x` + strings.ToUpper(strconv.FormatInt(int64(c)+0x100, 16)[1:]))
			} else {
				b.WriteRune(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// rEqual is Ruby's ==.
func rEqual(a, b any) bool { return rEqualIn(a, b, map[[2]any]bool{}) }

// rEqualIn is == within the pairs of arrays or hashes being compared: a
// pair met again (values that hold themselves) is equal, as in Ruby.
func rEqualIn(a, b any, open map[[2]any]bool) bool {
	switch x := a.(type) {
	case int64, float64:
		fa, _ := numeric(a)
		fb, ok := numeric(b)
		return ok && fa == fb
	case *rarray, *rhash:
		pair := [2]any{a, b}
		if a == b || open[pair] {
			return true
		}
		open[pair] = true
		defer delete(open, pair)
		eq := func(v, w any) bool { return rEqualIn(v, w, open) }
		if xa, ok := x.(*rarray); ok {
			y, ok := b.(*rarray)
			return ok && slices.EqualFunc(xa.v, y.v, eq)
		}
		xh := x.(*rhash)
		y, ok := b.(*rhash)
		if !ok || len(xh.keys) != len(y.keys) {
			return false
		}
		for k, v := range xh.m {
			w, ok := y.m[k]
			if !ok || !eq(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

// rCompare is Ruby's <=>; ok is false when the values do not compare.
func rCompare(a, b any) (int, bool) {
	if fa, ok := numeric(a); ok {
		fb, ok := numeric(b)
		if !ok || math.IsNaN(fa) || math.IsNaN(fb) {
			return 0, false
		}
		switch {
		case fa < fb:
			return -1, true
		case fa > fb:
			return 1, true
		}
		return 0, true
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return strings.Compare(x, y), ok
	case rsym:
		y, ok := b.(rsym)
		return strings.Compare(string(x), string(y)), ok
	case *rarray:
		y, ok := b.(*rarray)
		if !ok {
			return 0, false
		}
		for i := 0; i < len(x.v) && i < len(y.v); i++ {
			if c, ok := rCompare(x.v[i], y.v[i]); !ok || c != 0 {
				return c, ok
			}
		}
		return len(x.v) - len(y.v), true
	}
	return 0, false
}

// rSort sorts values with <=>, refusing values that do not compare.
func (r *rctx) rSort(p syntax.Pos, vals []any, key func(any) any) []any {
	out := append([]any{}, vals...)
	bad := false
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if key != nil {
			a, b = key(a), key(b)
		}
		c, ok := rCompare(a, b)
		if !ok {
			bad = true
		}
		return c < 0
	})
	if bad {
		r.fail(p, "sorting values that do not compare")
	}
	return out
}

func rubyClass(v any) string {
	switch v.(type) {
	case nil:
		return "NilClass"
	case bool:
		if v.(bool) {
			return "TrueClass"
		}
		return "FalseClass"
	case int64:
		return "Integer"
	case float64:
		return "Float"
	case string:
		return "String"
	case rsym:
		return "Symbol"
	case *rarray:
		return "Array"
	case *rhash:
		return "Hash"
	}
	return "Object"
}

func rIsA(v any, c rclass) bool {
	cls := rubyClass(v)
	switch c {
	case "Fixnum":
		return cls == "Integer"
	case "Numeric":
		return cls == "Integer" || cls == "Float"
	}
	return cls == string(c)
}
