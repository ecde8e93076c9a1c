package sem

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// errPending means a value depends on a stream that has not produced its
// first value yet: the pass cannot finish and waits for the next event.
var errPending = errors.New("waiting for a stream's first value")

// maxEvalDepth bounds the evaluator's recursion, so that a hostile program
// gets an error instead of exhausting the stack: the nesting of the
// syntax tree plus the chains of variables, function calls (lambdas
// included) and class bodies an evaluation goes through. The checker
// follows the same chains, but a lambda's body is checked once, where it
// is written, while each call evaluates it again.
const maxEvalDepth = 10000

// errTooDeep is returned past maxEvalDepth; the nearest variable or call
// on the way out positions it.
var errTooDeep = fmt.Errorf("evaluation nested too deeply: more than %d levels of expressions, counting those of the variables and functions used (split long chains of definitions)", maxEvalDepth)

// eval evaluates n in rs, one level deeper.
func (p *pass) eval(n node, rs *rscope) (values.Value, error) {
	if p.depth >= maxEvalDepth {
		return nil, errTooDeep
	}
	p.depth++
	v, err := n.eval(p, rs)
	p.depth--
	return v, err
}

// An rscope is one activation of a Scope: a cell per binding slot.
type rscope struct {
	s      *Scope
	parent *rscope
	cells  []cell
	key    string // instance key: identifies streams started inside
}

type cell struct {
	state uint8 // 0 empty, 1 evaluating, 2 done
	v     values.Value
	err   error
	thunk node    // lazy parameter: evaluated in env
	env   *rscope //
	ns    *rscope // alias: the namespace's activation
}

func newRScope(s *Scope, parent *rscope, key string) *rscope {
	return &rscope{s: s, parent: parent, cells: make([]cell, s.nslots), key: key}
}

func (r *rscope) find(s *Scope) *rscope {
	for x := r; x != nil; x = x.parent {
		if x.s == s {
			return x
		}
	}
	return nil
}

// A runtimeError is an error raised while evaluating, with the position of
// the construct at fault.
type runtimeError struct {
	pos ast.Pos
	err error
}

func (e *runtimeError) Error() string { return fmt.Sprintf("%s: %v", e.pos, e.err) }
func (e *runtimeError) Unwrap() error { return e.err }

// at wraps err with pos unless it is already positioned or pending.
func at(pos ast.Pos, err error) error {
	if err == nil || err == errPending {
		return err
	}
	var re *runtimeError
	if errors.As(err, &re) {
		return err
	}
	return &runtimeError{pos: pos, err: err}
}

// lookup returns the activation holding the target of r, seen from rs.
func (p *pass) lookup(rs *rscope, r ref) (*rscope, error) {
	for _, a := range r.path {
		owner := rs.find(a.scope)
		if owner == nil {
			return nil, fmt.Errorf("internal error: no activation for alias %s", a.name)
		}
		ns, err := p.alias(owner, a)
		if err != nil {
			return nil, err
		}
		rs = ns
	}
	t := rs.find(r.target.scope)
	if t == nil {
		return nil, fmt.Errorf("internal error: no activation for %s", r.target.name)
	}
	return t, nil
}

func (p *pass) alias(owner *rscope, a *binding) (*rscope, error) {
	cl := &owner.cells[a.slot]
	if cl.ns != nil {
		return cl.ns, nil
	}
	switch {
	case a.mod != nil:
		cl.ns = p.moduleScope(a.mod)
	case a.include != nil:
		ns, err := p.instance(a.include, owner)
		if err != nil {
			return nil, err
		}
		cl.ns = ns
	default:
		return nil, fmt.Errorf("internal error: alias %s has no namespace", a.name)
	}
	return cl.ns, nil
}

func (p *pass) moduleScope(m *module) *rscope {
	if rs, ok := p.modules[m]; ok {
		return rs
	}
	rs := newRScope(m.scope, p.global, "m:"+m.path)
	p.modules[m] = rs
	return rs
}

