package values

import (
	"context"
	"math"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/lang/types"
)

var (
	strList  = types.NewList(types.Str)
	intList  = types.NewList(types.Int)
	strInt   = types.NewMap(types.Str, types.Int)
	pairType = types.NewStruct(types.Field{Name: "a", Type: types.Int}, types.Field{Name: "b", Type: types.Str})
)

func strs(ss ...string) *List {
	l := NewList(types.Str)
	for _, s := range ss {
		l.V = append(l.V, Str(s))
	}
	return l
}

func ints(ns ...int64) *List {
	l := NewList(types.Int)
	for _, n := range ns {
		l.V = append(l.V, Int(n))
	}
	return l
}

// mapOf builds a map[str]int from alternating keys and values, in the
// order given.
func mapOf(kv ...any) *Map {
	m := NewMap(strInt)
	for i := 0; i < len(kv); i += 2 {
		m.Set(Str(kv[i].(string)), Int(kv[i+1].(int)))
	}
	return m
}

func pair(a int64, b string) *Struct { return &Struct{T: pairType, V: []Value{Int(a), Str(b)}} }

func fn(id string) *Func {
	return &Func{T: types.NewFuncOf(types.Int, types.Int), ID: id, Fn: func(_ context.Context, args []Value) (Value, error) {
		return args[0].(Int) + 1, nil
	}}
}

// TestString prints every kind of value in mcl syntax.
func TestString(t *testing.T) {
	for _, tc := range []struct {
		v    Value
		want string
	}{
		{Bool(true), "true"},
		{Bool(false), "false"},
		{Str(""), `""`},
		{Str("a\"b\\c\n"), `"a\"b\\c\n"`},
		{Str("héllo"), `"héllo"`},
		{Int(0), "0"},
		{Int(-42), "-42"},
		{Int(math.MaxInt64), "9223372036854775807"},
		{Float(0), "0.0"},
		{Float(3), "3.0"},
		{Float(-2.5), "-2.5"},
		{Float(0.1), "0.1"},
		{Float(1e21), "1000000000000000000000.0"},
		{Float(math.Inf(1)), "+Inf"},
		{Float(math.Inf(-1)), "-Inf"},
		{Float(math.NaN()), "NaN"},
		{NewList(types.Str), "[]"},
		{strs("a", "b"), `["a", "b"]`},
		{NewList(intList, ints(1), ints()), "[[1], []]"},
		{NewMap(strInt), "{}"},
		{mapOf("b", 2, "a", 1), `{"a" => 1, "b" => 2}`},
		{pair(1, "x"), `struct{a => 1, b => "x"}`},
		{&Struct{T: types.NewStruct()}, "struct{}"},
		{fn("f"), "func(int) int"},
	} {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("%#v: got %s, want %s", tc.v, got, tc.want)
		}
	}
}

// TestType checks that every value reports its own type.
func TestType(t *testing.T) {
	f := fn("f")
	for _, tc := range []struct {
		v    Value
		want string
	}{
		{Bool(true), "bool"},
		{Str("s"), "str"},
		{Int(1), "int"},
		{Float(1), "float"},
		{strs(), "[]str"},
		{NewList(intList), "[][]int"},
		{mapOf(), "map{str: int}"},
		{pair(1, ""), "struct{a int; b str}"},
		{f, "func(int) int"},
	} {
		if got := tc.v.Type().String(); got != tc.want {
			t.Errorf("%s: got type %s, want %s", tc.v, got, tc.want)
		}
	}
}

