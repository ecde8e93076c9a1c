package sem

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// maxCopies bounds the copies of func statements and classes (each use
// site checks its own copy, so nesting multiplies them).
const maxCopies = 100000

// maxCheckDepth bounds the checker's recursion, so that a hostile program
// gets an error instead of exhausting the stack: the nesting of the syntax
// tree (at most 500 levels, the parser's limit) plus the chains the
// checker follows into the definitions of the variables, functions,
// classes and modules an expression uses (each checked at its first use).
const maxCheckDepth = 10000

// checker resolves names and types a program, building its IR. Scope
// errors abort at once (panic with *graph.PosError, recovered in Check); type
// errors are recorded (all of them, up to graph.MaxStageErrors) so that
// scope errors found later in the walk still win, as the stages run in
// that order.
type checker struct {
	copies  int
	depth   int
	numbers types.Numbering // of the concrete argument types of calls
	global  *Scope
	loader  *loader
	cons    []*constraint
	finals  []func() error
	errs    graph.ErrorList // the type errors
	nextID  int
	// kindErrs are the resource statements of an unknown kind, by
	// position (a class included twice is checked twice).
	kindErrs map[ast.Pos]*graph.PosError
	// paramTypes are the parsed types of resource parameters, by their
	// text in the kind schemas (see paramType).
	paramTypes map[string]*types.Type
}

func (c *checker) scopeErr(pos ast.Pos, format string, args ...any) {
	panic(errAt(pos, StageScope, format, args...))
}

// typeErrf records a type error; one at the same position as the last is
// left out (a mistake seen again by an enclosing expression).
func (c *checker) typeErrf(pos ast.Pos, format string, args ...any) {
	e := errAt(pos, StageType, format, args...)
	if n := len(c.errs); n > 0 && c.errs[n-1].Pos == e.Pos {
		return
	}
	c.errs.Append(e)
}

func (c *checker) unify(pos ast.Pos, a, b *types.Type, what string) {
	if err := types.Unify(a, b); err != nil {
		c.typeErrf(pos, "%s: %v", what, err)
	}
}

// unifySides unifies the types of two expressions, naming both with their
// positions on a conflict.
func (c *checker) unifySides(pos ast.Pos, what string, a ast.Expr, ta *types.Type, b ast.Expr, tb *types.Type) {
	if err := types.Unify(ta, tb); err != nil {
		s := types.StringAll(ta.Resolve(), tb.Resolve())
		c.typeErrf(pos, "%s: %s (%s at %s) does not match %s (%s at %s)", what,
			s[0], ast.PrintExpr(a), a.Position(), s[1], ast.PrintExpr(b), b.Position())
	}
}

func (c *checker) id() int {
	c.nextID++
	return c.nextID
}

// declare adds the definitions of a statement list to s.
func (c *checker) declare(stmts []ast.Stmt, s *Scope) {
	if s.vars == nil {
		n := 0
		for _, st := range stmts {
			if _, ok := st.(*ast.Bind); ok {
				n++
			}
		}
		if n > 0 {
			s.vars = make(map[string]*binding, n)
		}
	}
	for _, st := range stmts {
		switch st := st.(type) {
		case *ast.Bind:
			if old, dup := s.vars[st.Name]; dup {
				c.scopeErr(st.Pos, "duplicate variable $%s (first defined at %s)", st.Name, old.pos)
			}
			s.add(&s.vars, &binding{kind: bkBind, name: st.Name, pos: st.Pos, expr: st.Value, annot: st.Type})
		case *ast.FuncStmt:
			if old, dup := s.funcs[st.Name]; dup {
				c.scopeErr(st.Pos, "duplicate function %s (first defined at %s)", st.Name, old.pos)
			}
			s.add(&s.funcs, &binding{kind: bkFunc, name: st.Name, pos: st.Pos, fn: st})
		case *ast.Class:
			if i := strings.LastIndex(st.Name, ":"); i >= 0 {
				if s.nested == nil {
					s.nested = map[string][]*ast.Class{}
				}
				s.nested[st.Name[:i]] = append(s.nested[st.Name[:i]], st)
				continue
			}
			if old, dup := s.classes[st.Name]; dup {
				c.scopeErr(st.Pos, "duplicate class %s (first defined at %s)", st.Name, old.pos)
			}
			s.add(&s.classes, &binding{kind: bkClass, name: st.Name, pos: st.Pos, class: st, full: st.Name, nestedIn: s})
		case *ast.Import:
			c.declareImport(st, s)
		case *ast.Include:
			if st.Alias == "" {
				continue
			}
			if old, dup := s.aliases[st.Alias]; dup {
				c.scopeErr(st.Pos, "duplicate name %s (first defined at %s)", st.Alias, old.pos)
			}
			s.add(&s.aliases, &binding{kind: bkAlias, name: st.Alias, pos: st.Pos, incAST: st, incEnv: s})
		}
	}
}

