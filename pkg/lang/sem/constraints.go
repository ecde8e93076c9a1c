package sem

import (
	"errors"
	"fmt"
	"slices"

	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
)

// A constraint is a typing rule that may need more information than is
// known where it appears (operators, polymorphic calls, indexing). run
// returns funcs.ErrDefer to be tried again later. on are the types it
// reads: run can only decide differently once a variable in them is bound,
// and the variables it binds are in them (see solve).
type constraint struct {
	pos ast.Pos
	run func(final bool) error
	on  []*types.Type
}

// constrain tries fn now and keeps it for later if it cannot decide yet;
// on are the types fn reads and unifies (fresh types aside).
func (c *checker) constrain(pos ast.Pos, fn func(final bool) error, on ...*types.Type) {
	err := fn(false)
	if err == nil {
		return
	}
	if errors.Is(err, funcs.ErrDefer) {
		c.cons = append(c.cons, &constraint{pos: pos, run: fn, on: slices.Clone(on)})
		return
	}
	c.typeErrf(pos, "%v", err)
}

// needConcrete asks that t be fully known after solving; the resolved type
// is stored in *dst.
func (c *checker) needConcrete(pos ast.Pos, what string, t *types.Type, dst **types.Type) {
	switch r := t.Prune(); r.Kind {
	case types.KindBool, types.KindStr, types.KindInt, types.KindFloat, types.KindVariant:
		// Known already, and bindings never change it: nothing to wait for.
		*dst = r
		return
	}
	c.finals = append(c.finals, func() error {
		if t.TooDeep() {
			return errAt(pos, StageType, "the type of this %s is nested too deeply (more than %d levels)", what, types.MaxDepth)
		}
		if !t.IsConcrete() {
			return errAt(pos, StageType, "cannot infer the type of this %s (%s); add a type annotation", what, t.Resolve())
		}
		*dst = t.Resolve()
		return nil
	})
}

func kindOf(t *types.Type) types.Kind { return t.Prune().Kind }

// mapKeyHashable checks the key type of the map literal at pos: a list, map
// or function key is refused at run time, as the reference refuses it when
// the literal is set up; a struct holding one of them (at any depth) is a
// type error. The key type is concrete here and no deeper than
// types.MaxDepth (needConcrete checked it first).
func mapKeyHashable(pos ast.Pos, key *types.Type) error {
	switch kindOf(key) {
	case types.KindList, types.KindMap, types.KindFunc:
		return errAt(pos, StageRuntime, "map key type %s is not hashable", key.Resolve())
	case types.KindStruct:
		if bad := unhashablePart(key.Prune(), 0); bad != nil {
			return errAt(pos, StageType, "map key type %s is not hashable: it holds %s", key.Resolve(), bad.Resolve())
		}
	}
	return nil
}

// unhashablePart returns the first list, map or function type inside the
// struct type t, nil if there is none.
func unhashablePart(t *types.Type, depth int) *types.Type {
	if depth > types.MaxDepth {
		return nil
	}
	for _, f := range t.Fields {
		switch ft := f.Type.Prune(); ft.Kind {
		case types.KindList, types.KindMap, types.KindFunc:
			return ft
		case types.KindStruct:
			if bad := unhashablePart(ft, depth+1); bad != nil {
				return bad
			}
		}
	}
	return nil
}

func (c *checker) checkBinary(e *ast.Binary, s *Scope) node {
	n := &binIR{op: e.Op, a: c.checkExpr(e.A, s), b: c.checkExpr(e.B, s), pos: e.Pos}
	ta, tb := n.a.typ(), n.b.typ()
	switch e.Op {
	case "and", "or":
		c.unify(e.A.Position(), ta, types.Bool, "operand of "+e.Op)
		c.unify(e.B.Position(), tb, types.Bool, "operand of "+e.Op)
		n.t = types.Bool
		return n
	case "in":
		c.unify(e.Pos, tb, types.NewList(ta), "operands of in")
		n.t = types.Bool
		return n
	case "==", "!=":
		c.unifySides(e.Pos, "operands of "+e.Op, e.A, ta, e.B, tb)
		n.t = types.Bool
		return n
	}
	c.unifySides(e.Pos, "operands of "+e.Op, e.A, ta, e.B, tb)
	switch e.Op {
	case "<", ">", "<=", ">=":
		n.t = types.Bool
	case "/":
		n.t = types.Float
	default:
		n.t = ta
	}
	allowStr := e.Op == "+"
	c.constrain(e.Pos, func(final bool) error {
		switch kindOf(ta) {
		case types.KindInt, types.KindFloat:
			return nil
		case types.KindStr:
			if allowStr {
				return nil
			}
		case types.KindVar:
			if !final {
				return funcs.ErrDefer
			}
			// An operator with no other clue: int, as literals suggest.
			return types.Unify(ta, types.Int)
		}
		want := "int or float"
		if allowStr {
			want = "str, int or float"
		}
		return fmt.Errorf("operator %s works on %s, got %s", e.Op, want, ta.Resolve())
	}, ta)
	return n
}

