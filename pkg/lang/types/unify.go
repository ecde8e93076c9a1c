package types

import "fmt"

// A MismatchError says that two types cannot be unified. A and B are the
// whole terms given to Unify; InnerA and InnerB the first parts that differ.
type MismatchError struct {
	A, B           *Type
	InnerA, InnerB *Type
	Reason         string
}

func (e *MismatchError) Error() string {
	s := StringAll(e.A, e.B, e.InnerA, e.InnerB)
	msg := fmt.Sprintf("%s does not match %s", s[0], s[1])
	if e.InnerA != nil && s[2] != s[0] {
		msg += fmt.Sprintf(" (%s vs %s)", s[2], s[3])
	}
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// Unify makes a and b the same type by binding free variables, or returns a
// *MismatchError. On error, bindings made before the conflict are kept (use
// TryUnify to test without effect).
func Unify(a, b *Type) error {
	var u unifier
	if err := u.unify(a, b, 1); err != nil {
		err.A, err.B = a.Resolve(), b.Resolve()
		return err
	}
	return nil
}

// TryUnify reports whether a and b unify, leaving no binding behind: it
// records trial bindings in a side table instead of the variables.
func TryUnify(a, b *Type) bool {
	u := unifier{try: true}
	return u.unify(a, b, 1) == nil
}

// unifier is the state of one Unify, TryUnify or Equal. The memories make types
// that share parts cost their distinct parts, not their size as trees;
// they start after the first few steps, as most unifications are small.
type unifier struct {
	frozen  bool              // Equal: variables are never bound
	try     bool              // TryUnify: bindings go to trial
	trial   map[*Type]*Type   // TryUnify: the trial bindings (made at the first)
	pairs   map[[2]*Type]bool // pairs of compound types met
	npairs  int
	heights map[*Type]int // bind: the parts of the bound type walked
	nwalked int
}

// memoAfter is the number of steps a unifier takes before it remembers.
const memoAfter = 64

// find returns the representative of t under the bindings and the trial
// bindings.
func (u *unifier) find(t *Type) *Type {
	if !u.try {
		return t.Prune()
	}
	for t != nil && t.Kind == KindVar {
		if t.link != nil {
			t = t.link
			continue
		}
		n, ok := u.trial[t]
		if !ok {
			return t
		}
		t = n
	}
	return t
}

// again reports whether the compound types a and b were met together
// before (their unification is then under way or done), and records them.
func (u *unifier) again(a, b *Type) bool {
	if u.npairs++; u.npairs <= memoAfter {
		return false
	}
	if u.pairs == nil {
		u.pairs = map[[2]*Type]bool{}
	}
	k := [2]*Type{a, b}
	if u.pairs[k] {
		return true
	}
	u.pairs[k] = true
	return false
}

// tooDeep is the reason of a MismatchError for a type nested deeper than
// MaxDepth.
var tooDeep = fmt.Sprintf("type nested too deeply (more than %d levels)", MaxDepth)

func (u *unifier) bind(v, t *Type) *MismatchError {
	if u.frozen {
		return &MismatchError{InnerA: v, InnerB: t}
	}
	if t.Kind != KindVar {
		u.heights, u.nwalked = nil, 0
		if _, r := u.occurs(v, t, 1); r != "" {
			return &MismatchError{InnerA: v, InnerB: t, Reason: r}
		}
	}
	if u.try {
		if u.trial == nil {
			u.trial = map[*Type]*Type{}
		}
		u.trial[v] = t
	} else {
		v.link = t
	}
	return nil
}

// occurs returns why v cannot be bound to t, found depth levels down:
// "recursive type" when v occurs in t, tooDeep when t goes deeper than
// MaxDepth; or the height of t and "".
func (u *unifier) occurs(v, t *Type, depth int) (int, string) {
	t = u.find(t)
	if t == v {
		return 0, "recursive type"
	}
	if depth > MaxDepth {
		return 0, tooDeep
	}
	if h, ok := u.heights[t]; ok {
		if depth+h-1 > MaxDepth {
			return 0, tooDeep
		}
		return h, ""
	}
	var buf [4]*Type
	h := 0
	for _, k := range t.parts(buf[:0]) {
		kh, r := u.occurs(v, k, depth+1)
		if r != "" {
			return 0, r
		}
		h = max(h, kh)
	}
	if u.nwalked++; u.nwalked > memoAfter {
		if u.heights == nil {
			u.heights = map[*Type]int{}
		}
		u.heights[t] = h + 1
	}
	return h + 1, ""
}

func (u *unifier) unify(a, b *Type, depth int) *MismatchError {
	a, b = u.find(a), u.find(b)
	if a == b {
		return nil
	}
	if depth > MaxDepth {
		return &MismatchError{InnerA: a, InnerB: b, Reason: tooDeep}
	}
	if a.Kind == KindVar {
		return u.bind(a, b)
	}
	if b.Kind == KindVar {
		return u.bind(b, a)
	}
	if a.Kind != b.Kind {
		return &MismatchError{InnerA: a, InnerB: b}
	}
	if u.again(a, b) {
		return nil
	}
	switch a.Kind {
	case KindList:
		return u.unify(a.Elem, b.Elem, depth+1)
	case KindMap:
		if err := u.unify(a.Key, b.Key, depth+1); err != nil {
			return err
		}
		return u.unify(a.Val, b.Val, depth+1)
	case KindStruct, KindFunc:
		if len(a.Fields) != len(b.Fields) {
			reason := "different number of fields"
			if a.Kind == KindFunc {
				reason = "different number of arguments"
			}
			return &MismatchError{InnerA: a, InnerB: b, Reason: reason}
		}
		for i := range a.Fields {
			if a.Kind == KindStruct && a.Fields[i].Name != b.Fields[i].Name {
				return &MismatchError{InnerA: a, InnerB: b, Reason: fmt.Sprintf("field %q vs %q", a.Fields[i].Name, b.Fields[i].Name)}
			}
			if err := u.unify(a.Fields[i].Type, b.Fields[i].Type, depth+1); err != nil {
				return err
			}
		}
		if a.Kind == KindFunc {
			return u.unify(a.Out, b.Out, depth+1)
		}
	}
	return nil
}
