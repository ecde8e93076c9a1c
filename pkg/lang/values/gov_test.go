package values

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/lang/types"
)

func TestToGo(t *testing.T) {
	intKeys := NewMap(types.NewMap(types.Int, types.Bool))
	intKeys.Set(Int(2), Bool(true))
	intKeys.Set(Int(-1), Bool(false))
	for _, tc := range []struct {
		v    Value
		want any
	}{
		{Bool(true), true},
		{Str("s"), "s"},
		{Int(-3), int64(-3)},
		{Float(0.5), 0.5},
		{strs("a", "b"), []any{"a", "b"}},
		{NewList(types.Str), []any{}},
		{mapOf("a", 1), map[string]any{"a": int64(1)}},
		{intKeys, map[string]any{"2": true, "-1": false}},
		{pair(1, "x"), map[string]any{"a": int64(1), "b": "x"}},
		{NewList(intList, ints(1)), []any{[]any{int64(1)}}},
		{fn("f"), nil},
	} {
		if got := ToGo(tc.v); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ToGo(%s) = %#v, want %#v", tc.v, got, tc.want)
		}
	}
}

// TestFromGo converts Go data, as encoding/json and Go functions give it,
// to values of a given type.
func TestFromGo(t *testing.T) {
	type tagged struct {
		Name  string `lang:"name"`
		Count int
		Skip  bool `lang:"other"`
	}
	nested := types.NewStruct(
		types.Field{Name: "name", Type: types.Str},
		types.Field{Name: "count", Type: types.Int},
		types.Field{Name: "missing", Type: strList},
	)
	for _, tc := range []struct {
		name string
		x    any
		t    *types.Type
		want string
	}{
		{"bool", true, types.Bool, "true"},
		{"str", "s", types.Str, `"s"`},
		{"json int", json.Number("12"), types.Int, "12"},
		{"whole float to int", float64(7), types.Int, "7"},
		{"negative whole float", float64(-7), types.Int, "-7"},
		{"int8", int8(-8), types.Int, "-8"},
		{"uint16", uint16(65535), types.Int, "65535"},
		{"largest uint64 that fits", uint64(math.MaxInt64), types.Int, "9223372036854775807"},
		{"json float", json.Number("1.5"), types.Float, "1.5"},
		{"float64", 2.5, types.Float, "2.5"},
		{"float32", float32(0.5), types.Float, "0.5"},
		{"int64 to float", int64(3), types.Float, "3.0"},
		{"int to float", 4, types.Float, "4.0"},
		{"[]any", []any{"a", "b"}, strList, `["a", "b"]`},
		{"[]string", []string{"x"}, strList, `["x"]`},
		{"array", [2]int{1, 2}, intList, "[1, 2]"},
		{"nil list", nil, strList, "[]"},
		{"map sorted", map[string]any{"b": 2.0, "a": json.Number("1")}, strInt, `{"a" => 1, "b" => 2}`},
		{"nil map", nil, strInt, "{}"},
		{"int keys", map[int]string{10: "x", 9: "y"}, types.NewMap(types.Int, types.Str), `{9 => "y", 10 => "x"}`},
		{"struct from map", map[string]any{"a": 1.0, "b": "x", "c": true}, pairType, `struct{a => 1, b => "x"}`},
		{"struct missing field is zero", map[string]any{"b": "x"}, pairType, `struct{a => 0, b => "x"}`},
		{"go struct", tagged{Name: "n", Count: 3}, nested, `struct{name => "n", count => 3, missing => []}`},
		{"go struct pointer", &tagged{Name: "p"}, nested, `struct{name => "p", count => 0, missing => []}`},
	} {
		v, err := FromGo(tc.x, tc.t)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if v.String() != tc.want || !types.Equal(v.Type(), tc.t) {
			t.Errorf("%s: got %s of type %s, want %s of type %s", tc.name, v, v.Type(), tc.want, tc.t)
		}
	}
}

// TestFromGoRefuses checks the conversions that have no exact value:
// a wrong kind, a fraction or a number out of int's range for an int.
func TestFromGoRefuses(t *testing.T) {
	type hidden struct {
		a int
	}
	for _, tc := range []struct {
		name string
		x    any
		t    *types.Type
		want string
	}{
		{"str for bool", "true", types.Bool, "cannot convert string to bool"},
		{"int for str", 1, types.Str, "cannot convert int to str"},
		{"fraction for int", 1.5, types.Int, "cannot convert float64 to int"},
		{"json fraction for int", json.Number("1.5"), types.Int, "cannot convert json.Number to int"},
		{"uint64 above int range", uint64(math.MaxInt64) + 1, types.Int, "cannot convert uint64 to int"},
		{"float above int range", 1e19, types.Int, "cannot convert float64 to int"},
		{"float below int range", -1e19, types.Int, "cannot convert float64 to int"},
		{"infinity for int", math.Inf(1), types.Int, "cannot convert float64 to int"},
		{"nan for int", math.NaN(), types.Int, "cannot convert float64 to int"},
		{"json text for float", json.Number("x"), types.Float, "cannot convert json.Number to float"},
		{"string for float", "1", types.Float, "cannot convert string to float"},
		{"map for list", map[string]any{}, strList, "cannot convert map[string]interface {} to []str"},
		{"bad element", []any{1}, strList, "cannot convert int to str"},
		{"list for map", []any{}, strInt, "cannot convert []interface {} to map{str: int}"},
		{"bad map key", map[int]int{1: 1}, strInt, "cannot convert int to str"},
		{"bad map value", map[string]any{"a": "b"}, strInt, "cannot convert string to int"},
		{"int for struct", 1, pairType, "cannot convert int to struct{a int; b str}"},
		{"bad field", map[string]any{"a": "x"}, pairType, "field a: cannot convert string to int"},
		{"unexported field", hidden{a: 1}, pairType, "field a: cannot convert unexported field a"},
		{"func type", 1, types.NewFuncOf(types.Int), "cannot convert int to func() int"},
	} {
		v, err := FromGo(tc.x, tc.t)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, %v; want error %q", tc.name, v, err, tc.want)
		}
	}
}

// TestGoRoundTrip converts values to Go data and back.
func TestGoRoundTrip(t *testing.T) {
	for _, v := range []Value{
		Bool(true), Str("s"), Int(math.MinInt64), Float(-0.25),
		strs("a", ""), mapOf("a", 1, "b", 2), pair(3, "y"),
		NewList(intList, ints(1, 2), ints()),
	} {
		back, err := FromGo(ToGo(v), v.Type())
		if err != nil || !Equal(back, v) {
			t.Errorf("%s came back as %v (%v)", v, back, err)
		}
	}
}

func TestKeyString(t *testing.T) {
	for _, tc := range []struct {
		k    Value
		want string
	}{
		{Str("a b"), "a b"},
		{Str(""), ""},
		{Int(-12), "-12"},
		{Float(1.5), "1.5"},
		{Float(3), "3"},
		{Float(1e21), "1e+21"},
		{Bool(true), "true"},
		{strs("x"), `["x"]`},
		{pair(1, "x"), `struct{a => 1, b => "x"}`},
	} {
		if got := KeyString(tc.k); got != tc.want {
			t.Errorf("KeyString(%s) = %q, want %q", tc.k, got, tc.want)
		}
	}
}