// declareNested declares in an instance of class b the classes written
// `class b:name` next to b's definition.
func (c *checker) declareNested(b *binding, s *Scope) {
	if b.nestedIn == nil {
		return
	}
	for _, cl := range b.nestedIn.nested[b.full] {
		short := cl.Name[strings.LastIndex(cl.Name, ":")+1:]
		if old, dup := s.classes[short]; dup {
			c.scopeErr(cl.Pos, "duplicate class %s (first defined at %s)", cl.Name, old.pos)
		}
		s.add(&s.classes, &binding{kind: bkClass, name: short, pos: cl.Pos, class: cl, full: cl.Name, nestedIn: b.nestedIn})
	}
}

// enter counts one more level of the checker's recursion, at pos; leave
// ends it. Past maxCheckDepth it aborts with a positioned error (there is
// no level to return to but the top).
func (c *checker) enter(pos ast.Pos) {
	c.depth++
	if c.depth > maxCheckDepth {
		c.scopeErr(pos, "program nested too deeply: more than %d levels of expressions, counting those of the variables, functions, classes and modules they use (split long chains of definitions)", maxCheckDepth)
	}
}

func (c *checker) leave() { c.depth-- }

// checkProg declares and checks a statement list in scope s.
func (c *checker) checkProg(prog *ast.Prog, s *Scope) *progIR {
	c.enter(prog.Pos)
	defer c.leave()
	c.declare(prog.Stmts, s)
	p := &progIR{scope: s, pos: prog.Pos}
	for _, st := range prog.Stmts {
		if ir := c.checkStmt(st, s); ir != nil {
			p.stmts = append(p.stmts, ir)
		}
	}
	return p
}

// checkBind types the expression of a bind (once).
func (c *checker) checkBind(b *binding, usePos ast.Pos) {
	switch b.state {
	case 2:
		return
	case 1:
		c.scopeErr(usePos, "recursive reference to $%s while setting scope: not a dag", b.name)
	}
	b.state = 1
	b.ir = c.checkExpr(b.expr, b.scope)
	b.typ = b.ir.typ()
	if b.annot != nil && !types.TryUnify(b.annot, b.typ) {
		s := types.StringAll(b.annot, b.typ.Resolve())
		c.typeErrf(b.pos, "$%s is annotated %s, but its value (%s at %s) is %s", b.name, s[0], ast.PrintExpr(b.expr), b.expr.Position(), s[1])
	} else if b.annot != nil {
		c.unify(b.pos, b.annot, b.typ, fmt.Sprintf("$%s", b.name))
	}
	b.state = 2
}

// lookupAlias finds an alias by name in s and its parents.
func (c *checker) lookupAlias(s *Scope, name string) (*binding, []*binding) {
	for sc := s; sc != nil; sc = sc.parent {
		if b, path := sc.lookupLocal(bkAlias, name); b != nil {
			return b, path
		}
	}
	return nil, nil
}