// TestMap checks that entries stay sorted by key whatever the order of
// Set, that Set replaces, and Lookup finds.
func TestMap(t *testing.T) {
	m := NewMap(strInt)
	for i, k := range []string{"m", "c", "x", "a", "c", "z", ""} {
		m.Set(Str(k), Int(i))
	}
	if got, want := m.String(), `{"" => 6, "a" => 3, "c" => 4, "m" => 0, "x" => 2, "z" => 5}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	for _, tc := range []struct {
		k    string
		want Value
	}{{"c", Int(4)}, {"", Int(6)}, {"z", Int(5)}, {"b", nil}, {"zz", nil}} {
		v, ok := m.Lookup(Str(tc.k))
		if ok != (tc.want != nil) || ok && v != tc.want {
			t.Errorf("Lookup(%q) = %v, %v; want %v", tc.k, v, ok, tc.want)
		}
	}
	// Keys of other kinds sort by Cmp: ints numerically, lists
	// element by element.
	lm := NewMap(types.NewMap(intList, types.Bool))
	for _, k := range []*List{ints(2), ints(1, 5), ints(), ints(1)} {
		lm.Set(k, Bool(true))
	}
	if got, want := lm.String(), "{[] => true, [1] => true, [1, 5] => true, [2] => true}"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if _, ok := lm.Lookup(ints(1, 5)); !ok {
		t.Errorf("Lookup of an equal list key failed")
	}
}

func TestStructLookup(t *testing.T) {
	s := pair(7, "x")
	if v, ok := s.Lookup("b"); !ok || v != Str("x") {
		t.Errorf("Lookup(b) = %v, %v", v, ok)
	}
	if v, ok := s.Lookup("a"); !ok || v != Int(7) {
		t.Errorf("Lookup(a) = %v, %v", v, ok)
	}
	if v, ok := s.Lookup("c"); ok {
		t.Errorf("Lookup(c) = %v, want none", v)
	}
}

func TestFuncCall(t *testing.T) {
	v, err := fn("f").Call(context.Background(), Int(41))
	if err != nil || v != Int(42) {
		t.Errorf("got %v, %v; want 42", v, err)
	}
}

// TestCmp orders values: by kind first (bool, str, int, float, list, map,
// struct, func), then by value; NaN is above every other float and equal
// to itself; lists and maps compare element by element, a prefix first.
func TestCmp(t *testing.T) {
	nan := Float(math.NaN())
	for _, tc := range []struct {
		name string
		a, b Value
		want int
	}{
		{"false < true", Bool(false), Bool(true), -1},
		{"true = true", Bool(true), Bool(true), 0},
		{"true > false", Bool(true), Bool(false), 1},
		{"strs", Str("a"), Str("b"), -1},
		{"str prefix", Str("ab"), Str("a"), 1},
		{"str bytes", Str("Z"), Str("a"), -1},
		{"ints", Int(-3), Int(2), -1},
		{"int extremes", Int(math.MaxInt64), Int(math.MinInt64), 1},
		{"floats", Float(1.5), Float(1.25), 1},
		{"zero signs", Float(math.Copysign(0, -1)), Float(0), 0},
		{"nan nan", nan, nan, 0},
		{"nan above", nan, Float(math.Inf(1)), 1},
		{"nan above, other side", Float(math.Inf(1)), nan, -1},
		{"bool before str", Bool(true), Str(""), -1},
		{"str before int", Str("z"), Int(0), -1},
		{"int before float", Int(100), Float(1), -1},
		{"float before list", Float(1), ints(), -1},
		{"list before map", ints(), mapOf(), -1},
		{"map before struct", mapOf(), pair(0, ""), -1},
		{"struct before func", pair(0, ""), fn(""), -1},
		{"lists equal", ints(1, 2), ints(1, 2), 0},
		{"list prefix", ints(1), ints(1, 2), -1},
		{"list element", ints(1, 3), ints(1, 2, 9), 1},
		{"empty lists", ints(), ints(), 0},
		{"nested lists", NewList(intList, ints(1), ints(2)), NewList(intList, ints(1), ints(3)), -1},
		{"maps equal", mapOf("a", 1, "b", 2), mapOf("b", 2, "a", 1), 0},
		{"map keys first", mapOf("a", 9), mapOf("b", 0), -1},
		{"map values", mapOf("a", 1), mapOf("a", 2), -1},
		{"map size", mapOf("a", 1, "b", 1), mapOf("a", 1), 1},
		{"structs equal", pair(1, "x"), pair(1, "x"), 0},
		{"struct fields in order", pair(1, "z"), pair(2, "a"), -1},
		{"struct later field", pair(1, "b"), pair(1, "a"), 1},
		{"struct field names", &Struct{T: types.NewStruct(types.Field{Name: "x", Type: types.Int}), V: []Value{Int(1)}},
			&Struct{T: types.NewStruct(types.Field{Name: "y", Type: types.Int}), V: []Value{Int(0)}}, -1},
		{"struct field count", pair(1, "x"), &Struct{T: types.NewStruct(types.Field{Name: "a", Type: types.Int}), V: []Value{Int(1)}}, 1},
		{"funcs by id", fn("a"), fn("b"), -1},
		{"funcs same id", fn("a"), fn("a"), 0},
	} {
		if got := Cmp(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: Cmp(%s, %s) = %d, want %d", tc.name, tc.a, tc.b, got, tc.want)
		}
		if got := Cmp(tc.b, tc.a); got != -tc.want {
			t.Errorf("%s: Cmp(%s, %s) = %d, want %d", tc.name, tc.b, tc.a, got, -tc.want)
		}
		if got := Equal(tc.a, tc.b); got != (tc.want == 0) {
			t.Errorf("%s: Equal = %v", tc.name, got)
		}
	}
}

// TestCmpShared compares two values whose parts are shared many times
// over (each level a list holding the level below twice): a comparison
// that walked every path would take 2^200 steps.
func TestCmpShared(t *testing.T) {
	build := func(leaf int64) Value {
		var v Value = Int(leaf)
		typ := types.Int
		for i := 0; i < 200; i++ {
			typ = types.NewList(typ)
			v = &List{T: typ, V: []Value{v, v}}
		}
		return v
	}
	if got := Cmp(build(1), build(1)); got != 0 {
		t.Errorf("equal shared values: Cmp = %d", got)
	}
	if got := Cmp(build(1), build(2)); got != -1 {
		t.Errorf("shared values differing in the leaf: Cmp = %d", got)
	}
}

func TestZero(t *testing.T) {
	nested := types.NewStruct(
		types.Field{Name: "p", Type: pairType},
		types.Field{Name: "l", Type: strList},
		types.Field{Name: "m", Type: strInt},
		types.Field{Name: "f", Type: types.Float},
		types.Field{Name: "ok", Type: types.Bool},
	)
	for _, tc := range []struct {
		t    *types.Type
		want string
	}{
		{types.Bool, "false"},
		{types.Str, `""`},
		{types.Int, "0"},
		{types.Float, "0.0"},
		{strList, "[]"},
		{strInt, "{}"},
		{nested, `struct{p => struct{a => 0, b => ""}, l => [], m => {}, f => 0.0, ok => false}`},
	} {
		v, err := Zero(tc.t)
		if err != nil {
			t.Errorf("Zero(%s): %v", tc.t, err)
			continue
		}
		if v.String() != tc.want || !types.Equal(v.Type(), tc.t) {
			t.Errorf("Zero(%s) = %s of type %s, want %s", tc.t, v, v.Type(), tc.want)
		}
	}
	for _, typ := range []*types.Type{
		types.NewFuncOf(types.Int),
		types.Variant,
		types.NewStruct(types.Field{Name: "f", Type: types.NewFuncOf(types.Int)}),
	} {
		if v, err := Zero(typ); err == nil {
			t.Errorf("Zero(%s) = %s, want an error", typ, v)
		}
	}
}

func TestZeroErrorNamesType(t *testing.T) {
	_, err := Zero(types.NewFuncOf(types.Int))
	if err == nil || err.Error() != "no zero value for type func() int" {
		t.Errorf("got %v", err)
	}
}