// instance activates a class instance whose include statement is in site.
func (p *pass) instance(inc *includeIR, site *rscope) (*rscope, error) {
	def, err := p.lookup(site, inc.r)
	if err != nil {
		return nil, err
	}
	key := funcs.JoinKeyID(site.key, "i", inc.id)
	ps := newRScope(inc.pscope, def, key)
	for i, a := range inc.args {
		ps.cells[i] = cell{thunk: a, env: site}
	}
	return newRScope(inc.scope, ps, key), nil
}

// value returns the value of the variable binding b in its activation rs.
func (p *pass) value(rs *rscope, b *binding) (values.Value, error) {
	cl := &rs.cells[b.slot]
	switch cl.state {
	case 2:
		return cl.v, cl.err
	case 1:
		return nil, fmt.Errorf("internal error: cycle evaluating $%s", b.name)
	}
	cl.state = 1
	switch {
	case cl.thunk != nil:
		cl.v, cl.err = p.eval(cl.thunk, cl.env)
	case b.kind == bkBind:
		cl.v, cl.err = p.eval(b.ir, rs)
	default:
		cl.err = fmt.Errorf("internal error: parameter $%s has no value", b.name)
	}
	if cl.err == errPending {
		cl.state = 0 // retried next pass with a fresh activation anyway
		return nil, errPending
	}
	cl.state = 2
	return cl.v, cl.err
}

func (n *constIR) eval(p *pass, rs *rscope) (values.Value, error) { return n.v, nil }

func (n *interpIR) eval(p *pass, rs *rscope) (values.Value, error) {
	var s []byte
	for _, part := range n.parts {
		v, err := p.eval(part, rs)
		if err != nil {
			return nil, err
		}
		s = append(s, string(v.(values.Str))...)
	}
	return values.Str(s), nil
}

func (n *listIR) eval(p *pass, rs *rscope) (values.Value, error) {
	l := &values.List{T: n.rt, V: make([]values.Value, len(n.elems))}
	for i, e := range n.elems {
		v, err := p.eval(e, rs)
		if err != nil {
			return nil, err
		}
		l.V[i] = v
	}
	return l, nil
}

func (n *mapIR) eval(p *pass, rs *rscope) (values.Value, error) {
	m := values.NewMap(n.rt)
	for i := range n.keys {
		k, err := p.eval(n.keys[i], rs)
		if err != nil {
			return nil, err
		}
		v, err := p.eval(n.vals[i], rs)
		if err != nil {
			return nil, err
		}
		m.Set(k, v)
	}
	return m, nil
}

func (n *structIR) eval(p *pass, rs *rscope) (values.Value, error) {
	s := &values.Struct{T: n.rt, V: make([]values.Value, len(n.vals))}
	for i, e := range n.vals {
		v, err := p.eval(e, rs)
		if err != nil {
			return nil, err
		}
		s.V[i] = v
	}
	return s, nil
}

func (n *varIR) eval(p *pass, rs *rscope) (values.Value, error) {
	owner, err := p.lookup(rs, n.r)
	if err != nil {
		return nil, at(n.pos, err)
	}
	v, err := p.value(owner, n.r.target)
	return v, at(n.pos, err)
}

func (n *lambdaIR) eval(p *pass, rs *rscope) (values.Value, error) {
	captured := rs
	return &values.Func{T: n.rt, ID: strconv.Itoa(n.id) + "@" + rs.key, Fn: func(ctx context.Context, args []values.Value) (values.Value, error) {
		cp := passOf(ctx)
		if cp == nil {
			cp = p
		}
		if len(args) != n.nparams {
			return nil, fmt.Errorf("function called with %d arguments, want %d", len(args), n.nparams)
		}
		nrs := newRScope(n.scope, captured, funcs.Key(ctx))
		for i, a := range args {
			nrs.cells[i] = cell{state: 2, v: a}
		}
		return cp.eval(n.body, nrs)
	}}, nil
}

func (n *instIR) eval(p *pass, rs *rscope) (values.Value, error) {
	def, err := p.lookup(rs, n.r)
	if err != nil {
		return nil, err
	}
	return p.eval(n.lam, def)
}