// prepareAlias makes sure an alias's namespace exists (include-as aliases
// are instantiated on first use).
func (c *checker) prepareAlias(a *binding) {
	if a.incAST != nil && a.include == nil {
		if a.busy {
			c.scopeErr(a.pos, "recursive reference to %s while setting scope: not a dag", a.name)
		}
		a.busy = true
		a.include = c.instantiate(a.incAST, a.incEnv)
		a.target = a.include.scope
		a.busy = false
	}
}

// resolve finds a dotted name of the given kind from scope s. For funcs it
// may return a core module name instead (module != "").
func (c *checker) resolve(s *Scope, kind bindKind, name string, pos ast.Pos) (r ref, module, fname string) {
	if !strings.Contains(name, ".") {
		for sc := s; sc != nil; sc = sc.parent {
			if b, path := sc.lookupLocal(kind, name); b != nil {
				return ref{path: path, target: b}, "", ""
			}
		}
		return ref{}, "", ""
	}
	parts := strings.Split(name, ".")
	last := parts[len(parts)-1]
	a, path := c.lookupAlias(s, parts[0])
	if a == nil {
		return ref{}, "", ""
	}
	for i := 1; ; i++ {
		c.prepareAlias(a)
		path = append(path, a)
		if a.module != "" {
			if kind == bkFunc || kind == bkBind {
				mod := a.module
				if i < len(parts)-1 {
					mod += "/" + strings.Join(parts[i:len(parts)-1], "/")
				}
				return ref{}, mod, last
			}
			return ref{}, "", ""
		}
		if i == len(parts)-1 {
			break
		}
		var next *binding
		var sub []*binding
		for sc := a.target; sc != nil && next == nil; sc = sc.parent {
			next, sub = sc.lookupLocal(bkAlias, parts[i])
		}
		if next == nil {
			return ref{}, "", ""
		}
		path = append(path, sub...)
		a = next
	}
	for sc := a.target; sc != nil; sc = sc.parent {
		if b, sub := sc.lookupLocal(kind, last); b != nil {
			return ref{path: append(path, sub...), target: b}, "", ""
		}
	}
	return ref{}, "", ""
}

// starModule returns the core module imported into the scope (`import
// "fmt" as *`) that has name, looking from s outwards and, within a scope,
// from the last such import; "" when none has it. has says whether a
// module has the name.
func starModule[T any](s *Scope, name string, has func(module, name string) (T, bool)) string {
	for sc := s; sc != nil; sc = sc.parent {
		for i := len(sc.stars) - 1; i >= 0; i-- {
			if m := sc.stars[i].module; m != "" {
				if _, ok := has(m, name); ok {
					return m
				}
			}
		}
	}
	return ""
}

func (c *checker) checkExprs(es []ast.Expr, s *Scope) []node {
	out := make([]node, len(es))
	for i, e := range es {
		out[i] = c.checkExpr(e, s)
	}
	return out
}

// checkExpr checks e in scope s and returns its IR.
func (c *checker) checkExpr(e ast.Expr, s *Scope) node {
	c.enter(e.Position())
	defer c.leave()
	return c.checkExprIn(e, s)
}

