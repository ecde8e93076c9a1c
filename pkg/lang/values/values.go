// Package values is the runtime representation of mcl values: bool, str,
// int, float, list, map, struct and func. Every value knows its type
// (pkg/lang/types, always concrete), prints itself in mcl literal syntax
// (String) and compares with Cmp, which gives a total order used to keep
// map keys sorted and to compare graphs.
//
// Maps keep their entries sorted by key, so printing and iterating are
// deterministic; lookups use binary search.
package values

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/lang/types"
)

// A Value is an mcl value.
type Value interface {
	// Type returns the (concrete) type of the value.
	Type() *types.Type
	// String prints the value in mcl literal syntax.
	String() string
}

// Bool is an mcl bool.
type Bool bool

// Str is an mcl str.
type Str string

// Int is an mcl int.
type Int int64

// Float is an mcl float.
type Float float64

// Type returns bool.
func (Bool) Type() *types.Type { return types.Bool }

// Type returns str.
func (Str) Type() *types.Type { return types.Str }

// Type returns int.
func (Int) Type() *types.Type { return types.Int }

// Type returns float.
func (Float) Type() *types.Type { return types.Float }

func (v Bool) String() string { return strconv.FormatBool(bool(v)) }
func (v Str) String() string  { return strconv.Quote(string(v)) }
func (v Int) String() string  { return strconv.FormatInt(int64(v), 10) }
func (v Float) String() string {
	s := strconv.FormatFloat(float64(v), 'f', -1, 64)
	if !strings.ContainsAny(s, ".IN") {
		s += ".0"
	}
	return s
}

// A List is an mcl list; T is its list type.
type List struct {
	T *types.Type
	V []Value
}

// Type returns the list type.
func (v *List) Type() *types.Type { return v.T }

