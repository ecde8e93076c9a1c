// Package types is the mcl type representation shared by every stage of the
// compiler and by the function library.
//
// A Type is a tree of nodes. Leaves are the basic kinds (bool, str, int,
// float, variant) and unification variables; inner nodes are lists, maps,
// structs and functions. A variable is a node of kind Var whose link field
// points to what it has been unified with (nil while free). Unify binds
// variables and Prune follows links with path compression, which makes the
// solver a union-find over type terms: unifying two terms costs time
// proportional to their size, and a whole program unifies in time linear in
// its size (plus the occurs check on compound bindings).
//
// Parse reads the mcl type syntax: bool str int float variant []T
// map{K: V} struct{a T; b U} func(T, name U) R and variables ?1 ?2 (the same
// number names the same variable within one Parse call).
package types

import (
	"strconv"
	"strings"
	"sync/atomic"
)

// A Kind is the kind of a type node.
type Kind uint8

// The kinds of type nodes.
const (
	KindVar Kind = iota
	KindBool
	KindStr
	KindInt
	KindFloat
	KindList
	KindMap
	KindStruct
	KindFunc
	KindVariant
)

var kindNames = [...]string{"?", "bool", "str", "int", "float", "list", "map", "struct", "func", "variant"}

// String returns the kind's name.
func (k Kind) String() string { return kindNames[k] }

// A Type is one node of a type term. Build compound types with the New*
// functions; the basic types are the shared values Bool, Str, Int, Float and
// Variant.
type Type struct {
	Kind   Kind
	Elem   *Type   // KindList: element type
	Key    *Type   // KindMap: key type
	Val    *Type   // KindMap: value type
	Fields []Field // KindStruct: fields in order; KindFunc: parameters
	Out    *Type   // KindFunc: result type

	link *Type // KindVar: what the variable is bound to, nil if free
	id   int64 // KindVar: number used when printing
}

// A Field is a struct field or a function parameter (Name may be empty for
// a parameter).
type Field struct {
	Name string
	Type *Type
}

// The basic types. They are shared and never modified.
var (
	Bool    = &Type{Kind: KindBool}
	Str     = &Type{Kind: KindStr}
	Int     = &Type{Kind: KindInt}
	Float   = &Type{Kind: KindFloat}
	Variant = &Type{Kind: KindVariant}
)

var varCounter atomic.Int64

// NewVar returns a fresh free unification variable.
func NewVar() *Type { return &Type{Kind: KindVar, id: varCounter.Add(1)} }

// NewList returns the type []elem.
func NewList(elem *Type) *Type { return &Type{Kind: KindList, Elem: elem} }

// NewMap returns the type map{key: val}.
func NewMap(key, val *Type) *Type { return &Type{Kind: KindMap, Key: key, Val: val} }

// NewStruct returns a struct type with the fields in order.
func NewStruct(fields ...Field) *Type { return &Type{Kind: KindStruct, Fields: fields} }

// NewFunc returns the type of a function with params returning out.
func NewFunc(params []Field, out *Type) *Type {
	return &Type{Kind: KindFunc, Fields: params, Out: out}
}

// NewFuncOf returns a function type with unnamed parameters.
func NewFuncOf(out *Type, params ...*Type) *Type {
	fs := make([]Field, len(params))
	for i, p := range params {
		fs[i] = Field{Type: p}
	}
	return NewFunc(fs, out)
}

// Prune returns the representative of t: t itself unless t is a bound
// variable, in which case the links are followed (and compressed).
func (t *Type) Prune() *Type {
	if t == nil || t.Kind != KindVar || t.link == nil {
		return t
	}
	r := t.link.Prune()
	t.link = r
	return r
}

// IsVar reports whether t is (after pruning) a free variable.
func (t *Type) IsVar() bool { return t.Prune().Kind == KindVar }

// Field returns the type of the struct field or parameter called name.
func (t *Type) Field(name string) (*Type, bool) {
	t = t.Prune()
	for _, f := range t.Fields {
		if f.Name == name {
			return f.Type, true
		}
	}
	return nil, false
}

// IsConcrete reports whether t contains no free variables.
func (t *Type) IsConcrete() bool {
	t = t.Prune()
	switch t.Kind {
	case KindVar:
		return false
	case KindList:
		return t.Elem.IsConcrete()
	case KindMap:
		return t.Key.IsConcrete() && t.Val.IsConcrete()
	case KindStruct, KindFunc:
		for _, f := range t.Fields {
			if !f.Type.IsConcrete() {
				return false
			}
		}
		return t.Kind != KindFunc || t.Out.IsConcrete()
	}
	return true
}

