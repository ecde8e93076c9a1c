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

// MaxDepth bounds the nesting of a type (a basic type is one level, []int
// two). Deeper types come only from hostile programs: the parsers refuse
// them, Unify reports them, and the functions walking a type stop there
// instead of exhausting the stack (see each one for what it does then).
const MaxDepth = 500

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
// variable, in which case the links are followed (and compressed). It
// loops: a chain of variables bound to each other can be long.
func (t *Type) Prune() *Type {
	if t == nil || t.Kind != KindVar || t.link == nil {
		return t
	}
	r := t.link
	for r.Kind == KindVar && r.link != nil {
		r = r.link
	}
	for x := t; x != r; {
		next := x.link
		x.link = r
		x = next
	}
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

// IsConcrete reports whether t contains no free variables. It walks each
// shared part once and goes no deeper than MaxDepth: a part first met
// below that counts as not concrete.
func (t *Type) IsConcrete() bool { return t.isConcrete(1, map[*Type]bool{}) }

// isConcrete remembers in seen the concrete parts already walked, so that
// a type sharing its parts is walked once per part.
func (t *Type) isConcrete(depth int, seen map[*Type]bool) bool {
	t = t.Prune()
	if depth > MaxDepth {
		return false
	}
	if seen[t] {
		return true
	}
	ok := true
	switch t.Kind {
	case KindVar:
		return false
	case KindList:
		ok = t.Elem.isConcrete(depth+1, seen)
	case KindMap:
		ok = t.Key.isConcrete(depth+1, seen) && t.Val.isConcrete(depth+1, seen)
	case KindStruct, KindFunc:
		for _, f := range t.Fields {
			if ok = f.Type.isConcrete(depth+1, seen); !ok {
				break
			}
		}
		ok = ok && (t.Kind != KindFunc || t.Out.isConcrete(depth+1, seen))
	}
	if ok {
		seen[t] = true
	}
	return ok
}

// TooDeep reports whether t (through the bindings of its variables) is
// nested deeper than MaxDepth. It walks each shared part once.
func (t *Type) TooDeep() bool { return t.height(1, map[*Type]int{}) > MaxDepth }

// height returns the height of t (1 for a leaf), or more than MaxDepth
// when t, found depth levels down, goes past MaxDepth; heights holds the
// parts already measured.
func (t *Type) height(depth int, heights map[*Type]int) int {
	t = t.Prune()
	if depth > MaxDepth {
		return MaxDepth + 1
	}
	h, ok := heights[t]
	if !ok {
		var buf [4]*Type
		for _, p := range t.parts(buf[:0]) {
			h = max(h, p.height(depth+1, heights))
		}
		h++
		if h > MaxDepth {
			return h
		}
		heights[t] = h
	}
	if depth+h-1 > MaxDepth {
		return MaxDepth + 1
	}
	return h
}

// parts appends the types t is made of to buf and returns it.
func (t *Type) parts(buf []*Type) []*Type {
	switch t.Kind {
	case KindList:
		buf = append(buf, t.Elem)
	case KindMap:
		buf = append(buf, t.Key, t.Val)
	case KindStruct, KindFunc:
		for _, f := range t.Fields {
			buf = append(buf, f.Type)
		}
		if t.Kind == KindFunc {
			buf = append(buf, t.Out)
		}
	}
	return buf
}

// Resolve returns a copy of t with every bound variable replaced by what it
// is bound to. Free variables stay (shared, not copied). Basic types are
// returned as the shared values, and a part used twice is copied once.
// Parts nested deeper than MaxDepth are not copied (they keep their
// bindings).
func (t *Type) Resolve() *Type { return t.resolve(1, map[*Type]*Type{}) }

func (t *Type) resolve(depth int, done map[*Type]*Type) *Type {
	t = t.Prune()
	if depth > MaxDepth {
		return t
	}
	if r, ok := done[t]; ok {
		return r
	}
	var r *Type
	switch t.Kind {
	case KindList:
		r = NewList(t.Elem.resolve(depth+1, done))
	case KindMap:
		r = NewMap(t.Key.resolve(depth+1, done), t.Val.resolve(depth+1, done))
	case KindStruct, KindFunc:
		fs := make([]Field, len(t.Fields))
		for i, f := range t.Fields {
			fs[i] = Field{Name: f.Name, Type: f.Type.resolve(depth+1, done)}
		}
		if t.Kind == KindStruct {
			r = NewStruct(fs...)
		} else {
			r = NewFunc(fs, t.Out.resolve(depth+1, done))
		}
	default:
		return t
	}
	done[t] = r
	return r
}

// Copy returns a copy of t where every free variable is replaced by a fresh
// one (the same variable twice becomes the same fresh variable twice). It is
// how a polymorphic signature is instantiated at a call site.
// Parts nested deeper than MaxDepth are not copied.
func (t *Type) Copy() *Type { return t.copyWith(map[*Type]*Type{}, 1) }

func (t *Type) copyWith(m map[*Type]*Type, depth int) *Type {
	t = t.Prune()
	if depth > MaxDepth {
		return t
	}
	switch t.Kind {
	case KindVar:
		if n, ok := m[t]; ok {
			return n
		}
		n := NewVar()
		m[t] = n
		return n
	case KindList:
		return NewList(t.Elem.copyWith(m, depth+1))
	case KindMap:
		return NewMap(t.Key.copyWith(m, depth+1), t.Val.copyWith(m, depth+1))
	case KindStruct, KindFunc:
		fs := make([]Field, len(t.Fields))
		for i, f := range t.Fields {
			fs[i] = Field{Name: f.Name, Type: f.Type.copyWith(m, depth+1)}
		}
		if t.Kind == KindStruct {
			return NewStruct(fs...)
		}
		return NewFunc(fs, t.Out.copyWith(m, depth+1))
	}
	return t
}

// Equal reports whether a and b are the same type, variables compared by
// identity. Function parameter names are ignored. Types that differ only
// deeper than MaxDepth are reported different.
func Equal(a, b *Type) bool {
	if a == nil || b == nil {
		return a == b
	}
	u := &unifier{frozen: true}
	return u.unify(a, b, 1) == nil
}

// String prints t in mcl type syntax; free variables print as ?1, ?2, ...
// numbered in order of appearance. It is meant for messages: parts nested
// more than 64 levels down, or past about 4 KiB of text, print as "...".
func (t *Type) String() string { return StringAll(t)[0] }

// Syntax prints t in full in mcl type syntax, for source code: only parts
// nested deeper than MaxDepth print as "...".
func (t *Type) Syntax() string {
	w := typeWriter{names: map[*Type]int{}, maxDepth: MaxDepth, maxLen: -1}
	t.write(&w, 1)
	return w.b.String()
}

// StringAll prints several types with one numbering of their variables,
// so that the same variable has the same name in all of them.
func StringAll(ts ...*Type) []string {
	names := map[*Type]int{}
	out := make([]string, len(ts))
	for i, t := range ts {
		w := typeWriter{names: names, maxDepth: 64, maxLen: 4096}
		t.write(&w, 0)
		out[i] = w.b.String()
	}
	return out
}

// typeWriter is the state of printing a type: the numbering of its
// variables and where to cut (maxLen < 0: no cut on length).
type typeWriter struct {
	b        strings.Builder
	names    map[*Type]int
	maxDepth int
	maxLen   int
}

func (t *Type) write(w *typeWriter, depth int) {
	b := &w.b
	if depth > w.maxDepth || w.maxLen >= 0 && b.Len() > w.maxLen {
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
		n, ok := w.names[t]
		if !ok {
			n = len(w.names) + 1
			w.names[t] = n
		}
		b.WriteString("?")
		b.WriteString(strconv.Itoa(n))
	case KindList:
		b.WriteString("[]")
		t.Elem.write(w, depth+1)
	case KindMap:
		b.WriteString("map{")
		t.Key.write(w, depth+1)
		b.WriteString(": ")
		t.Val.write(w, depth+1)
		b.WriteString("}")
	case KindStruct:
		b.WriteString("struct{")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(f.Name)
			b.WriteString(" ")
			f.Type.write(w, depth+1)
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
			f.Type.write(w, depth+1)
		}
		b.WriteString(") ")
		t.Out.write(w, depth+1)
	default:
		b.WriteString(t.Kind.String())
	}
}

// A Numbering numbers concrete types by structure: two types get the same
// number exactly when they print the same in full. Each shared part is
// numbered once, so a type sharing its parts costs its number of distinct
// parts, not the length of its print. The zero value is ready to use.
type Numbering struct {
	node  map[*Type]int
	shape map[string]int
}

// Of returns the number of t, which must be concrete and not TooDeep.
func (n *Numbering) Of(t *Type) int {
	t = t.Prune()
	if id, ok := n.node[t]; ok {
		return id
	}
	if n.node == nil {
		n.node, n.shape = map[*Type]int{}, map[string]int{}
	}
	var b strings.Builder
	b.WriteString(t.Kind.String())
	for _, f := range t.Fields {
		b.WriteString(" " + strconv.Quote(f.Name))
	}
	var buf [4]*Type
	for _, p := range t.parts(buf[:0]) {
		b.WriteString(" " + strconv.Itoa(n.Of(p)))
	}
	id, ok := n.shape[b.String()]
	if !ok {
		id = len(n.shape) + 1
		n.shape[b.String()] = id
	}
	n.node[t] = id
	return id
}
