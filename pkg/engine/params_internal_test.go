package engine

import (
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
