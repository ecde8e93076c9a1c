package values

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/lang/types"
)

// ToGo returns v as plain Go data, the shape of JSON: bool, string, int64,
// float64, []any, map[string]any for structs (field name -> value) and for
// maps (keys printed by KeyString). Functions become nil.
func ToGo(v Value) any {
	switch x := v.(type) {
	case Bool:
		return bool(x)
	case Str:
		return string(x)
	case Int:
		return int64(x)
	case Float:
		return float64(x)
	case *List:
		out := make([]any, len(x.V))
		for i, e := range x.V {
			out[i] = ToGo(e)
		}
		return out
	case *Map:
		out := make(map[string]any, len(x.Keys))
		for i, k := range x.Keys {
			out[KeyString(k)] = ToGo(x.Vals[i])
		}
		return out
	case *Struct:
		out := make(map[string]any, len(x.V))
		for i, f := range x.T.Fields {
			out[f.Name] = ToGo(x.V[i])
		}
		return out
	}
	return nil
}

// FromGo converts Go data (as ToGo or encoding/json produce it, plus Go
// numbers, slices, maps and structs through reflection) to a value of the
// concrete type t.
func FromGo(x any, t *types.Type) (Value, error) {
	t = t.Prune()
	switch t.Kind {
	case types.KindBool:
		if b, ok := x.(bool); ok {
			return Bool(b), nil
		}
	case types.KindStr:
		if s, ok := x.(string); ok {
			return Str(s), nil
		}
	case types.KindInt:
		switch n := x.(type) {
		case json.Number:
			i, err := n.Int64()
			if err == nil {
				return Int(i), nil
			}
		case float64:
			// Whole and within int's range (2^63 is a float64; NaN
			// and the infinities fail the comparisons).
			if n == math.Trunc(n) && n >= -(1<<63) && n < 1<<63 {
				return Int(int64(n)), nil
			}
		default:
			rv := reflect.ValueOf(x)
			switch rv.Kind() {
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				return Int(rv.Int()), nil
			case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
				if u := rv.Uint(); u <= math.MaxInt64 {
					return Int(int64(u)), nil
				}
			}
		}
	case types.KindFloat:
		switch n := x.(type) {
		case json.Number:
			f, err := n.Float64()
			if err == nil {
				return Float(f), nil
			}
		case float64:
			return Float(n), nil
		case float32:
			return Float(n), nil
		case int64:
			return Float(n), nil
		case int:
			return Float(n), nil
		}
	case types.KindList:
		rv := reflect.ValueOf(x)
		if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
			l := &List{T: t.Resolve(), V: make([]Value, rv.Len())}
			for i := range l.V {
				e, err := FromGo(rv.Index(i).Interface(), t.Elem)
				if err != nil {
					return nil, err
				}
				l.V[i] = e
			}
			return l, nil
		}
		if x == nil {
			return &List{T: t.Resolve()}, nil
		}
	case types.KindMap:
		return mapFromGo(x, t)
	case types.KindStruct:
		return structFromGo(x, t)
	}
	return nil, fmt.Errorf("cannot convert %T to %s", x, t)
}

func mapFromGo(x any, t *types.Type) (Value, error) {
	m := &Map{T: t.Resolve()}
	if x == nil {
		return m, nil
	}
	rv := reflect.ValueOf(x)
	if rv.Kind() != reflect.Map {
		return nil, fmt.Errorf("cannot convert %T to %s", x, t)
	}
	keys := rv.MapKeys()
	sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
	for _, k := range keys {
		kv, err := FromGo(k.Interface(), t.Key)
		if err != nil {
			return nil, err
		}
		vv, err := FromGo(rv.MapIndex(k).Interface(), t.Val)
		if err != nil {
			return nil, err
		}
		m.Set(kv, vv)
	}
	return m, nil
}

func structFromGo(x any, t *types.Type) (Value, error) {
	s := &Struct{T: t.Resolve(), V: make([]Value, len(t.Fields))}
	var get func(name string) (any, bool, error)
	switch m := x.(type) {
	case map[string]any:
		get = func(name string) (any, bool, error) { v, ok := m[name]; return v, ok, nil }
	default:
		rv := reflect.Indirect(reflect.ValueOf(x))
		if rv.Kind() != reflect.Struct {
			return nil, fmt.Errorf("cannot convert %T to %s", x, t)
		}
		get = func(name string) (any, bool, error) {
			for i := 0; i < rv.NumField(); i++ {
				f := rv.Type().Field(i)
				tag := f.Tag.Get("lang")
				if tag != name && (tag != "" || !strings.EqualFold(f.Name, name)) {
					continue
				}
				if !f.IsExported() {
					return nil, false, fmt.Errorf("cannot convert unexported field %s of %s", f.Name, rv.Type())
				}
				return rv.Field(i).Interface(), true, nil
			}
			return nil, false, nil
		}
	}
	for i, f := range t.Fields {
		gv, ok, err := get(f.Name)
		if err != nil {
			return nil, fmt.Errorf("field %s: %v", f.Name, err)
		}
		if !ok {
			z, err := Zero(f.Type)
			if err != nil {
				return nil, err
			}
			s.V[i] = z
			continue
		}
		v, err := FromGo(gv, f.Type)
		if err != nil {
			return nil, fmt.Errorf("field %s: %v", f.Name, err)
		}
		s.V[i] = v
	}
	return s, nil
}

// KeyString prints a map key as a JSON object key: strs as they are,
// numbers and bools in Go syntax, anything else in mcl syntax.
func KeyString(k Value) string {
	switch x := k.(type) {
	case Str:
		return string(x)
	case Int:
		return strconv.FormatInt(int64(x), 10)
	case Float:
		return strconv.FormatFloat(float64(x), 'g', -1, 64)
	case Bool:
		return strconv.FormatBool(bool(x))
	}
	return k.String()
}