func (p *pass) evalArgs(args []node, rs *rscope) ([]values.Value, error) {
	out := make([]values.Value, len(args))
	for i, a := range args {
		v, err := p.eval(a, rs)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (n *callIR) eval(p *pass, rs *rscope) (values.Value, error) {
	fv, err := p.eval(n.fn, rs)
	if err != nil {
		return nil, err
	}
	args, err := p.evalArgs(n.args, rs)
	if err != nil {
		return nil, err
	}
	f, ok := fv.(*values.Func)
	if !ok {
		return nil, at(n.pos, fmt.Errorf("called value is not a function"))
	}
	v, err := f.Fn(p.ctxFor(funcs.JoinKeyID(rs.key, "c", n.id)), args)
	return v, at(n.pos, err)
}

func (n *builtinIR) eval(p *pass, rs *rscope) (values.Value, error) {
	args, err := p.evalArgs(n.args, rs)
	if err != nil {
		return nil, err
	}
	key := funcs.JoinKeyID(rs.key, "b", n.id)
	call := &funcs.Call{Type: n.rsig, Args: args, Env: p.env(rs.s.mod)}
	if n.f.Stream != nil {
		v, err := p.stream(key, n, call)
		return v, at(n.pos, err)
	}
	if n.impl == nil {
		if n.f.Build != nil {
			impl, err := n.f.Build(n.rsig)
			if err != nil {
				return nil, at(n.pos, err)
			}
			n.impl = impl
		} else {
			n.impl = n.f.Impl
		}
	}
	v, err := n.impl(p.ctxFor(key), call)
	return v, at(n.pos, err)
}

func (n *ifIR) eval(p *pass, rs *rscope) (values.Value, error) {
	c, err := p.eval(n.cond, rs)
	if err != nil {
		return nil, err
	}
	if c.(values.Bool) {
		return p.eval(n.a, rs)
	}
	return p.eval(n.b, rs)
}

func (n *exceptIR) eval(p *pass, rs *rscope) (values.Value, error) {
	v, err := p.eval(n.a, rs)
	if err != nil && funcs.IsCatchable(err) {
		return p.eval(n.b, rs)
	}
	return v, err
}

func (n *notIR) eval(p *pass, rs *rscope) (values.Value, error) {
	v, err := p.eval(n.x, rs)
	if err != nil {
		return nil, err
	}
	return !v.(values.Bool), nil
}

func (n *indexIR) eval(p *pass, rs *rscope) (values.Value, error) {
	x, err := p.eval(n.x, rs)
	if err != nil {
		return nil, err
	}
	i, err := p.eval(n.i, rs)
	if err != nil {
		return nil, err
	}
	switch x := x.(type) {
	case *values.List:
		k := int64(i.(values.Int))
		if k < 0 || k >= int64(len(x.V)) {
			return nil, at(n.pos, funcs.Catchablef("list index %d out of range (length %d)", k, len(x.V)))
		}
		return x.V[k], nil
	case *values.Map:
		v, ok := x.Lookup(i)
		if !ok {
			return nil, at(n.pos, funcs.Catchablef("map key %s not found", i))
		}
		return v, nil
	}
	return nil, at(n.pos, fmt.Errorf("cannot index %s", x.Type()))
}

func (n *fieldIR) eval(p *pass, rs *rscope) (values.Value, error) {
	if n.absent {
		return p.eval(n.def, rs)
	}
	x, err := p.eval(n.x, rs)
	if err != nil {
		return nil, err
	}
	s, ok := x.(*values.Struct)
	if !ok {
		return nil, at(n.pos, fmt.Errorf("-> on a non-struct value"))
	}
	v, ok := s.Lookup(n.name)
	if !ok {
		return nil, at(n.pos, fmt.Errorf("struct has no field %q", n.name))
	}
	return v, nil
}

// typeOf is used by operators needing the dynamic kind of a value.
func typeOf(v values.Value) types.Kind { return v.Type().Prune().Kind }
