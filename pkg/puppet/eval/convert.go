package eval

import (
	"fmt"
	"math"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// newValue implements a type's new function: Integer("0x1f"), String(x),
// Sensitive(x), Deferred("f", [args]) ...
func (e *evaluator) newValue(s *scope, c *syntax.Call) any {
	if c.Lambda != nil {
		panic(syntax.Unsupported(c.P, c.Name+".new with a lambda"))
	}
	args := make([]any, len(c.Args))
	for i, a := range c.Args {
		args[i] = e.expr(s, a)
	}
	x := &fcall{e: e, s: s, c: c, args: args}
	switch c.Name {
	case "Integer":
		x.arity(1, 2)
		return x.toInteger()
	case "Float":
		x.arity(1, 1)
		return x.toFloat()
	case "Numeric":
		x.arity(1, 1)
		return x.toNumeric()
	case "String":
		x.arity(1, 1)
		return x.toStringValue(args[0], true)
	case "Boolean":
		x.arity(1, 1)
		return x.toBoolean()
	case "Array":
		x.arity(1, 2)
		return x.toArray()
	case "Hash":
		x.arity(1, 1)
		return x.toHash()
	case "Sensitive":
		x.arity(1, 1)
		if sv, ok := args[0].(sensitive); ok {
			return sv
		}
		return sensitive{v: args[0]}
	case "Deferred":
		x.arity(1, 2)
		d := &deferred{name: x.str(0)}
		if len(args) == 2 {
			d.args = x.array(1)
		}
		return d
	case "Regexp":
		x.arity(1, 1)
		return e.regexp(c.P, x.str(0))
	}
	panic(syntax.Unsupported(c.P, "creating a "+c.Name+" with new"))
}

func (x *fcall) toInteger() any {
	radix := 0
	if len(x.args) == 2 && x.args[1] != "default" {
		switch r, _ := x.args[1].(int64); r {
		case 2, 8, 10, 16:
			radix = int(r)
		default:
			if _, isInt := x.args[1].(int64); isInt {
				x.fail("Illegal radix: %d, expected 2, 8, 10, 16, or default", r)
			}
			x.unsupported("with a radix of " + typeName(x.args[1]))
		}
	}
	switch v := x.args[0].(type) {
	case int64:
		return v
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) >= 1<<63 {
			x.fail("Integer(): cannot convert %v", v)
		}
		return int64(v)
	case bool:
		return boolInt(v)
	case string:
		return x.integerOfString(v, radix)
	}
	x.fail("Integer(): cannot convert %s", typeName(x.args[0]))
	return nil
}

func (x *fcall) toNumeric() any {
	switch v := x.args[0].(type) {
	case int64, float64:
		return v
	case bool:
		return boolInt(v)
	case string:
		return x.numericOfString(v)
	}
	x.fail("%s(): cannot convert %s", x.c.Name, typeName(x.args[0]))
	return nil
}

func (x *fcall) toFloat() any {
	switch v := x.args[0].(type) {
	case float64:
		return v
	case int64:
		return float64(v)
	case bool:
		return float64(boolInt(v))
	case string:
		return x.floatOfString(v)
	}
	x.fail("Float(): cannot convert %s", typeName(x.args[0]))
	return nil
}

// toStringValue is String.new with its default formats: floats with %f,
// strings inside collections quoted.
func (x *fcall) toStringValue(v any, top bool) string {
	if top {
		checkTextLen(v)
	}
	switch c := v.(type) {
	case nil:
		if top {
			return ""
		}
		return "undef"
	case string:
		if top {
			return c
		}
		return quoted(c)
	case int64, bool:
		return toString(c)
	case float64:
		if !top {
			// in a collection, as Ruby's to_s writes it
			return toString(c)
		}
		return fmt.Sprintf("%f", c)
	case []any:
		parts := make([]string, len(c))
		n := 0
		for i, el := range c {
			parts[i] = part(&n, x.toStringValue(el, false))
		}
		return joinText("[", parts, ", ", "]")
	case *hash:
		parts := make([]string, len(c.keys))
		n := 0
		for i, k := range c.keys {
			parts[i] = part(&n, quoted(k)+" => "+x.toStringValue(c.m[k], false))
		}
		return joinText("{", parts, ", ", "}")
	case sensitive:
		return toString(c)
	}
	x.unsupported("of " + typeName(v))
	return ""
}

func (x *fcall) toBoolean() any {
	switch v := x.args[0].(type) {
	case bool:
		return v
	case int64:
		return v != 0
	case float64:
		return v != 0
	case string:
		switch strings.ToLower(v) {
		case "true", "yes", "y":
			return true
		case "false", "no", "n", "":
			return false
		}
		x.fail("The string '%s' cannot be converted to Boolean", v)
	}
	x.fail("Boolean(): cannot convert %s", typeName(x.args[0]))
	return nil
}

func (x *fcall) toArray() any {
	wrap := len(x.args) == 2 && truthy(x.args[1])
	switch v := x.args[0].(type) {
	case []any:
		return v
	case *hash:
		if wrap {
			return []any{v}
		}
		out := []any{}
		for _, k := range v.keys {
			out = append(out, []any{k, v.m[k]})
		}
		return out
	}
	if wrap {
		return []any{x.args[0]}
	}
	x.unsupported("of " + typeName(x.args[0]))
	return nil
}

func (x *fcall) toHash() any {
	switch v := x.args[0].(type) {
	case *hash:
		return v
	case []any:
		out := newHash()
		pairs := true
		for _, el := range v {
			if p, ok := el.([]any); !ok || len(p) != 2 {
				pairs = false
			}
		}
		if pairs {
			for _, el := range v {
				p := el.([]any)
				k, ok := p[0].(string)
				if !ok {
					x.unsupported("with keys that are not strings")
				}
				out.set(k, p[1])
			}
			return out
		}
		if len(v)%2 != 0 {
			x.fail("Hash(): an odd number of elements")
		}
		for i := 0; i < len(v); i += 2 {
			k, ok := v[i].(string)
			if !ok {
				x.unsupported("with keys that are not strings")
			}
			out.set(k, v[i+1])
		}
		return out
	case nil:
		return newHash()
	}
	x.unsupported("of " + typeName(x.args[0]))
	return nil
}

// boolInt converts a Boolean to Integer as Integer() and Numeric() do.
func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
