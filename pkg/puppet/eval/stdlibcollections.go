package eval

// stdlib's functions on hashes and arrays: merge, delete, concat, member
// and the like.

import (
	"strings"
)

func flatStrings(v any) []string {
	var out []string
	switch t := v.(type) {
	case []any:
		for _, el := range t {
			out = append(out, flatStrings(el)...)
		}
	default:
		out = append(out, toString(t))
	}
	return out
}

func mergeFn(x *fcall) any {
	if x.lambda != nil {
		x.unsupported("with a lambda")
	}
	out := newHash()
	for _, h := range x.mergedHashes() {
		for _, k := range h.keys {
			out.set(k, h.m[k])
		}
	}
	return out
}

func deepMergeFn(x *fcall) any {
	out := newHash()
	for _, h := range x.mergedHashes() {
		out = deepMerge(out, h)
	}
	return out
}

// mergedHashes checks the arguments of merge() and deep_merge(): at
// least two, each a Hash, undef or "" (which are left out).
func (x *fcall) mergedHashes() []*hash {
	if len(x.args) < 2 {
		x.fail("%s(): wrong number of arguments (%d; must be at least 2)", x.c.Name, len(x.args))
	}
	var out []*hash
	for _, a := range x.args {
		switch h := a.(type) {
		case nil:
		case string:
			if h != "" {
				x.fail("%s: unexpected argument type String, only expects hash arguments", x.c.Name)
			}
		case *hash:
			out = append(out, h)
		default:
			x.fail("%s: unexpected argument type %s, only expects hash arguments", x.c.Name, typeName(a))
		}
	}
	return out
}

// deepMerge merges b into a: hashes recursively, other values replaced.
func deepMerge(a, b *hash) *hash {
	out := a.copy()
	for _, k := range b.keys {
		if ah, ok := out.m[k].(*hash); ok {
			if bh, ok := b.m[k].(*hash); ok {
				out.set(k, deepMerge(ah, bh))
				continue
			}
		}
		out.set(k, b.m[k])
	}
	return out
}

func deleteFn(x *fcall) any {
	x.arity(2, 2)
	items := x.args[1]
	var rem []any
	if l, ok := items.([]any); ok {
		rem = l
	} else {
		rem = []any{items}
	}
	switch c := x.args[0].(type) {
	case []any:
		out := []any{}
		for _, v := range c {
			keep := true
			for _, r := range rem {
				if strictEqual(v, r) {
					keep = false
				}
			}
			if keep {
				out = append(out, v)
			}
		}
		return out
	case *hash:
		out := c.copy()
		for _, r := range rem {
			out.delete(toString(r))
		}
		return out
	case string:
		s := c
		for _, r := range rem {
			s = strings.ReplaceAll(s, toString(r), "")
		}
		return s
	}
	x.fail("delete(): First argument must be an Array, String, or Hash. Given %s", typeName(x.args[0]))
	return nil
}

func deleteUndefFn(x *fcall) any {
	x.arity(1, 1)
	switch x.args[0].(type) {
	case []any, *hash:
		return skipUndef(x.args[0])
	}
	x.fail("delete_undef_values(): expected an array or hash, got %s", typeName(x.args[0]))
	return nil
}

func deleteValuesFn(x *fcall) any {
	x.arity(2, 2)
	h := x.hash(0)
	out := newHash()
	for _, k := range h.keys {
		if !strictEqual(h.m[k], x.args[1]) {
			out.set(k, h.m[k])
		}
	}
	return out
}

func concatFn(x *fcall) any {
	if len(x.args) < 2 {
		x.fail("concat(): Wrong number of arguments given (%d for < 2)", len(x.args))
	}
	args := x.args3()
	first, ok := args[0].([]any)
	if !ok {
		x.fail("concat(): Requires array to work with")
	}
	out := append([]any{}, first...)
	for _, a := range args[1:] {
		if l, ok := a.([]any); ok {
			out = append(out, l...)
		} else {
			out = append(out, a)
		}
	}
	return out
}

func any2arrayFn(x *fcall) any {
	args := x.args3()
	switch {
	case len(args) == 0:
		return []any{}
	case len(args) > 1:
		return args
	}
	switch v := args[0].(type) {
	case []any:
		return v
	case string:
		if v == "" {
			return []any{}
		}
	case *hash:
		out := []any{}
		for _, k := range v.keys {
			out = append(out, k, v.m[k])
		}
		return out
	}
	return args
}

func hasKeyFn(x *fcall) any {
	x.arity(2, 2)
	args := x.args3()
	h, ok := args[0].(*hash)
	if !ok {
		x.fail("has_key(): expects the first argument to be a hash, got %s", typeName(args[0]))
	}
	k, ok := args[1].(string)
	if !ok {
		return false
	}
	_, found := h.m[k]
	if !found && h == x.e.top.vars["facts"] {
		_, found = x.e.factValue(x.c.P, k)
	}
	return found
}

func memberFn(x *fcall) any {
	x.arity(2, 2)
	arr, ok := x.args[0].([]any)
	if !ok {
		x.fail("member(): Requires array to work with")
	}
	items, isList := x.args[1].([]any)
	if !isList {
		items = []any{x.args[1]}
	}
	for _, it := range items {
		found := false
		for _, v := range arr {
			if strictEqual(v, it) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}
