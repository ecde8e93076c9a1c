package eval

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Values are nil (undef), string, int64, float64, bool, []any, *hash,
// ref, defaultValue, *regexp.Regexp, *ptype (a data type), sensitive,
// *deferred and *lambdaValue.

// A ref is a resource reference value.
type ref struct{ Type, Title string }

func (r ref) String() string { return r.Type + "[" + r.Title + "]" }

type defaultValue struct{}

// A hash keeps Puppet's insertion order.
type hash struct {
	keys []string
	m    map[string]any
}

func newHash() *hash { return &hash{m: map[string]any{}} }

func (h *hash) set(k string, v any) {
	if _, ok := h.m[k]; !ok {
		h.keys = append(h.keys, k)
	}
	h.m[k] = v
}

func (h *hash) get(k string) (any, bool) {
	v, ok := h.m[k]
	return v, ok
}

func (h *hash) delete(k string) {
	if _, ok := h.m[k]; !ok {
		return
	}
	delete(h.m, k)
	for i, x := range h.keys {
		if x == k {
			h.keys = append(h.keys[:i:i], h.keys[i+1:]...)
			break
		}
	}
}

func (h *hash) copy() *hash {
	out := &hash{keys: append([]string(nil), h.keys...), m: make(map[string]any, len(h.m))}
	for k, v := range h.m {
		out.m[k] = v
	}
	return out
}

// A sensitive value hides its content from logs and strings; in a
// resource parameter it marks the parameter sensitive.
type sensitive struct{ v any }

// A deferred value is a function call the agent makes at apply time.
type deferred struct {
	name string
	args []any
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
	case *ptype:
		return "Type"
	case sensitive:
		return "Sensitive"
	case *deferred:
		return "Deferred"
	case *lambdaValue:
		return "Callable"
	case defaultValue:
		return "Default"
	}
	return fmt.Sprintf("%T", v)
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
	checkTextLen(v)
	return plainText(v)
}

// plainText is toString without the check of the text's length.
func plainText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return formatFloat(x)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		parts := make([]string, len(x))
		n := 0
		for i, el := range x {
			parts[i] = part(&n, plainText(el))
		}
		return joinText("[", parts, ", ", "]")
	case *hash:
		parts := make([]string, len(x.keys))
		n := 0
		for i, k := range x.keys {
			parts[i] = part(&n, k+" => "+plainText(x.m[k]))
		}
		return joinText("{", parts, ", ", "}")
	case ref:
		return x.String()
	case *regexp.Regexp:
		return "/" + reSource(x) + "/"
	case *ptype:
		return x.String()
	case sensitive:
		return "Sensitive [value redacted]"
	case defaultValue:
		return "default"
	}
	return fmt.Sprint(v)
}

// formatFloat renders a float as Ruby's Float#to_s: always with a
// fraction or an exponent.
func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case math.IsNaN(f):
		return "NaN"
	}
	// As Ruby's Float#to_s: the shortest digits that read back the same,
	// in exponent form (1.0e+15, 1.0e-05) outside 1e-4 <= |f| < 1e15.
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	if e, _ := strconv.Atoi(exp); f != 0 && (e < -4 || e >= 15) {
		if !strings.Contains(mant, ".") {
			mant += ".0"
		}
		return mant + "e" + exp
	}
	s = strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// quoted renders a value as String() does inside a collection: strings in
// single quotes.
func quoted(v any) string {
	checkTextLen(v)
	return quotedText(v)
}

// quotedText is quoted without the check of the text's length.
func quotedText(v any) string {
	switch x := v.(type) {
	case string:
		return "'" + strings.ReplaceAll(strings.ReplaceAll(x, `\`, `\\`), "'", `\'`) + "'"
	case []any:
		parts := make([]string, len(x))
		n := 0
		for i, el := range x {
			parts[i] = part(&n, quotedText(el))
		}
		return joinText("[", parts, ", ", "]")
	case *hash:
		parts := make([]string, len(x.keys))
		n := 0
		for i, k := range x.keys {
			parts[i] = part(&n, quotedText(k)+" => "+quotedText(x.m[k]))
		}
		return joinText("{", parts, ", ", "}")
	case nil:
		return "undef"
	}
	return plainText(v)
}

// toParam converts a value to its catalog form: references become
// strings, hashes maps, deferred values rich data. A value whose form
// would be larger than the engine holds panics with tooLarge.
func toParam(v any) any {
	var b paramBudget
	return b.toParam(v)
}

func (b *paramBudget) toParam(v any) any {
	switch x := v.(type) {
	case string:
		b.spend(16 + len(x))
		return v
	case ref:
		b.spend(16)
		return x.String()
	case []any:
		b.spend(24 + 16*len(x))
		out := make([]any, len(x))
		for i, el := range x {
			out[i] = b.toParam(el)
		}
		return out
	case *hash:
		b.spend(48 + 32*len(x.keys))
		m := make(map[string]any, len(x.keys))
		for _, k := range x.keys {
			b.spend(len(k))
			m[k] = b.toParam(x.m[k])
		}
		return m
	case *regexp.Regexp:
		b.spend(16)
		return "/" + reSource(x) + "/"
	case sensitive:
		return b.toParam(x.v)
	case *deferred:
		b.spend(64 + 16*len(x.args))
		args := make([]any, len(x.args))
		for i, a := range x.args {
			args[i] = b.toParam(a)
		}
		return map[string]any{"__ptype": "Deferred", "name": x.name, "arguments": args}
	case *ptype:
		b.spend(16)
		return x.String()
	case defaultValue:
		b.spend(16)
		return "default"
	}
	b.spend(16)
	return v
}

// equal is Puppet's ==: strings compare case-insensitively, numbers by
// value, collections element by element.
func equal(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && strings.EqualFold(x, y)
	case int64, float64:
		fa, _ := numeric(a)
		fb, ok := numeric(b)
		return ok && fa == fb
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, equal)
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
	case *regexp.Regexp:
		y, ok := b.(*regexp.Regexp)
		return ok && reSource(x) == reSource(y)
	case *ptype:
		y, ok := b.(*ptype)
		return ok && x.String() == y.String()
	case sensitive:
		return false
	}
	return a == b
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

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// fromJSON converts decoded JSON (or Go literal) values to evaluator values.
func fromJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		h := newHash()
		for _, k := range sortedKeys(x) {
			h.set(k, fromJSON(x[k]))
		}
		return h
	case []any:
		out := make([]any, len(x))
		for i, el := range x {
			out[i] = fromJSON(el)
		}
		return out
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
	case int:
		return int64(x)
	}
	return v
}

// reSource is the pattern of a regexp as written in Puppet.
func reSource(re *regexp.Regexp) string { return strings.TrimPrefix(re.String(), "(?m)") }
