package eval

import (
	"strings"
	"unicode"
)

// Iteration and collection functions of Puppet's core.
func init() {
	register(false, map[string]func(x *fcall) any{
		"each":   eachFn,
		"map":    mapFn,
		"filter": filterFn,
		"reduce": reduceFn,
		"any":    anyAllFn,
		"all":    anyAllFn,
		"with": func(x *fcall) any {
			return x.e.callLambda(x.c.P, x.needLambda(0, 100), x.args...)
		},
		"then": func(x *fcall) any {
			x.arity(1, 1)
			if x.args[0] == nil {
				return nil
			}
			return x.e.callLambda(x.c.P, x.needLambda(1, 1), x.args[0])
		},
		"lest": func(x *fcall) any {
			x.arity(1, 1)
			if x.args[0] != nil {
				return x.args[0]
			}
			return x.e.callLambda(x.c.P, x.needLambda(0, 0))
		},
		"keys": func(x *fcall) any {
			x.arity(1, 1)
			out := []any{}
			for _, k := range x.hash(0).keys {
				out = append(out, k)
			}
			return out
		},
		"values": func(x *fcall) any {
			x.arity(1, 1)
			h := x.hash(0)
			out := []any{}
			for _, k := range h.keys {
				out = append(out, h.m[k])
			}
			return out
		},
		"size": sizeFn, "length": sizeFn,
		"empty":   emptyFn,
		"flatten": flattenFn,
		"unique":  uniqueFn,
		"sort": func(x *fcall) any {
			x.arity(1, 1)
			if x.lambda != nil {
				x.unsupported("with a lambda")
			}
			return sortValues(x, x.array(0))
		},
		"reverse_each": func(x *fcall) any { x.unsupported(""); return nil },
		"upcase":       mapString(strings.ToUpper),
		"downcase":     mapString(strings.ToLower),
		"capitalize":   mapString(capitalize),
		"strip":        mapString(strings.TrimSpace),
		"lstrip":       mapString(func(s string) string { return strings.TrimLeftFunc(s, unicode.IsSpace) }),
		"rstrip":       mapString(func(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) }),
		"chomp": mapString(func(s string) string {
			if strings.HasSuffix(s, "\r\n") {
				return s[:len(s)-2]
			}
			return strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
		}),
		"abs": func(x *fcall) any {
			x.arity(1, 1)
			switch n := x.args[0].(type) {
			case int64:
				if n < 0 {
					return -n
				}
				return n
			case float64:
				if n < 0 {
					return -n
				}
				return n
			}
			x.unsupported("of " + typeName(x.args[0]))
			return nil
		},
	})
}

// An item is one thing an iteration visits, with its key.
type item struct{ key, val any }

// items lists what an iteration visits: array elements with their index,
// hash pairs, 0..n-1 for an integer, the characters of a string.
func (x *fcall) items(v any) ([]item, bool) {
	var out []item
	switch c := v.(type) {
	case []any:
		for i, el := range c {
			out = append(out, item{int64(i), el})
		}
	case *hash:
		for _, k := range c.keys {
			out = append(out, item{k, c.m[k]})
		}
		return out, true
	case int64:
		if c > maxElements {
			x.fail("%s() over %d numbers: more than the native engine visits (%d)", x.c.Name, c, maxElements)
		}
		for i := int64(0); i < c; i++ {
			out = append(out, item{i, i})
		}
	case string:
		for i, r := range []rune(c) {
			out = append(out, item{int64(i), string(r)})
		}
	default:
		x.fail("%s() cannot iterate over %s", x.c.Name, typeName(v))
	}
	return out, false
}

// visit calls the lambda for one item: with two parameters the index (or
// key) and the value, with one the value (a [key, value] pair for hashes).
func (x *fcall) visit(l *lambdaValue, it item, isHash bool) any {
	if len(l.l.Params) >= 2 {
		return x.e.callLambda(x.c.P, l, it.key, it.val)
	}
	if isHash {
		return x.e.callLambda(x.c.P, l, []any{it.key, it.val})
	}
	return x.e.callLambda(x.c.P, l, it.val)
}

func eachFn(x *fcall) any {
	x.arity(1, 1)
	l := x.needLambda(1, 2)
	items, isHash := x.items(x.args[0])
	iterating(func() {
		for _, it := range items {
			x.visit(l, it, isHash)
		}
	})
	return x.args[0]
}

func mapFn(x *fcall) any {
	x.arity(1, 1)
	l := x.needLambda(1, 2)
	items, isHash := x.items(x.args[0])
	out := []any{}
	iterating(func() {
		for _, it := range items {
			out = append(out, x.visit(l, it, isHash))
		}
	})
	return out
}