func (c *checker) checkExprIn(e ast.Expr, s *Scope) node {
	switch e := e.(type) {
	case *ast.Bool:
		return &constIR{v: values.Bool(e.Value)}
	case *ast.Str:
		return &constIR{v: values.Str(e.Value)}
	case *ast.Int:
		return &constIR{v: values.Int(e.Value)}
	case *ast.Float:
		return &constIR{v: values.Float(e.Value)}
	case *ast.Interp:
		n := &interpIR{parts: c.checkExprs(e.Parts, s)}
		for _, p := range n.parts {
			if _, ok := p.(*constIR); !ok {
				c.unify(e.Pos, p.typ(), types.Str, "interpolated variable must be a str")
			}
		}
		return n
	case *ast.List:
		n := &listIR{t: types.NewList(types.NewVar()), elems: c.checkExprs(e.Elems, s), pos: e.Pos}
		for i, el := range n.elems {
			c.unify(e.Elems[i].Position(), el.typ(), n.t.Elem, "list element")
		}
		c.needConcrete(e.Pos, "list", n.t, &n.rt)
		return n
	case *ast.Map:
		n := &mapIR{t: types.NewMap(types.NewVar(), types.NewVar()), keys: c.checkExprs(e.Keys, s), vals: c.checkExprs(e.Vals, s), pos: e.Pos}
		for i := range n.keys {
			c.unify(e.Keys[i].Position(), n.keys[i].typ(), n.t.Key, "map key")
			c.unify(e.Vals[i].Position(), n.vals[i].typ(), n.t.Val, "map value")
		}
		c.needConcrete(e.Pos, "map", n.t, &n.rt)
		c.dupMapKeys(e.Pos, n.keys)
		c.finals = append(c.finals, func() error { return mapKeyHashable(e.Pos, n.t.Key) })
		return n
	case *ast.Struct:
		n := &structIR{vals: c.checkExprs(e.Values, s), names: e.Names, pos: e.Pos}
		var fs []types.Field
		seen := map[string]bool{}
		for i, name := range e.Names {
			if seen[name] {
				c.finals = append(c.finals, func() error {
					return errAt(e.Pos, StageRuntime, "duplicate struct field name of: `%s`", name)
				})
				continue
			}
			seen[name] = true
			fs = append(fs, types.Field{Name: name, Type: n.vals[i].typ()})
		}
		n.t = types.NewStruct(fs...)
		c.needConcrete(e.Pos, "struct", n.t, &n.rt)
		return n
	case *ast.Var:
		return c.checkVar(e, s)
	case *ast.Call:
		return c.checkCall(e, s)
	case *ast.Lambda:
		return c.checkLambda(e, s)
	case *ast.IfExpr:
		n := &ifIR{cond: c.checkExpr(e.Cond, s), a: c.checkExpr(e.Then, s), b: c.checkExpr(e.Else, s)}
		c.unify(e.Cond.Position(), n.cond.typ(), types.Bool, "if condition")
		c.unifySides(e.Pos, "if branches", e.Then, n.a.typ(), e.Else, n.b.typ())
		return n
	case *ast.Except:
		if f, ok := e.A.(*ast.Field); ok {
			return c.checkOptionalField(f, e.B, s)
		}
		n := &exceptIR{a: c.checkExpr(e.A, s), b: c.checkExpr(e.B, s)}
		c.unifySides(e.Pos, "both sides of <|>", e.A, n.a.typ(), e.B, n.b.typ())
		return n
	case *ast.Binary:
		return c.checkBinary(e, s)
	case *ast.Not:
		n := &notIR{x: c.checkExpr(e.X, s)}
		c.unify(e.Pos, n.x.typ(), types.Bool, "operand of not")
		return n
	case *ast.Index:
		return c.checkIndex(e, s)
	case *ast.Field:
		return c.checkField(e, s)
	}
	panic(fmt.Sprintf("sem: unknown expression %T", e))
}

// dupMapKeys refuses a map literal with a key written twice as the same
// constant, as the reference does when it sets the literal up (a run-time
// error, reported whether or not the map is used). Keys computed by
// expressions may repeat: the last one wins.
func (c *checker) dupMapKeys(pos ast.Pos, keys []node) {
	seen := map[string]bool{}
	for _, k := range keys {
		kc, ok := k.(*constIR)
		if !ok {
			continue
		}
		s := kc.v.String()
		if seen[s] {
			c.finals = append(c.finals, func() error {
				return errAt(pos, StageRuntime, "duplicate map key: %s", s)
			})
			return
		}
		seen[s] = true
	}
}