// Resolve returns a copy of t with every bound variable replaced by what it
// is bound to. Free variables stay (shared, not copied). Basic types are
// returned as the shared values.
func (t *Type) Resolve() *Type {
	t = t.Prune()
	switch t.Kind {
	case KindList:
		return NewList(t.Elem.Resolve())
	case KindMap:
		return NewMap(t.Key.Resolve(), t.Val.Resolve())
	case KindStruct, KindFunc:
		fs := make([]Field, len(t.Fields))
		for i, f := range t.Fields {
			fs[i] = Field{Name: f.Name, Type: f.Type.Resolve()}
		}
		if t.Kind == KindStruct {
			return NewStruct(fs...)
		}
		return NewFunc(fs, t.Out.Resolve())
	}
	return t
}

// Copy returns a copy of t where every free variable is replaced by a fresh
// one (the same variable twice becomes the same fresh variable twice). It is
// how a polymorphic signature is instantiated at a call site.
func (t *Type) Copy() *Type { return t.copyWith(map[*Type]*Type{}) }

func (t *Type) copyWith(m map[*Type]*Type) *Type {
	t = t.Prune()
	switch t.Kind {
	case KindVar:
		if n, ok := m[t]; ok {
			return n
		}
		n := NewVar()
		m[t] = n
		return n
	case KindList:
		return NewList(t.Elem.copyWith(m))
	case KindMap:
		return NewMap(t.Key.copyWith(m), t.Val.copyWith(m))
	case KindStruct, KindFunc:
		fs := make([]Field, len(t.Fields))
		for i, f := range t.Fields {
			fs[i] = Field{Name: f.Name, Type: f.Type.copyWith(m)}
		}
		if t.Kind == KindStruct {
			return NewStruct(fs...)
		}
		return NewFunc(fs, t.Out.copyWith(m))
	}
	return t
}

// Equal reports whether a and b are the same type, variables compared by
// identity. Function parameter names are ignored.
func Equal(a, b *Type) bool {
	a, b = a.Prune(), b.Prune()
	if a == b {
		return true
	}
	if a == nil || b == nil || a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case KindVar:
		return false
	case KindList:
		return Equal(a.Elem, b.Elem)
	case KindMap:
		return Equal(a.Key, b.Key) && Equal(a.Val, b.Val)
	case KindStruct, KindFunc:
		if len(a.Fields) != len(b.Fields) {
			return false
		}
		for i := range a.Fields {
			if a.Kind == KindStruct && a.Fields[i].Name != b.Fields[i].Name {
				return false
			}
			if !Equal(a.Fields[i].Type, b.Fields[i].Type) {
				return false
			}
		}
		return a.Kind == KindStruct || Equal(a.Out, b.Out)
	}
	return true
}

// String prints t in mcl type syntax; free variables print as ?1, ?2, ...
// numbered in order of appearance.
func (t *Type) String() string { return StringAll(t)[0] }

// StringAll prints several types with one numbering of their variables,
// so that the same variable has the same name in all of them.
func StringAll(ts ...*Type) []string {
	names := map[*Type]int{}
	out := make([]string, len(ts))
	for i, t := range ts {
		var b strings.Builder
		t.write(&b, 0, names)
		out[i] = b.String()
	}
	return out
}

func (t *Type) write(b *strings.Builder, depth int, names map[*Type]int) {
	if depth > 64 {
		b.WriteString("...")
		return
	}
	t = t.Prune()
	if t == nil {
		b.WriteString("<nil>")
		return
	}
	switch t.Kind {
	case KindVar:
		n, ok := names[t]
		if !ok {
			n = len(names) + 1
			names[t] = n
		}
		b.WriteString("?")
		b.WriteString(strconv.Itoa(n))
	case KindList:
		b.WriteString("[]")
		t.Elem.write(b, depth+1, names)
	case KindMap:
		b.WriteString("map{")
		t.Key.write(b, depth+1, names)
		b.WriteString(": ")
		t.Val.write(b, depth+1, names)
		b.WriteString("}")
	case KindStruct:
		b.WriteString("struct{")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(f.Name)
			b.WriteString(" ")
			f.Type.write(b, depth+1, names)
		}
		b.WriteString("}")
	case KindFunc:
		b.WriteString("func(")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			if f.Name != "" {
				b.WriteString(f.Name)
				b.WriteString(" ")
			}
			f.Type.write(b, depth+1, names)
		}
		b.WriteString(") ")
		t.Out.write(b, depth+1, names)
	default:
		b.WriteString(t.Kind.String())
	}
}
