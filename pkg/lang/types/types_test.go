package types

import "testing"

func TestParsePrint(t *testing.T) {
	for _, s := range []string{
		"bool", "str", "int", "float", "variant", "[]str", "[][]int",
		"map{str: int}", "map{str: []map{int: bool}}",
		"struct{}", "struct{a str; b int}", "struct{a struct{x []str}}",
		"func() str", "func(str, int) bool", "func(a str, b []int) map{str: str}",
		"func(func(int) str) []str",
	} {
		typ, err := Parse(s)
		if err != nil {
			t.Errorf("Parse(%q): %v", s, err)
			continue
		}
		if got := typ.String(); got != s {
			t.Errorf("Parse(%q).String() = %q", s, got)
		}
	}
	for _, s := range []string{"", "[]", "map{str}", "struct{a}", "func(", "func() ", "strr", "struct{a int; a str}", "int x"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", s)
		}
	}
}

func TestUnify(t *testing.T) {
	vars := map[string]*Type{}
	a, _ := ParseWith("func(?1, []?2) ?1", vars)
	b := MustParse("func(str, []int) str")
	if err := Unify(a, b); err != nil {
		t.Fatal(err)
	}
	if got := vars["?2"].Prune(); got != Int {
		t.Fatalf("?2 = %s, want int", got)
	}
	if got := a.Resolve().String(); got != "func(str, []int) str" {
		t.Fatalf("resolved %s", got)
	}
	c := MustParse("func(?1) ?1")
	if err := Unify(c, MustParse("func(int) str")); err == nil {
		t.Fatal("int and str unified")
	}
	v := NewVar()
	if err := Unify(v, NewList(v)); err == nil {
		t.Fatal("recursive type accepted")
	}
	w := NewVar()
	if !TryUnify(w, Int) || !w.IsVar() {
		t.Fatal("TryUnify left a binding or failed")
	}
	if TryUnify(MustParse("struct{a int}"), MustParse("struct{b int}")) {
		t.Fatal("different field names unified")
	}
}

func TestCopy(t *testing.T) {
	sig := MustParse("func(?1, ?1) ?2")
	c := sig.Copy()
	if err := Unify(c.Fields[0].Type, Str); err != nil {
		t.Fatal(err)
	}
	if c.Fields[1].Type.Prune() != Str {
		t.Fatal("shared variable not shared in copy")
	}
	if !sig.Fields[0].Type.IsVar() {
		t.Fatal("copy bound the original")
	}
}

func BenchmarkUnifyChain(b *testing.B) {
	for i := 0; i < b.N; i++ {
		vs := make([]*Type, 10000)
		for j := range vs {
			vs[j] = NewVar()
		}
		for j := 1; j < len(vs); j++ {
			if err := Unify(vs[j-1], vs[j]); err != nil {
				b.Fatal(err)
			}
		}
		if err := Unify(vs[len(vs)-1], Int); err != nil {
			b.Fatal(err)
		}
		if vs[0].Prune() != Int {
			b.Fatal("not int")
		}
	}
}