func (c *checker) checkVar(e *ast.Var, s *Scope) node {
	r, module, name := c.resolve(s, bkBind, e.Name, e.Pos)
	if r.target == nil && module == "" && !strings.Contains(e.Name, ".") {
		module, name = starModule(s, e.Name, funcs.LookupVar), e.Name
	}
	if r.target == nil && module != "" {
		if v, ok := funcs.LookupVar(module, name); ok {
			return &constIR{v: v}
		}
		c.scopeErr(e.Pos, "variable $%s does not exist%s", e.Name, suggest(name, funcs.ModuleVars(module)))
	}
	if r.target == nil {
		if strings.HasPrefix(e.Name, "const.") {
			return &constIR{v: constValue(e.Name)}
		}
		c.scopeErr(e.Pos, "variable $%s does not exist%s", e.Name, suggest(e.Name, s.names(bkBind)))
	}
	b := r.target
	if b.kind == bkBind {
		c.checkBind(b, e.Pos)
	}
	return &varIR{r: r, t: b.typ, name: e.Name, pos: e.Pos}
}

func (c *checker) checkLambda(e *ast.Lambda, s *Scope) *lambdaIR {
	ls := newScope(s, s.mod)
	n := &lambdaIR{scope: ls, pos: e.Pos, id: c.id()}
	fs := make([]types.Field, len(e.Params))
	for i, p := range e.Params {
		if _, dup := ls.vars[p.Name]; dup {
			c.scopeErr(p.Pos, "duplicate parameter $%s", p.Name)
		}
		t := p.Type
		if t == nil {
			t = types.NewVar()
		}
		ls.add(&ls.vars, &binding{kind: bkParam, name: p.Name, pos: p.Pos, typ: t})
		fs[i] = types.Field{Name: p.Name, Type: t}
	}
	n.nparams = len(e.Params)
	n.body = c.checkExpr(e.Body, ls)
	out := n.body.typ()
	if e.Out != nil {
		c.unify(e.Pos, e.Out, out, "function result")
	}
	n.t = types.NewFunc(fs, out)
	c.needConcrete(e.Pos, "function", n.t, &n.rt)
	return n
}

func (c *checker) checkCall(e *ast.Call, s *Scope) node {
	args := c.checkExprs(e.Args, s)
	if e.Fn != nil {
		fn := c.checkExpr(e.Fn, s)
		out := types.NewVar()
		argTypes := make([]*types.Type, len(args))
		for i, a := range args {
			argTypes[i] = a.typ()
		}
		c.unify(e.Pos, fn.typ(), types.NewFuncOf(out, argTypes...), "call of a function value")
		return &callIR{fn: fn, args: args, t: out, id: c.id(), pos: e.Pos}
	}
	r, module, fname := c.resolve(s, bkFunc, e.Name, e.Pos)
	if r.target != nil {
		return c.callUserFunc(e, r, args)
	}
	if module == "" && !strings.Contains(e.Name, ".") {
		fname = e.Name
		module = starModule(s, e.Name, funcs.Lookup)
	}
	if module == "" && strings.Contains(e.Name, ".") {
		c.scopeErr(e.Pos, "function %s does not exist (no such module or alias %q)", e.Name, strings.Split(e.Name, ".")[0])
	}
	f, ok := funcs.Lookup(module, fname)
	if !ok {
		var names []string
		if module == "" {
			names = append(s.names(bkFunc), funcs.ModuleFuncs("")...)
		} else {
			names = funcs.ModuleFuncs(module)
		}
		c.scopeErr(e.Pos, "function %s does not exist%s", e.Name, suggest(fname, names))
	}
	return c.callBuiltin(e, f, args)
}

