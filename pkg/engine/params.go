package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// DecodeParams sets the parameters of r (a pointer to a resource struct)
// from params, keyed by the names of the `lang` (or `yaml`) struct tags.
// Values are JSON-like (as encoding/json with UseNumber or yaml.v3 produce
// them) and are coerced to the declared field types; fields absent from
// params keep their value (the defaults). The error names the parameter and
// says what was got and what was wanted.
func DecodeParams(r any, params map[string]any) error {
	rv := reflect.ValueOf(r)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("resource is a %T, want a pointer to a struct", r)
	}
	sv := rv.Elem()
	ps := paramsOf(sv.Type())
	if ps.err != nil {
		return ps.err
	}
	// The keys in order, so that the first error is always the same one;
	// a resource's few keys are sorted on the stack.
	var buf [16]string
	keys := buf[:0]
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		f, ok := ps.byName[k]
		if !ok {
			return fmt.Errorf("unknown parameter %q%s", k, didYouMean(k, ps.byName))
		}
		if err := f.decode(sv, params[k]); err != nil {
			return fmt.Errorf("parameter %q: %v", k, err)
		}
	}
	return nil
}

func didYouMean(k string, idx map[string]*ParamField) string {
	best, bestD := "", 3
	for n := range idx {
		if d := graph.EditDistance(k, n); d < bestD || (d == bestD && n < best) {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// jsonKind names the type of a decoded JSON/YAML value as mcl would.
func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case string:
		return "str"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "int"
		}
		return "float"
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return "int"
	case float32, float64:
		return "float"
	case []any:
		return "list"
	case map[string]any, map[any]any:
		return "map"
	}
	return fmt.Sprintf("%T", v)
}

func wantType(t reflect.Type) string {
	s, err := MclType(t)
	if err != nil {
		return t.String()
	}
	return s
}

func mismatch(v any, t reflect.Type) error {
	return fmt.Errorf("got %s, want %s", jsonKind(v), wantType(t))
}

// assign sets dst from the decoded value v, coercing numbers.
func assign(dst reflect.Value, v any) error {
	t := dst.Type()
	if v == nil {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			dst.Set(reflect.Zero(t))
			return nil
		}
		return mismatch(v, t)
	}
	switch t.Kind() {
	case reflect.Pointer:
		p := reflect.New(t.Elem())
		if err := assign(p.Elem(), v); err != nil {
			return err
		}
		dst.Set(p)
		return nil
	case reflect.Interface:
		rv := reflect.ValueOf(v)
		if !rv.Type().AssignableTo(t) {
			return mismatch(v, t)
		}
		dst.Set(rv)
		return nil
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return mismatch(v, t)
		}
		dst.SetString(s)
		return nil
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return mismatch(v, t)
		}
		dst.SetBool(b)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := asInt(v)
		if !ok {
			return mismatch(v, t)
		}
		if dst.OverflowInt(n) {
			return fmt.Errorf("value %d overflows %s", n, t)
		}
		dst.SetInt(n)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := asInt(v)
		if !ok {
			return mismatch(v, t)
		}
		if n < 0 || dst.OverflowUint(uint64(n)) {
			return fmt.Errorf("value %d out of range for %s", n, t)
		}
		dst.SetUint(uint64(n))
		return nil
	case reflect.Float32, reflect.Float64:
		f, ok := asFloat(v)
		if !ok {
			return mismatch(v, t)
		}
		dst.SetFloat(f)
		return nil
	case reflect.Slice:
		return assignSlice(dst, v)
	case reflect.Map:
		return assignMap(dst, v)
	case reflect.Struct:
		m, ok := asMap(v)
		if !ok {
			return mismatch(v, t)
		}
		return DecodeParams(dst.Addr().Interface(), m)
	}
	return fmt.Errorf("unsupported field type %s", t)
}

func assignSlice(dst reflect.Value, v any) error {
	t := dst.Type()
	l, ok := v.([]any)
	if !ok {
		return mismatch(v, t)
	}
	out := reflect.MakeSlice(t, len(l), len(l))
	for i, e := range l {
		if err := assign(out.Index(i), e); err != nil {
			return fmt.Errorf("element %d: %v", i, err)
		}
	}
	dst.Set(out)
	return nil
}

