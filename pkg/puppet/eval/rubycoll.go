package eval

import (
	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

func (r *rctx) arrayMethod(p syntax.Pos, a *rarray, name string, args []any, blk *rblock, env *renv, argc func(int, int)) any {
	each := func(f func(el any, i int) bool) {
		r.breakable(func() any {
			for i, el := range a.v {
				if !f(el, i) {
					break
				}
			}
			return nil
		})
	}
	switch name {
	case "each":
		if blk == nil {
			r.fail(p, "each without a block")
		}
		return r.breakable(func() any {
			for _, el := range a.v {
				r.yield(p, env, blk, el)
			}
			return a
		})
	case "each_with_index":
		return r.breakable(func() any {
			for i, el := range a.v {
				r.yield(p, env, blk, el, int64(i))
			}
			return a
		})
	case "map", "collect", "flat_map", "collect_concat":
		out := &rarray{}
		each(func(el any, _ int) bool {
			v := r.yield(p, env, blk, el)
			if inner, ok := v.(*rarray); ok && (name == "flat_map" || name == "collect_concat") {
				out.v = append(out.v, inner.v...)
			} else {
				out.v = append(out.v, v)
			}
			return true
		})
		return out
	case "select", "filter", "reject":
		out := &rarray{}
		each(func(el any, _ int) bool {
			if rtruthy(r.yield(p, env, blk, el)) == (name != "reject") {
				out.v = append(out.v, el)
			}
			return true
		})
		return out
	case "find", "detect":
		var found any
		each(func(el any, _ int) bool {
			if rtruthy(r.yield(p, env, blk, el)) {
				found = el
				return false
			}
			return true
		})
		return found
	case "any?", "all?", "none?":
		if blk == nil && len(args) == 0 {
			blk = &rblock{params: []string{"x"}, body: []*rnode{{kind: "ident", name: "x"}}}
		}
		result := name != "any?"
		each(func(el any, _ int) bool {
			t := rtruthy(r.yield(p, env, blk, el))
			switch {
			case name == "any?" && t:
				result = true
				return false
			case name == "all?" && !t, name == "none?" && t:
				result = false
				return false
			}
			return true
		})
		return result
	case "inject", "reduce":
		if len(args) > 1 || blk == nil {
			r.fail(p, name+" without a block")
		}
		var memo any
		start := 0
		if len(args) == 1 {
			memo = args[0]
		} else if len(a.v) > 0 {
			memo, start = a.v[0], 1
		}
		for _, el := range a.v[start:] {
			memo = r.yield(p, env, blk, memo, el)
		}
		return memo
	case "join":
		argc(0, 1)
		sep := ""
		if len(args) == 1 {
			sep = rubyToS(args[0])
		}
		flat := r.flatten(p, a)
		parts := make([]string, len(flat))
		for i, el := range flat {
			parts[i] = rubyToS(el)
		}
		return joinText("", parts, sep, "")
	case "sort":
		if blk != nil {
			r.fail(p, "sort with a block")
		}
		return &rarray{v: r.rSort(p, a.v, nil)}
	case "sort_by":
		return &rarray{v: r.rSort(p, a.v, func(v any) any { return r.yield(p, env, blk, v) })}
	case "uniq":
		out := &rarray{}
		for _, el := range a.v {
			dup := false
			for _, o := range out.v {
				if rEqual(o, el) && rubyClass(o) == rubyClass(el) {
					dup = true
				}
			}
			if !dup {
				out.v = append(out.v, el)
			}
		}
		return out
	case "flatten":
		argc(0, 0)
		return &rarray{v: r.flatten(p, a)}
	case "compact":
		out := &rarray{}
		for _, el := range a.v {
			if el != nil {
				out.v = append(out.v, el)
			}
		}
		return out
	case "reverse":
		return &rarray{v: reversed(a.v)}
	case "first", "last":
		argc(0, 1)
		if len(args) == 1 {
			n, _ := args[0].(int64)
			n = min(n, int64(len(a.v)))
			if name == "first" {
				return &rarray{v: append([]any{}, a.v[:n]...)}
			}
			return &rarray{v: append([]any{}, a.v[int64(len(a.v))-n:]...)}
		}
		if len(a.v) == 0 {
			return nil
		}
		if name == "first" {
			return a.v[0]
		}
		return a.v[len(a.v)-1]
	case "length", "size", "count":
		if blk != nil || len(args) > 0 {
			r.fail(p, name+" with a block or an argument")
		}
		return int64(len(a.v))
	case "empty?":
		return len(a.v) == 0
	case "include?", "member?":
		argc(1, 1)
		for _, el := range a.v {
			if rEqual(el, args[0]) {
				return true
			}
		}
		return false
	case "index":
		argc(1, 1)
		for i, el := range a.v {
			if rEqual(el, args[0]) {
				return int64(i)
			}
		}
		return nil
	case "min", "max":
		if len(a.v) == 0 {
			return nil
		}
		s := r.rSort(p, a.v, nil)
		if name == "min" {
			return s[0]
		}
		return s[len(s)-1]
	case "zip":
		out := &rarray{}
		for i, el := range a.v {
			row := &rarray{v: []any{el}}
			for _, o := range args {
				oa, ok := o.(*rarray)
				if !ok {
					r.fail(p, "zip with a non-array")
				}
				var v any
				if i < len(oa.v) {
					v = oa.v[i]
				}
				row.v = append(row.v, v)
			}
			out.v = append(out.v, row)
		}
		return out
	case "to_a", "dup", "clone", "entries":
		return &rarray{v: append([]any{}, a.v...)}
	case "push":
		a.v = append(a.v, args...)
		return a
	case "+", "-":
		argc(1, 1)
		return r.arith(p, name, a, args[0])
	case "[]":
		if rg, ok := args[0].(rrange); ok && len(args) == 1 {
			lo, n, in := rangeSlice(len(a.v), rg)
			if !in {
				return nil
			}
			return &rarray{v: append([]any{}, a.v[lo:lo+n]...)}
		}
		if len(args) == 1 {
			if i, ok := args[0].(int64); ok {
				if i < 0 {
					i += int64(len(a.v))
				}
				if i < 0 || i >= int64(len(a.v)) {
					return nil
				}
				return a.v[i]
			}
		}
		if len(args) == 2 {
			v := r.e.slice(p, nil, args, len(a.v), func(i, n int) any { return &rarray{v: append([]any{}, a.v[i:i+n]...)} })
			return v
		}
	case "to_h":
		h := newRHash()
		for _, el := range a.v {
			pair, ok := el.(*rarray)
			if !ok || len(pair.v) != 2 {
				r.fail(p, "to_h of an array that is not of pairs")
			}
			h.set(pair.v[0], pair.v[1])
		}
		return h
	case "each_slice":
		argc(1, 1)
		n, ok := args[0].(int64)
		if !ok || n <= 0 {
			r.fail(p, "each_slice of a non-positive size")
		}
		var slices []any
		for i := 0; i < len(a.v); i += int(n) {
			slices = append(slices, &rarray{v: append([]any{}, a.v[i:min(i+int(n), len(a.v))]...)})
		}
		if blk == nil {
			return &rarray{v: slices}
		}
		return r.arrayMethod(p, &rarray{v: slices}, "each", nil, blk, env, argc)
	}
	r.fail(p, "the method Array#"+name)
	return nil
}

func (r *rctx) hashMethod(p syntax.Pos, h *rhash, name string, args []any, blk *rblock, env *renv, argc func(int, int)) any {
	pairs := func() *rarray { return &rarray{v: r.elems(p, h)} }
	switch name {
	case "each", "each_pair":
		return r.breakable(func() any {
			for _, k := range h.keys {
				r.yield(p, env, blk, k, h.m[keyOf(k)])
			}
			return h
		})
	case "keys":
		return &rarray{v: append([]any{}, h.keys...)}
	case "values":
		out := &rarray{}
		for _, k := range h.keys {
			out.v = append(out.v, h.m[keyOf(k)])
		}
		return out
	case "[]", "fetch":
		argc(1, 2)
		v, ok := h.get(args[0])
		if !ok {
			if name == "fetch" {
				if len(args) == 2 {
					return args[1]
				}
				r.fail(p, "fetch of a missing key")
			}
			return h.def
		}
		return v
	case "key?", "has_key?", "include?", "member?":
		argc(1, 1)
		_, ok := h.get(args[0])
		return ok
	case "empty?":
		return len(h.keys) == 0
	case "length", "size", "count":
		if blk != nil {
			r.fail(p, "count with a block")
		}
		return int64(len(h.keys))
	case "to_a", "entries":
		return pairs()
	case "sort":
		return &rarray{v: r.rSort(p, pairs().v, nil)}
	case "sort_by", "map", "collect", "flat_map", "each_with_index", "find", "detect", "any?", "all?", "none?", "inject", "reduce", "min", "max":
		return r.arrayMethod(p, pairs(), name, args, blk, env, argc)
	case "select", "filter", "reject":
		out := newRHash()
		for _, k := range h.keys {
			v := h.m[keyOf(k)]
			if rtruthy(r.yield(p, env, blk, k, v)) == (name != "reject") {
				out.set(k, v)
			}
		}
		return out
	case "merge":
		out := newRHash()
		for _, k := range h.keys {
			out.set(k, h.m[keyOf(k)])
		}
		for _, a := range args {
			o, ok := a.(*rhash)
			if !ok {
				r.fail(p, "merge of a non-hash")
			}
			for _, k := range o.keys {
				out.set(k, o.m[keyOf(k)])
			}
		}
		return out
	case "dup", "clone", "to_h":
		out := newRHash()
		for _, k := range h.keys {
			out.set(k, h.m[keyOf(k)])
		}
		return out
	}
	r.fail(p, "the method Hash#"+name)
	return nil
}

// flatten returns the elements of a and of the arrays in it, at any depth
// (Array#flatten, and what Array#join writes). An array that holds itself
// is refused, as Ruby does.
func (r *rctx) flatten(p syntax.Pos, a *rarray) []any {
	var out []any
	open := map[*rarray]bool{}
	var walk func(a *rarray)
	walk = func(a *rarray) {
		if open[a] {
			r.fail(p, "flattening an array that holds itself")
		}
		open[a] = true
		for _, el := range a.v {
			if inner, ok := el.(*rarray); ok {
				walk(inner)
				continue
			}
			out = append(out, el)
			r.e.checkElements(p, len(out))
		}
		delete(open, a)
	}
	walk(a)
	return out
}