func filterFn(x *fcall) any {
	x.arity(1, 1)
	l := x.needLambda(1, 2)
	items, isHash := x.items(x.args[0])
	out, outHash := []any{}, newHash()
	iterating(func() {
		for _, it := range items {
			if truthy(x.visit(l, it, isHash)) {
				if isHash {
					outHash.set(it.key.(string), it.val)
				} else {
					out = append(out, it.val)
				}
			}
		}
	})
	if isHash {
		return outHash
	}
	return out
}

func reduceFn(x *fcall) any {
	x.arity(1, 2)
	l := x.needLambda(2, 2)
	items, isHash := x.items(x.args[0])
	var memo any
	start := 0
	if len(x.args) == 2 {
		memo = x.args[1]
	} else if len(items) > 0 {
		memo, start = items[0].val, 1
		if isHash {
			memo = []any{items[0].key, items[0].val}
		}
	}
	iterating(func() {
		for _, it := range items[start:] {
			v := it.val
			if isHash {
				v = []any{it.key, it.val}
			}
			memo = x.e.callLambda(x.c.P, l, memo, v)
		}
	})
	return memo
}

func anyAllFn(x *fcall) any {
	x.arity(1, 1)
	l := x.needLambda(1, 2)
	items, isHash := x.items(x.args[0])
	all := x.c.Name == "all"
	result := all
	iterating(func() {
		for _, it := range items {
			if truthy(x.visit(l, it, isHash)) != all {
				result = !all
				return
			}
		}
	})
	return result
}

func sizeFn(x *fcall) any {
	x.arity(1, 1)
	switch v := x.args[0].(type) {
	case string:
		return int64(len([]rune(v)))
	case []any:
		return int64(len(v))
	case *hash:
		return int64(len(v.keys))
	}
	x.fail("%s() expects a String, Array or Hash, got %s", x.c.Name, typeName(x.args[0]))
	return nil
}

func emptyFn(x *fcall) any {
	x.arity(1, 1)
	switch v := x.args[0].(type) {
	case nil:
		return true
	case string:
		return v == ""
	case []any:
		return len(v) == 0
	case *hash:
		return len(v.keys) == 0
	case int64, float64:
		return false
	}
	x.fail("empty() expects a String, Array, Hash or number, got %s", typeName(x.args[0]))
	return nil
}

func flattenFn(x *fcall) any {
	out := []any{}
	var walk func(v any)
	walk = func(v any) {
		if a, ok := v.([]any); ok {
			for _, el := range a {
				walk(el)
			}
			return
		}
		out = append(out, v)
		x.e.checkElements(x.c.P, len(out))
	}
	for _, a := range x.args {
		walk(a)
	}
	return out
}

func uniqueFn(x *fcall) any {
	x.arity(1, 1)
	if x.lambda != nil {
		x.unsupported("with a lambda")
	}
	var in []any
	switch v := x.args[0].(type) {
	case []any:
		in = v
	case string:
		x.unsupported("of a String")
	case *hash:
		x.unsupported("of a Hash")
	default:
		x.fail("unique() expects an Array, got %s", typeName(v))
	}
	out := []any{}
	for _, v := range in {
		dup := false
		for _, o := range out {
			if strictEqual(o, v) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, v)
		}
	}
	return out
}

// strictEqual compares values exactly (Ruby's eql?): types must agree,
// strings are case-sensitive.
func strictEqual(a, b any) bool {
	if typeName(a) != typeName(b) {
		return false
	}
	switch x := a.(type) {
	case string:
		return x == b.(string)
	case []any:
		y := b.([]any)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !strictEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case *hash:
		y := b.(*hash)
		if len(x.keys) != len(y.keys) {
			return false
		}
		for k, v := range x.m {
			w, ok := y.m[k]
			if !ok || !strictEqual(v, w) {
				return false
			}
		}
		return true
	}
	return equal(a, b)
}

func mapString(f func(string) string) func(x *fcall) any {
	return func(x *fcall) any {
		x.arity(1, 1)
		switch v := x.args[0].(type) {
		case string:
			return f(v)
		case []any:
			out := make([]any, len(v))
			for i, el := range v {
				s, ok := el.(string)
				if !ok {
					x.fail("%s() expects strings, got %s", x.c.Name, typeName(el))
				}
				out[i] = f(s)
			}
			return out
		}
		x.fail("%s() expects a String or an Array, got %s", x.c.Name, typeName(x.args[0]))
		return nil
	}
}

// capitalize upper-cases the first letter and lower-cases the rest, as
// Ruby's String#capitalize does.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	r := []rune(strings.ToLower(s))
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}
