package types

import (
	"strings"
	"testing"
)

// nested returns []...[]int with n levels of lists (n+1 levels in all).
func nested(n int) *Type {
	t := Int
	for i := 0; i < n; i++ {
		t = NewList(t)
	}
	return t
}

// shared returns struct{x T; y T} nested n times over int, each level
// using the one below twice: n+1 levels, 2^n leaves as a tree.
func shared(n int) *Type {
	t := Int
	for i := 0; i < n; i++ {
		t = NewStruct(Field{Name: "x", Type: t}, Field{Name: "y", Type: t})
	}
	return t
}

// TestDepthLimit: types deeper than MaxDepth are refused where they would
// be bound, reported by TooDeep, and walked no deeper than MaxDepth.
func TestDepthLimit(t *testing.T) {
	if nested(MaxDepth-1).TooDeep() || !nested(MaxDepth).TooDeep() {
		t.Fatal("TooDeep is wrong at the limit")
	}
	v := NewVar()
	if err := Unify(v, nested(MaxDepth-1)); err != nil {
		t.Fatalf("a type at the limit: %v", err)
	}
	err := Unify(NewVar(), nested(MaxDepth))
	if err == nil || !strings.Contains(err.Error(), "type nested too deeply (more than 500 levels)") {
		t.Fatalf("got %v, want a nesting error", err)
	}
	// A variable nested MaxDepth-1 levels down, bound to a list: together
	// too deep, which TooDeep sees through the binding.
	w := NewVar()
	outer := w
	for i := 0; i < MaxDepth-1; i++ {
		outer = NewList(outer)
	}
	if err := Unify(w, NewList(Int)); err != nil {
		t.Fatal(err)
	}
	if !outer.TooDeep() {
		t.Fatal("a type made too deep by a binding is not seen")
	}
	if _, err := Parse(strings.Repeat("[]", MaxDepth) + "int"); err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Fatalf("Parse: got %v, want a nesting error", err)
	}
	if s := nested(MaxDepth - 1).Syntax(); s != strings.Repeat("[]", MaxDepth-1)+"int" {
		t.Fatalf("Syntax cut a type within the limit: %.80s...", s)
	}
}

// TestLongVariableChain: a million variables bound one to the next prune
// without recursing.
func TestLongVariableChain(t *testing.T) {
	vs := make([]*Type, 1000000)
	for i := range vs {
		vs[i] = NewVar()
	}
	for i := 1; i < len(vs); i++ {
		vs[i-1].link = vs[i]
	}
	vs[len(vs)-1].link = Str
	if vs[0].Prune() != Str || vs[1].Prune() != Str {
		t.Fatal("the chain does not end at str")
	}
}

// TestSharedParts: a type using each level twice (2^100 leaves as a tree)
// is walked once per distinct part by every operation.
func TestSharedParts(t *testing.T) {
	a, b := shared(100), shared(100)
	if !a.IsConcrete() || a.TooDeep() || !Equal(a.Resolve(), a.Resolve()) {
		t.Fatal("IsConcrete, TooDeep or Resolve")
	}
	if err := Unify(a, b); err != nil || !TryUnify(a, b) {
		t.Fatalf("Unify: %v", err)
	}
	v := NewVar()
	c := NewStruct(Field{Name: "x", Type: shared(100)}, Field{Name: "y", Type: v})
	if err := Unify(v, a); err != nil {
		t.Fatal(err)
	}
	var n Numbering
	if n.Of(a) != n.Of(b) || n.Of(a) == n.Of(c) || n.Of(shared(99)) == n.Of(a) {
		t.Fatal("Numbering")
	}
	if s := a.String(); len(s) > 5000 {
		t.Fatalf("String printed %d bytes", len(s))
	}
}