func (c *checker) checkIndex(e *ast.Index, s *Scope) node {
	n := &indexIR{x: c.checkExpr(e.X, s), i: c.checkExpr(e.Index, s), t: types.NewVar(), pos: e.Pos}
	tx, ti := n.x.typ(), n.i.typ()
	c.constrain(e.Pos, func(final bool) error {
		switch x := tx.Prune(); x.Kind {
		case types.KindList:
			if err := types.Unify(ti, types.Int); err != nil {
				return fmt.Errorf("list index: %v", err)
			}
			return types.Unify(n.t, x.Elem)
		case types.KindMap:
			n.isMap = true
			if err := types.Unify(ti, x.Key); err != nil {
				return fmt.Errorf("map key: %v", err)
			}
			return types.Unify(n.t, x.Val)
		case types.KindVar:
			if !final {
				return funcs.ErrDefer
			}
			return fmt.Errorf("cannot tell whether this is a list or a map; add a type annotation")
		default:
			return fmt.Errorf("cannot index a value of type %s", x.Resolve())
		}
	}, tx, ti, n.t)
	return n
}

func (c *checker) checkField(e *ast.Field, s *Scope) node {
	n := &fieldIR{x: c.checkExpr(e.X, s), name: e.Name, t: types.NewVar(), pos: e.Pos}
	tx := n.x.typ()
	c.constrain(e.Pos, func(final bool) error {
		switch x := tx.Prune(); x.Kind {
		case types.KindStruct:
			ft, ok := x.Field(e.Name)
			if !ok {
				return fmt.Errorf("struct %s has no field %q", x.Resolve(), e.Name)
			}
			return types.Unify(n.t, ft)
		case types.KindVar:
			if !final {
				return funcs.ErrDefer
			}
			return fmt.Errorf("cannot infer the struct type for ->%s; add a type annotation", e.Name)
		default:
			return fmt.Errorf("-> needs a struct, got %s", x.Resolve())
		}
	}, tx, n.t)
	return n
}

// checkOptionalField types `x->name <|> default`: the default is used when
// the struct type has no such field.
func (c *checker) checkOptionalField(f *ast.Field, def ast.Expr, s *Scope) node {
	n := &fieldIR{x: c.checkExpr(f.X, s), name: f.Name, pos: f.Pos, def: c.checkExpr(def, s)}
	n.t = n.def.typ()
	tx := n.x.typ()
	c.constrain(f.Pos, func(final bool) error {
		switch x := tx.Prune(); x.Kind {
		case types.KindStruct:
			ft, ok := x.Field(f.Name)
			if !ok {
				n.absent = true
				return nil
			}
			return types.Unify(n.t, ft)
		case types.KindVar:
			if !final {
				return funcs.ErrDefer
			}
			return fmt.Errorf("cannot infer the struct type for ->%s; add a type annotation", f.Name)
		default:
			return fmt.Errorf("-> needs a struct, got %s", x.Resolve())
		}
	}, tx, n.t)
	return n
}

// strOrList constrains t to be str or []str (resource and edge names).
func (c *checker) strOrList(pos ast.Pos, t *types.Type, what string) {
	if kindOf(t) == types.KindStr {
		return // the usual case, decided without a constraint
	}
	c.constrain(pos, func(final bool) error {
		switch x := t.Prune(); x.Kind {
		case types.KindStr:
			return nil
		case types.KindList:
			return types.Unify(x.Elem, types.Str)
		case types.KindVar:
			if !final {
				return funcs.ErrDefer
			}
			return types.Unify(x, types.Str)
		}
		return fmt.Errorf("%s must be a str or a []str, got %s", what, t.Resolve())
	}, t)
}
