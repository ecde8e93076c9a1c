package eval

import (
	"regexp"
	"sort"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// pureFuncs are Puppet's core data functions the native engine supports.
var pureFuncs = map[string]func(e *evaluator, c *syntax.Call, args []any) any{
	"upcase":     mapString(strings.ToUpper),
	"downcase":   mapString(strings.ToLower),
	"capitalize": mapString(func(s string) string { return capitalize(s) }),
	"strip":      mapString(strings.TrimSpace),
	"lstrip":     mapString(func(s string) string { return strings.TrimLeft(s, " \t\r\n") }),
	"rstrip":     mapString(func(s string) string { return strings.TrimRight(s, " \t\r\n") }),
	"join": func(e *evaluator, c *syntax.Call, args []any) any {
		e.arity(c, args, 1, 2)
		arr := e.array(c, args[0])
		sep := ""
		if len(args) == 2 {
			sep = toString(args[1])
		}
		parts := make([]string, len(arr))
		for i, v := range arr {
			parts[i] = toString(v)
		}
		return strings.Join(parts, sep)
	},
	"split": func(e *evaluator, c *syntax.Call, args []any) any {
		e.arity(c, args, 2, 2)
		var re *regexp.Regexp
		switch p := args[1].(type) {
		case *regexp.Regexp:
			re = p
		default:
			re = regexp.MustCompile(regexp.QuoteMeta(toString(p)))
		}
		out := []any{}
		for _, part := range re.Split(toString(args[0]), -1) {
			out = append(out, part)
		}
		for len(out) > 0 && out[len(out)-1] == "" {
			out = out[:len(out)-1]
		}
		return out
	},
	"size":   size,
	"length": size,
	"empty": func(e *evaluator, c *syntax.Call, args []any) any {
		e.arity(c, args, 1, 1)
		switch x := args[0].(type) {
		case nil:
			return true
		case string:
			return x == ""
		case []any:
			return len(x) == 0
		case *hash:
			return len(x.keys) == 0
		}
		return false
	},
	"keys": func(e *evaluator, c *syntax.Call, args []any) any {
		e.arity(c, args, 1, 1)
		out := []any{}
		for _, k := range e.hashArg(c, args[0]).keys {
			out = append(out, k)
		}
		return out
	},
	"values": func(e *evaluator, c *syntax.Call, args []any) any {
		e.arity(c, args, 1, 1)
		h := e.hashArg(c, args[0])
		out := []any{}
		for _, k := range h.keys {
			out = append(out, h.m[k])
		}
		return out
	},
	"flatten": func(e *evaluator, c *syntax.Call, args []any) any {
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
		}
		for _, a := range args {
			walk(a)
		}
		return out
	},
	"unique": func(e *evaluator, c *syntax.Call, args []any) any {
		e.arity(c, args, 1, 1)
		out := []any{}
		for _, v := range e.array(c, args[0]) {
			dup := false
			for _, o := range out {
				if equal(o, v) && typeName(o) == typeName(v) {
					dup = true
				}
			}
			if !dup {
				out = append(out, v)
			}
		}
		return out
	},
	"sort": func(e *evaluator, c *syntax.Call, args []any) any {
		e.arity(c, args, 1, 1)
		arr := append([]any{}, e.array(c, args[0])...)
		sort.SliceStable(arr, func(i, j int) bool {
			a, aok := numeric(arr[i])
			b, bok := numeric(arr[j])
			if aok && bok {
				return a < b
			}
			return toString(arr[i]) < toString(arr[j])
		})
		return arr
	},
}

func mapString(f func(string) string) func(e *evaluator, c *syntax.Call, args []any) any {
	return func(e *evaluator, c *syntax.Call, args []any) any {
		e.arity(c, args, 1, 1)
		switch x := args[0].(type) {
		case string:
			return f(x)
		case []any:
			out := make([]any, len(x))
			for i, v := range x {
				s, ok := v.(string)
				if !ok {
					e.fail(c.P, "%s() expects strings, got %s", c.Name, typeName(v))
				}
				out[i] = f(s)
			}
			return out
		}
		e.fail(c.P, "%s() expects a String or an Array, got %s", c.Name, typeName(args[0]))
		return nil
	}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func size(e *evaluator, c *syntax.Call, args []any) any {
	e.arity(c, args, 1, 1)
	switch x := args[0].(type) {
	case string:
		return int64(len([]rune(x)))
	case []any:
		return int64(len(x))
	case *hash:
		return int64(len(x.keys))
	}
	e.fail(c.P, "%s() expects a String, Array or Hash, got %s", c.Name, typeName(args[0]))
	return nil
}

func (e *evaluator) array(c *syntax.Call, v any) []any {
	a, ok := v.([]any)
	if !ok {
		e.fail(c.P, "%s() expects an Array, got %s", c.Name, typeName(v))
	}
	return a
}

func (e *evaluator) hashArg(c *syntax.Call, v any) *hash {
	h, ok := v.(*hash)
	if !ok {
		e.fail(c.P, "%s() expects a Hash, got %s", c.Name, typeName(v))
	}
	return h
}