func assignMap(dst reflect.Value, v any) error {
	t := dst.Type()
	m, ok := asAnyMap(v)
	if !ok {
		return mismatch(v, t)
	}
	out := reflect.MakeMapWithSize(t, len(m))
	for k, e := range m {
		kv := reflect.New(t.Key()).Elem()
		var kerr error
		if ks, isStr := k.(string); isStr && t.Key().Kind() != reflect.String {
			// JSON object keys are strings: accept "1" for an int key.
			kerr = assign(kv, json.Number(ks))
		} else {
			kerr = assign(kv, k)
		}
		if kerr != nil {
			return fmt.Errorf("key %v: %v", k, kerr)
		}
		ev := reflect.New(t.Elem()).Elem()
		if err := assign(ev, e); err != nil {
			return fmt.Errorf("key %v: %v", k, err)
		}
		out.SetMapIndex(kv, ev)
	}
	dst.Set(out)
	return nil
}

func asMap(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		return m, true
	case map[any]any:
		out := make(map[string]any, len(m))
		for k, e := range m {
			out[fmt.Sprint(k)] = e
		}
		return out, true
	}
	return nil, false
}

func asAnyMap(v any) (map[any]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		out := make(map[any]any, len(m))
		for k, e := range m {
			out[k] = e
		}
		return out, true
	case map[any]any:
		return m, true
	}
	return nil, false
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		n, err := x.Int64()
		if err != nil {
			return 0, false
		}
		return n, true
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		if x > math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true
		}
	}
	return 0, false
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	case float64:
		return x, true
	case float32:
		return float64(x), true
	}
	if n, ok := asInt(v); ok {
		return float64(n), true
	}
	return 0, false
}

// EncodeParams returns the `lang`-tagged fields of r (a resource struct or a
// pointer to one) as JSON-like values: the inverse of DecodeParams. Nil
// pointers, slices and maps are left out (undefined).
func EncodeParams(r any) (map[string]any, error) {
	rv := reflect.ValueOf(r)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil, fmt.Errorf("nil resource")
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil, fmt.Errorf("got %s, want a struct", rv.Type())
	}
	fields, err := ParamFields(rv.Type())
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for i := range fields {
		fv := fields[i].Value(rv)
		switch fv.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			if fv.IsNil() {
				continue
			}
		}
		out[fields[i].Name] = fv.Interface()
	}
	return out, nil
}

// fieldByLang returns the field of struct value sv whose `lang` tag is
// name: settable, its inline structs made, with set (sv must then be
// addressable), else for reading.
func fieldByLang(sv reflect.Value, name string, set bool) (reflect.Value, bool) {
	for sv.Kind() == reflect.Pointer {
		if sv.IsNil() {
			return reflect.Value{}, false
		}
		sv = sv.Elem()
	}
	if sv.Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	f, ok := paramsOf(sv.Type()).byName[name]
	if !ok {
		return reflect.Value{}, false
	}
	if set {
		return f.Settable(sv), true
	}
	return f.Value(sv), true
}

// setRecv copies the value src into the field dst, dereferencing src and
// allocating the pointers dst needs, and reports whether dst changed. A
// value that is not of dst's type is coerced as a parameter value would
// be (DecodeParams): an int for a float, or the content of a variant (a
// value resource's any) for a field of its type.
func setRecv(dst, src reflect.Value) (bool, error) {
	for src.Kind() == reflect.Pointer || src.Kind() == reflect.Interface {
		if src.IsNil() {
			changed := !dst.IsZero()
			dst.Set(reflect.Zero(dst.Type()))
			return changed, nil
		}
		src = src.Elem()
	}
	nv, err := buildValue(dst.Type(), src)
	if err != nil {
		coerced := reflect.New(dst.Type()).Elem()
		if assign(coerced, src.Interface()) != nil {
			return false, err
		}
		nv = coerced
	}
	changed := !reflect.DeepEqual(deref(dst), deref(nv))
	dst.Set(nv)
	return changed, nil
}

// buildValue converts src to type t, allocating pointers.
func buildValue(t reflect.Type, src reflect.Value) (reflect.Value, error) {
	if t.Kind() == reflect.Pointer {
		inner, err := buildValue(t.Elem(), src)
		if err != nil {
			return reflect.Value{}, err
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(inner)
		return p, nil
	}
	if t.Kind() == reflect.Interface && src.Type().AssignableTo(t) {
		v := reflect.New(t).Elem()
		v.Set(src)
		return v, nil
	}
	if src.Kind() != t.Kind() || !src.Type().ConvertibleTo(t) {
		return reflect.Value{}, fmt.Errorf("cannot receive a %s into a %s", src.Type(), t)
	}
	return src.Convert(t), nil
}

func deref(v reflect.Value) any {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	return v.Interface()
}