func (v *List) String() string {
	parts := make([]string, len(v.V))
	for i, e := range v.V {
		parts[i] = e.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// NewList returns a list of type []elem holding vs.
func NewList(elem *types.Type, vs ...Value) *List {
	return &List{T: types.NewList(elem), V: vs}
}

// A Map is an mcl map with its entries sorted by key (Cmp order). Build it
// with NewMap or Set; do not append to Keys/Vals directly.
type Map struct {
	T    *types.Type
	Keys []Value
	Vals []Value
}

// NewMap returns an empty map of type t (a map type).
func NewMap(t *types.Type) *Map { return &Map{T: t} }

// Type returns the map type.
func (v *Map) Type() *types.Type { return v.T }

func (v *Map) find(k Value) (int, bool) {
	i := sort.Search(len(v.Keys), func(i int) bool { return Cmp(v.Keys[i], k) >= 0 })
	return i, i < len(v.Keys) && Cmp(v.Keys[i], k) == 0
}

// Set adds or replaces the entry for k.
func (v *Map) Set(k, val Value) {
	i, ok := v.find(k)
	if ok {
		v.Vals[i] = val
		return
	}
	v.Keys = append(v.Keys, nil)
	v.Vals = append(v.Vals, nil)
	copy(v.Keys[i+1:], v.Keys[i:])
	copy(v.Vals[i+1:], v.Vals[i:])
	v.Keys[i], v.Vals[i] = k, val
}

// Lookup returns the value for k.
func (v *Map) Lookup(k Value) (Value, bool) {
	i, ok := v.find(k)
	if !ok {
		return nil, false
	}
	return v.Vals[i], true
}

func (v *Map) String() string {
	parts := make([]string, len(v.Keys))
	for i := range v.Keys {
		parts[i] = v.Keys[i].String() + " => " + v.Vals[i].String()
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// A Struct is an mcl struct; V holds the field values in the order of T's
// fields.
type Struct struct {
	T *types.Type
	V []Value
}

// Type returns the struct type.
func (v *Struct) Type() *types.Type { return v.T }

// Lookup returns the value of the field name.
func (v *Struct) Lookup(name string) (Value, bool) {
	for i, f := range v.T.Fields {
		if f.Name == name {
			return v.V[i], true
		}
	}
	return nil, false
}

func (v *Struct) String() string {
	parts := make([]string, len(v.V))
	for i, e := range v.V {
		parts[i] = v.T.Fields[i].Name + " => " + e.String()
	}
	return "struct{" + strings.Join(parts, ", ") + "}"
}

// A Func is a function value. Fn receives the context of the call: the
// evaluator passes its state there (see pkg/lang/funcs.WithKey).
type Func struct {
	T  *types.Type
	Fn func(ctx context.Context, args []Value) (Value, error)
	// ID identifies the function's definition and the scope it closes
	// over (for Cmp): two Func values with the same ID compare equal.
	ID string
}

// Type returns the function type.
func (v *Func) Type() *types.Type { return v.T }

func (v *Func) String() string { return "func" + strings.TrimPrefix(v.T.String(), "func") }

// Call calls the function.
func (v *Func) Call(ctx context.Context, args ...Value) (Value, error) {
	return v.Fn(ctx, args)
}

func kindRank(v Value) int {
	switch v.(type) {
	case Bool:
		return 0
	case Str:
		return 1
	case Int:
		return 2
	case Float:
		return 3
	case *List:
		return 4
	case *Map:
		return 5
	case *Struct:
		return 6
	}
	return 7
}

// Cmp compares a and b: -1, 0 or +1. Values of different kinds order by
// kind; functions compare by definition ID. Values that share parts (a
// list holding the same list twice, and so on) cost their distinct parts.
func Cmp(a, b Value) int { return new(comparer).cmp(a, b) }

// comparer is the state of one Cmp: after the first few steps (most
// comparisons are small) it remembers the result for each pair of lists,
// maps or structs compared.
type comparer struct {
	n    int
	seen map[[2]Value]int
}

func (c *comparer) cmp(a, b Value) int {
	ra, rb := kindRank(a), kindRank(b)
	if ra != rb {
		return cmpInt(int64(ra), int64(rb))
	}
	if ra < 4 || ra == 7 {
		return cmpScalar(a, b)
	}
	if a == b {
		return 0
	}
	c.n++
	if c.n <= 64 {
		return c.cmpComposite(a, b)
	}
	k := [2]Value{a, b}
	if r, ok := c.seen[k]; ok {
		return r
	}
	r := c.cmpComposite(a, b)
	if c.seen == nil {
		c.seen = map[[2]Value]int{}
	}
	c.seen[k] = r
	return r
}

// cmpScalar compares two bools, strs, ints, floats or funcs of the same
// kind.
func cmpScalar(a, b Value) int {
	switch x := a.(type) {
	case Bool:
		y := b.(Bool)
		if x == y {
			return 0
		}
		if !x {
			return -1
		}
		return 1
	case Str:
		return strings.Compare(string(x), string(b.(Str)))
	case Int:
		return cmpInt(int64(x), int64(b.(Int)))
	case Float:
		y := b.(Float)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		case x == y:
			return 0
		}
		return cmpInt(boolInt(math.IsNaN(float64(x))), boolInt(math.IsNaN(float64(y))))
	case *Func:
		return strings.Compare(x.ID, b.(*Func).ID)
	}
	return 0
}

// cmpComposite compares two lists, maps or structs.
func (c *comparer) cmpComposite(a, b Value) int {
	switch x := a.(type) {
	case *List:
		return c.cmpSlices(x.V, b.(*List).V)
	case *Map:
		y := b.(*Map)
		if r := c.cmpSlices(x.Keys, y.Keys); r != 0 {
			return r
		}
		return c.cmpSlices(x.Vals, y.Vals)
	case *Struct:
		y := b.(*Struct)
		for i := range x.V {
			if i >= len(y.V) {
				return 1
			}
			if r := strings.Compare(x.T.Fields[i].Name, y.T.Fields[i].Name); r != 0 {
				return r
			}
			if r := c.cmp(x.V[i], y.V[i]); r != 0 {
				return r
			}
		}
		return cmpInt(int64(len(x.V)), int64(len(y.V)))
	}
	return 0
}

// Equal reports whether a and b are equal values.
func Equal(a, b Value) bool { return Cmp(a, b) == 0 }

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (c *comparer) cmpSlices(a, b []Value) int {
	for i := range a {
		if i >= len(b) {
			return 1
		}
		if r := c.cmp(a[i], b[i]); r != 0 {
			return r
		}
	}
	return cmpInt(int64(len(a)), int64(len(b)))
}

// Zero returns the zero value of the concrete type t.
func Zero(t *types.Type) (Value, error) {
	t = t.Prune()
	switch t.Kind {
	case types.KindBool:
		return Bool(false), nil
	case types.KindStr:
		return Str(""), nil
	case types.KindInt:
		return Int(0), nil
	case types.KindFloat:
		return Float(0), nil
	case types.KindList:
		return &List{T: t.Resolve()}, nil
	case types.KindMap:
		return &Map{T: t.Resolve()}, nil
	case types.KindStruct:
		s := &Struct{T: t.Resolve(), V: make([]Value, len(t.Fields))}
		for i, f := range t.Fields {
			z, err := Zero(f.Type)
			if err != nil {
				return nil, err
			}
			s.V[i] = z
		}
		return s, nil
	}
	return nil, fmt.Errorf("no zero value for type %s", t)
}