func (c *checker) callUserFunc(e *ast.Call, r ref, args []node) node {
	b := r.target
	if b.busy {
		c.scopeErr(e.Pos, "recursive call of %s while setting scope: not a dag", b.name)
	}
	// A copy checked for the same concrete argument types is reused: its
	// typing would be identical, and this keeps nested polymorphic calls
	// linear instead of exponential.
	key := ""
	if len(args) == len(b.fn.Func.Params) {
		ts := make([]string, len(args))
		for i, a := range args {
			t := a.typ()
			if !t.IsConcrete() || t.TooDeep() {
				ts = nil
				break
			}
			ts[i] = strconv.Itoa(c.numbers.Of(t))
		}
		if ts != nil {
			key = strings.Join(ts, ",")
			if lam, ok := b.instances[key]; ok {
				return &callIR{fn: &instIR{r: r, lam: lam}, args: args, t: lam.t.Out, id: c.id(), pos: e.Pos}
			}
		}
	}
	c.copies++
	if c.copies > maxCopies {
		c.scopeErr(e.Pos, "more than %d copies of functions and classes: nested polymorphic calls grow too fast", maxCopies)
	}
	b.busy, b.used = true, true
	lam := c.checkLambda(b.fn.Func, b.scope)
	b.busy = false
	if key != "" {
		for i, a := range args {
			c.unify(e.Args[i].Position(), a.typ(), lam.t.Fields[i].Type, fmt.Sprintf("argument %d of %s", i+1, e.Name))
		}
		if b.instances == nil {
			b.instances = map[string]*lambdaIR{}
		}
		b.instances[key] = lam
	}
	if len(args) != lam.nparams {
		c.typeErrf(e.Pos, "function %s takes %d arguments, got %d", e.Name, lam.nparams, len(args))
		return &callIR{fn: &instIR{r: r, lam: lam}, args: args, t: types.NewVar(), id: c.id(), pos: e.Pos}
	}
	for i, a := range args {
		c.unify(e.Args[i].Position(), a.typ(), lam.t.Fields[i].Type, fmt.Sprintf("argument %d of %s", i+1, e.Name))
	}
	return &callIR{fn: &instIR{r: r, lam: lam}, args: args, t: lam.t.Out, id: c.id(), pos: e.Pos}
}

func (c *checker) callBuiltin(e *ast.Call, f *funcs.Func, args []node) node {
	n := &builtinIR{f: f, args: args, id: c.id(), pos: e.Pos, name: e.Name}
	ic := &funcs.InferCtx{Out: types.NewVar(), Args: make([]*types.Type, len(args)), Consts: make([]values.Value, len(args))}
	for i, a := range args {
		ic.Args[i] = a.typ()
		if k, ok := a.(*constIR); ok {
			ic.Consts[i] = k.v
		}
	}
	n.sig = ic.Sig()
	infer := f.Infer
	if infer == nil {
		infer = funcs.InferSigs(f.Sigs)
	}
	c.constrain(e.Pos, func(final bool) error {
		ic.Final = final
		if err := infer(ic); err != nil {
			if err == funcs.ErrDefer {
				return err
			}
			return fmt.Errorf("call of %s: %v", e.Name, err)
		}
		return nil
	}, n.sig) // the signature holds the arguments and the result
	c.needConcrete(e.Pos, "call of "+e.Name, n.sig, &n.rsig)
	return n
}

// constValue is the value of $const.NAME: a named value its kind declares
// ($const.res.KIND.PARAM.VALUE, of the parameter's type), "" for
// "undefined" (a parameter left unset, as upstream mgmt has it), and
// otherwise its last part as a str ($const.res.file.state.exists is
// "exists").
func constValue(name string) values.Value {
	parts := strings.Split(name, ".")
	last := parts[len(parts)-1]
	if len(parts) == 5 && parts[1] == "res" {
		if s, ok := graph.LookupKind(parts[2]); ok {
			switch v := s.Consts[parts[3]][last].(type) {
			case int64:
				return values.Int(v)
			case string:
				return values.Str(v)
			}
		}
	}
	if last == "undefined" {
		return values.Str("")
	}
	return values.Str(last)
}
