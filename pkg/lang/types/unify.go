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
	if err := unifyRec(a, b, 0); err != nil {
		if m, ok := err.(*MismatchError); ok {
			m.A, m.B = a.Resolve(), b.Resolve()
		}
		return err
	}
	return nil
}

// TryUnify reports whether a and b unify, leaving no binding behind: it
// records trial bindings in a side table instead of the variables.
func TryUnify(a, b *Type) bool {
	return tryRec(a, b, map[*Type]*Type{}, 0)
}

// walk follows variable links (without compressing them) and the trial
// bindings of m.
func walk(t *Type, m map[*Type]*Type) *Type {
	for t != nil && t.Kind == KindVar {
		if t.link != nil {
			t = t.link
			continue
		}
		n, ok := m[t]
		if !ok {
			return t
		}
		t = n
	}
	return t
}

func occursTrial(v, t *Type, m map[*Type]*Type, depth int) bool {
	t = walk(t, m)
	if t == v || depth > 200 {
		return true
	}
	switch t.Kind {
	case KindList:
		return occursTrial(v, t.Elem, m, depth+1)
	case KindMap:
		return occursTrial(v, t.Key, m, depth+1) || occursTrial(v, t.Val, m, depth+1)
	case KindStruct, KindFunc:
		for _, f := range t.Fields {
			if occursTrial(v, f.Type, m, depth+1) {
				return true
			}
		}
		return t.Kind == KindFunc && occursTrial(v, t.Out, m, depth+1)
	}
	return false
}

func tryRec(a, b *Type, m map[*Type]*Type, depth int) bool {
	a, b = walk(a, m), walk(b, m)
	if a == b {
		return true
	}
	if depth > 200 {
		return false
	}
	if a.Kind == KindVar || b.Kind == KindVar {
		if a.Kind != KindVar {
			a, b = b, a
		}
		if b.Kind != KindVar && occursTrial(a, b, m, 0) {
			return false
		}
		m[a] = b
		return true
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case KindList:
		return tryRec(a.Elem, b.Elem, m, depth+1)
	case KindMap:
		return tryRec(a.Key, b.Key, m, depth+1) && tryRec(a.Val, b.Val, m, depth+1)
	case KindStruct, KindFunc:
		if len(a.Fields) != len(b.Fields) {
			return false
		}
		for i := range a.Fields {
			if a.Kind == KindStruct && a.Fields[i].Name != b.Fields[i].Name {
				return false
			}
			if !tryRec(a.Fields[i].Type, b.Fields[i].Type, m, depth+1) {
				return false
			}
		}
		return a.Kind != KindFunc || tryRec(a.Out, b.Out, m, depth+1)
	}
	return true
}

func bind(v, t *Type) error {
	if t.Kind != KindVar && occurs(v, t, 0) {
		return &MismatchError{InnerA: v, InnerB: t, Reason: "recursive type"}
	}
	v.link = t
	return nil
}

func occurs(v, t *Type, depth int) bool {
	t = t.Prune()
	if t == v {
		return true
	}
	if depth > 200 {
		return true
	}
	switch t.Kind {
	case KindList:
		return occurs(v, t.Elem, depth+1)
	case KindMap:
		return occurs(v, t.Key, depth+1) || occurs(v, t.Val, depth+1)
	case KindStruct, KindFunc:
		for _, f := range t.Fields {
			if occurs(v, f.Type, depth+1) {
				return true
			}
		}
		return t.Kind == KindFunc && occurs(v, t.Out, depth+1)
	}
	return false
}

func unifyRec(a, b *Type, depth int) error {
	a, b = a.Prune(), b.Prune()
	if a == b {
		return nil
	}
	if depth > 200 {
		return &MismatchError{InnerA: a, InnerB: b, Reason: "type too deep"}
	}
	if a.Kind == KindVar {
		return bind(a, b)
	}
	if b.Kind == KindVar {
		return bind(b, a)
	}
	if a.Kind != b.Kind {
		return &MismatchError{InnerA: a, InnerB: b}
	}
	switch a.Kind {
	case KindList:
		return unifyRec(a.Elem, b.Elem, depth+1)
	case KindMap:
		if err := unifyRec(a.Key, b.Key, depth+1); err != nil {
			return err
		}
		return unifyRec(a.Val, b.Val, depth+1)
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
			if err := unifyRec(a.Fields[i].Type, b.Fields[i].Type, depth+1); err != nil {
				return err
			}
		}
		if a.Kind == KindFunc {
			return unifyRec(a.Out, b.Out, depth+1)
		}
	}
	return nil
}
