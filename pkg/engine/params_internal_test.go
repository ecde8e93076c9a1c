package engine

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestSetRecv(t *testing.T) {
	var dst struct {
		S   string
		P   *string
		PPP ***int8
		L   []string
	}
	v := reflect.ValueOf(&dst).Elem()
	hello := "hello"
	var n int8 = 7
	for _, tc := range []struct {
		field   string
		src     any
		changed bool
	}{
		{"S", &hello, true},
		{"S", "hello", false},
		{"P", "hello", true},
		{"P", &hello, false},
		{"PPP", n, true},
		{"PPP", &n, false},
		{"L", []string{"a"}, true},
		{"P", (*string)(nil), true},
	} {
		changed, err := setRecv(v.FieldByName(tc.field), reflect.ValueOf(tc.src))
		if err != nil || changed != tc.changed {
			t.Errorf("%s <- %#v: changed %v err %v, want changed %v", tc.field, tc.src, changed, err, tc.changed)
		}
	}
	if dst.S != "hello" || ***dst.PPP != 7 || dst.P != nil || dst.L[0] != "a" {
		t.Fatalf("%+v", dst)
	}
	if _, err := setRecv(v.FieldByName("S"), reflect.ValueOf(3)); err == nil {
		t.Fatal("int into string: no error")
	}
}

// TestSetRecvVariant: a variant (a value resource's any) holds what JSON
// decoding gave; its content goes to a field of its type, and anything
// goes to a variant.
func TestSetRecvVariant(t *testing.T) {
	var dst struct {
		I   *int64
		F   float64
		L   []string
		M   map[string]int
		Any *any
	}
	v := reflect.ValueOf(&dst).Elem()
	variant := func(x any) reflect.Value { return reflect.ValueOf(&x) }
	for _, tc := range []struct {
		field string
		src   reflect.Value
	}{
		{"I", variant(json.Number("42"))},
		{"F", variant(int64(2))},
		{"L", variant([]any{"a", "b"})},
		{"M", variant(map[string]any{"k": json.Number("1")})},
		{"Any", reflect.ValueOf("text")},
	} {
		if changed, err := setRecv(v.FieldByName(tc.field), tc.src); err != nil || !changed {
			t.Errorf("%s: changed %v, err %v", tc.field, changed, err)
		}
	}
	if *dst.I != 42 || dst.F != 2 || !reflect.DeepEqual(dst.L, []string{"a", "b"}) || dst.M["k"] != 1 || *dst.Any != "text" {
		t.Fatalf("%+v", dst)
	}
	if _, err := setRecv(v.FieldByName("I"), variant("x")); err == nil {
		t.Fatal("a str variant into an int: no error")
	}
}

func TestParseSema(t *testing.T) {
	for _, tc := range []struct {
		in   string
		id   string
		size int
		bad  bool
	}{
		{"some_id", "some_id", 1, false},
		{"hello:42", "hello:42", 42, false},
		{"not:smart:4", "not:smart:4", 4, false},
		{":13", ":13", 13, false},
		{"a:b", "a:b", 1, false},
		{"42", "", 0, true},
		{"x:0", "", 0, true},
		{"", "", 0, true},
	} {
		id, size, err := ParseSema(tc.in)
		if (err != nil) != tc.bad || id != tc.id || size != tc.size {
			t.Errorf("ParseSema(%q) = %q, %d, %v", tc.in, id, size, err)
		}
	}
}

// TestFieldByLangInline: a sender's value is read through a nil inline
// pointer without making its struct, and a receiver's makes it.
func TestFieldByLangInline(t *testing.T) {
	var r struct {
		A string `lang:"a"`
		R *struct {
			B *string `lang:"b"`
		} `lang:",inline"`
	}
	v := reflect.ValueOf(&r)
	f, ok := fieldByLang(v, "b", false)
	if !ok || !f.IsNil() || f.CanSet() || r.R != nil {
		t.Fatalf("read b: %v %v, struct %v", f, ok, r.R)
	}
	if f, ok = fieldByLang(v, "b", true); !ok {
		t.Fatal("no b to set")
	}
	if changed, err := setRecv(f, reflect.ValueOf("x")); err != nil || !changed {
		t.Fatalf("set b: changed %v, err %v", changed, err)
	}
	if r.R == nil || r.R.B == nil || *r.R.B != "x" {
		t.Fatalf("b not set: %+v", r.R)
	}
	if _, ok := fieldByLang(v, "c", false); ok {
		t.Fatal("found c")
	}
}
