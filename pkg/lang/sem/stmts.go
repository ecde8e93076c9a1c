package sem

import (
	"fmt"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// metaTypes are the lang types of the metaparameters.
var metaTypes = map[string]*types.Type{
	"noop": types.Bool, "retry": types.Int, "retryreset": types.Bool, "delay": types.Int,
	"timeout": types.Int, "poll": types.Int, "limit": types.Float, "burst": types.Int,
	"reset": types.Bool, "sema": types.NewList(types.Str), "rewatch": types.Bool,
	"realize": types.Bool, "dollar": types.Bool, "hidden": types.Bool,
	"export": types.NewList(types.Str), "reverse": types.Bool, "autoedge": types.Bool,
	"autogroup": types.Bool,
}

// MetaStructType is the type of `Meta => struct{...}`.
var MetaStructType = types.MustParse("struct{noop bool; retry int; retryreset bool; delay int; timeout int; poll int; limit float; burst int; reset bool; sema []str; rewatch bool; realize bool; dollar bool; hidden bool; export []str; reverse bool; autoedge bool; autogroup bool}")

// lookupKind returns the schema of a resource kind, from the registry of
// pkg/graph that the resource packages fill.
func lookupKind(kind string) (*graph.KindSchema, bool) { return graph.LookupKind(kind) }

// noKind says that kind is not one of kinds (the registered ones), with
// the closest suggested.
func noKind(kind string, kinds []string) string {
	return fmt.Sprintf("no resource kind `%s` available%s", kind, suggest(kind, kinds))
}

func (c *checker) checkStmt(st ast.Stmt, s *Scope) stmtIR {
	switch st := st.(type) {
	case *ast.Bind:
		c.checkBind(s.vars[st.Name], st.Pos)
		return nil
	case *ast.FuncStmt, *ast.Class:
		return nil
	case *ast.Import:
		if a := s.aliasFor(st); a != nil && a.mod != nil {
			return &importIR{mod: a.mod}
		}
		return nil
	case *ast.Res:
		return c.checkRes(st, s)
	case *ast.Edge:
		n := &edgeIR{pos: st.Pos}
		if len(st.Halves) < 2 {
			c.typeErrf(st.Pos, "an edge needs two sides, got only %s: write Kind1[name1] -> Kind2[name2]", strings.TrimSpace(ast.Print(&ast.Prog{Stmts: []ast.Stmt{st}})))
		}
		for _, h := range st.Halves {
			hn := &edgeHalfIR{kind: h.Kind, name: c.checkExpr(h.Name, s), field: h.Field, pos: h.Pos}
			c.strOrList(h.Pos, hn.name.typ(), "an edge's resource name")
			n.halves = append(n.halves, hn)
		}
		c.checkSendRecvTypes(n)
		return n
	case *ast.If:
		n := &ifStmtIR{cond: c.checkExpr(st.Cond, s)}
		c.unify(st.Cond.Position(), n.cond.typ(), types.Bool, "if condition")
		n.then = c.checkProg(st.Then, newScope(s, s.mod))
		if st.Else != nil {
			n.els = c.checkProg(st.Else, newScope(s, s.mod))
		}
		return n
	case *ast.For:
		noImports(st.Body, st.Pos, "StmtFor")
		n := &forIR{list: c.checkExpr(st.List, s), pos: st.Pos, id: c.id()}
		elem := types.NewVar()
		c.unify(st.List.Position(), n.list.typ(), types.NewList(elem), "for loop over a list")
		bs := newScope(s, s.mod)
		c.addParams(bs, st.Pos, []string{st.Index, st.Value}, []*types.Type{types.Int, elem})
		n.pscope = bs
		n.body = c.checkProg(st.Body, newScope(bs, s.mod))
		return n
	case *ast.ForKV:
		noImports(st.Body, st.Pos, "StmtForKV")
		n := &forIR{list: c.checkExpr(st.Map, s), kv: true, pos: st.Pos, id: c.id()}
		k, v := types.NewVar(), types.NewVar()
		c.unify(st.Map.Position(), n.list.typ(), types.NewMap(k, v), "forkv loop over a map")
		bs := newScope(s, s.mod)
		c.addParams(bs, st.Pos, []string{st.Key, st.Val}, []*types.Type{k, v})
		n.pscope = bs
		n.body = c.checkProg(st.Body, newScope(bs, s.mod))
		return n
	case *ast.Include:
		if st.Alias != "" {
			a := s.aliases[st.Alias]
			c.prepareAlias(a)
			return &includeWalkIR{alias: a}
		}
		return &includeWalkIR{inc: c.instantiate(st, s)}
	case *ast.Panic:
		n := &panicIR{args: c.checkExprs(st.Args, s), pos: st.Pos}
		t := n.args[0].typ()
		if len(n.args) == 2 {
			c.unify(st.Pos, t, types.Bool, "panic condition")
			c.unify(st.Pos, n.args[1].typ(), types.Str, "panic message")
			return n
		}
		c.constrain(st.Pos, func(final bool) error {
			switch kindOf(t) {
			case types.KindBool, types.KindStr:
				return nil
			case types.KindVar:
				if !final {
					return funcs.ErrDefer
				}
			}
			return fmt.Errorf("panic takes a bool or a str, got %s", t.Resolve())
		}, t)
		return n
	}
	panic(fmt.Sprintf("sem: unknown statement %T", st))
}

// noImports rejects imports inside loop bodies: a module is loaded once,
// not once per iteration.
func noImports(body *ast.Prog, pos ast.Pos, what string) {
	for _, st := range body.Stmts {
		if _, ok := st.(*ast.Import); ok {
			panic(errAt(pos, StageRuntime, "a StmtImport can't be contained inside a %s", what))
		}
	}
}

func (c *checker) addParams(s *Scope, pos ast.Pos, names []string, ts []*types.Type) {
	for i, name := range names {
		if _, dup := s.vars[name]; dup {
			c.scopeErr(pos, "duplicate loop variable $%s", name)
		}
		s.add(&s.vars, &binding{kind: bkParam, name: name, pos: pos, typ: ts[i]})
	}
}

func (s *Scope) aliasFor(st *ast.Import) *binding {
	for _, b := range s.aliases {
		if b.pos == st.Pos {
			return b
		}
	}
	for _, b := range s.stars {
		if b.pos == st.Pos {
			return b
		}
	}
	return nil
}

// dupEntries refuses a field or a Meta: entry given twice in the body of
// st, even under conditions: which one would win would depend on the
// order of the body. Meta => struct{...} may repeat.
func (c *checker) dupEntries(st *ast.Res) {
	eachDup(len(st.Fields), func(i int) string { return st.Fields[i].Key }, func(i, first int) {
		f, g := st.Fields[i], st.Fields[first]
		hint := ""
		if f.Cond != nil || g.Cond != nil {
			hint = "; to choose between values, give the field once, with an if expression"
		}
		c.scopeErr(f.Pos, "resource has duplicate field %s (first at %s)%s", f.Key, g.Pos, hint)
	})
	eachDup(len(st.Metas), func(i int) string { return st.Metas[i].Prop }, func(i, first int) {
		c.scopeErr(st.Metas[i].Pos, "resource has duplicate meta entry Meta:%s (first at %s)", st.Metas[i].Prop, st.Metas[first].Pos)
	})
}

// eachDup calls dup(i, first) for each of n keys equal to an earlier one,
// first being the earliest; an empty key is never a duplicate. A short
// list is compared pairwise, a long one through a map, so that no input
// costs quadratic time.
func eachDup(n int, key func(int) string, dup func(i, first int)) {
	if n > 16 {
		seen := make(map[string]int, n)
		for i := range n {
			k := key(i)
			if k == "" {
				continue
			}
			if first, ok := seen[k]; ok {
				dup(i, first)
			} else {
				seen[k] = i
			}
		}
		return
	}
	for i := range n {
		k := key(i)
		if k == "" {
			continue
		}
		for j := range i {
			if key(j) == k {
				dup(i, j)
				break
			}
		}
	}
}

func (c *checker) checkRes(st *ast.Res, s *Scope) stmtIR {
	n := &resIR{kind: st.Kind, name: c.checkExpr(st.Name, s), pos: st.Pos}
	if st.Collect {
		f, ok := funcs.Lookup("", "_collect")
		if !ok {
			c.scopeErr(st.Pos, "collect needs the world functions, which this tool does not have")
		}
		call := &ast.Call{Pos: st.Pos, Name: "_collect", Args: []ast.Expr{&ast.Str{Pos: st.Pos, Value: st.Kind}, st.Name}}
		n.collect = c.callBuiltin(call, f, []node{&constIR{v: values.Str(st.Kind)}, n.name})
	} else {
		c.strOrList(st.Name.Position(), n.name.typ(), "a resource name")
	}
	schema, known := lookupKind(st.Kind)
	// Unknown kinds are an error when resources are registered at all
	// (without any, the compiler accepts every kind untyped).
	if !known {
		if kinds := graph.Kinds(); len(kinds) > 0 {
			n.unknown = noKind(st.Kind, kinds)
			if c.kindErrs == nil {
				c.kindErrs = map[ast.Pos]*graph.PosError{}
			}
			c.kindErrs[st.Pos] = errAt(st.Pos, StageRuntime, "%s", n.unknown)
		}
	}
	c.dupEntries(st)
	fields := make([]resFieldIR, len(st.Fields)) // one allocation for all
	n.fields = make([]*resFieldIR, 0, len(st.Fields))
	for i, f := range st.Fields {
		fn := &fields[i]
		*fn = resFieldIR{key: f.Key, val: c.checkExpr(f.Value, s), pos: f.Pos}
		if f.Cond != nil {
			fn.cond = c.checkExpr(f.Cond, s)
			c.unify(f.Cond.Position(), fn.cond.typ(), types.Bool, "condition of ?:")
		}
		if known {
			ts, ok := schema.Params[f.Key]
			if !ok {
				var names []string
				for k := range schema.Params {
					names = append(names, k)
				}
				c.typeErrf(f.Pos, "resource kind %s has no parameter %q%s", st.Kind, f.Key, suggest(f.Key, names))
			} else if t := c.paramType(ts); t != nil && t.Kind != types.KindVariant {
				// a variant parameter takes a value of any (concrete) type
				if !types.TryUnify(fn.val.typ(), t) {
					s := types.StringAll(t, fn.val.typ().Resolve())
					c.typeErrf(f.Pos, "parameter %s of %s wants %s, got %s (%s at %s)", f.Key, st.Kind, s[0], s[1], ast.PrintExpr(f.Value), f.Value.Position())
				} else if err := types.Unify(fn.val.typ(), t); err != nil {
					c.typeErrf(f.Pos, "parameter %s of %s: %v", f.Key, st.Kind, err)
				}
			}
		}
		c.needConcrete(f.Pos, "parameter", fn.val.typ(), &fn.rt)
		n.fields = append(n.fields, fn)
	}
	for _, m := range st.Metas {
		mn := &resMetaIR{prop: m.Prop, val: c.checkExpr(m.Value, s), pos: m.Pos}
		if m.Cond != nil {
			mn.cond = c.checkExpr(m.Cond, s)
			c.unify(m.Cond.Position(), mn.cond.typ(), types.Bool, "condition of ?:")
		}
		want := MetaStructType
		if m.Prop != "" {
			t, ok := metaTypes[m.Prop]
			if !ok {
				var names []string
				for k := range metaTypes {
					names = append(names, k)
				}
				c.typeErrf(m.Pos, "unknown metaparameter %q%s", m.Prop, suggest(m.Prop, names))
				continue
			}
			want = t
		}
		what := "Meta"
		if m.Prop != "" {
			what += ":" + m.Prop
		}
		c.unify(m.Pos, mn.val.typ(), want, what)
		n.metas = append(n.metas, mn)
	}
	for _, e := range st.Edges {
		en := &resEdgeIR{prop: e.Prop, kind: e.Kind, name: c.checkExpr(e.Name, s), pos: e.Pos}
		if e.Cond != nil {
			en.cond = c.checkExpr(e.Cond, s)
			c.unify(e.Cond.Position(), en.cond.typ(), types.Bool, "condition of ?:")
		}
		c.strOrList(e.Pos, en.name.typ(), "an edge's resource name")
		n.edges = append(n.edges, en)
	}
	return n
}

// paramType returns the type of a resource parameter, written ts in its
// kind's schema; nil if ts does not parse. A type without variables is
// parsed once and shared (unification never changes it).
func (c *checker) paramType(ts string) *types.Type {
	if t, ok := c.paramTypes[ts]; ok {
		return t
	}
	t, err := types.Parse(ts)
	if err != nil {
		t = nil
	}
	if t == nil || t.IsConcrete() {
		if c.paramTypes == nil {
			c.paramTypes = map[string]*types.Type{}
		}
		c.paramTypes[ts] = t
	}
	return t
}

// instantiate checks a fresh copy of the class named by an include
// statement, with its arguments, and returns the instance.
func (c *checker) instantiate(st *ast.Include, s *Scope) *includeIR {
	r, _, _ := c.resolve(s, bkClass, st.Name, st.Pos)
	if r.target == nil {
		c.scopeErr(st.Pos, "class %s does not exist%s", st.Name, suggest(st.Name, s.names(bkClass)))
	}
	b := r.target
	b.used = true
	if b.busy {
		c.scopeErr(st.Pos, "recursive include of class %s while setting scope: not a dag", b.name)
	}
	c.copies++
	if c.copies > maxCopies {
		c.scopeErr(st.Pos, "more than %d copies of functions and classes: nested includes grow too fast", maxCopies)
	}
	cl := b.class
	inst := &includeIR{r: r, pos: st.Pos, args: c.checkExprs(st.Args, s), name: st.Name, id: c.id()}
	if len(st.Args) != len(cl.Params) {
		c.scopeErr(st.Pos, "class %s takes %d arguments, got %d", st.Name, len(cl.Params), len(st.Args))
	}
	is := newScope(b.scope, b.scope.mod)
	for i, p := range cl.Params {
		t := p.Type
		if t == nil {
			t = types.NewVar()
		}
		if _, dup := is.vars[p.Name]; dup {
			c.scopeErr(p.Pos, "duplicate parameter $%s", p.Name)
		}
		is.add(&is.vars, &binding{kind: bkParam, name: p.Name, pos: p.Pos, typ: t})
		c.unify(st.Args[i].Position(), inst.args[i].typ(), t, fmt.Sprintf("argument $%s of class %s", p.Name, st.Name))
	}
	inst.pscope = is
	inst.scope = newScope(is, is.mod)
	c.declareNested(b, inst.scope)
	b.busy = true
	inst.body = c.checkProg(cl.Body, inst.scope)
	b.busy = false
	return inst
}

// declareImport adds the alias of an import statement to s, loading local
// modules.
func (c *checker) declareImport(st *ast.Import, s *Scope) {
	path := st.Path
	a := &binding{kind: bkAlias, pos: st.Pos}
	isLocal := strings.HasSuffix(path, ".mcl") || strings.HasSuffix(path, "/")
	if !isLocal {
		if !funcs.IsModule(path) {
			c.scopeErr(st.Pos, "import %q: no such core module%s", path, suggest(path, funcs.Modules()))
		}
		a.module = path
	} else {
		m, err := c.loader.load(c, s.mod, path, st.Pos)
		if err != nil {
			// A file that fails to parse is a failed import, reported
			// at the import (as upstream does) with the parser's error;
			// errors of checking the imported code stay where they are.
			if l, ok := graph.AsList(err); ok && len(l) > 0 {
				if l[0].Stage != StageSyntax {
					panic(l[0])
				}
				more := ""
				if len(l) > 1 {
					more = fmt.Sprintf(" (and %d more errors in the file)", len(l)-1)
				}
				c.scopeErr(st.Pos, "import %q: %v%s", path, l[0], more)
			}
			c.scopeErr(st.Pos, "import %q: %v", path, err)
		}
		a.mod = m
		a.target = m.scope
	}
	alias := st.Alias
	if alias == "" {
		alias = defaultAlias(path)
	}
	a.name = alias
	if alias == "*" {
		a.scope = s
		a.slot = s.nslots
		s.nslots++
		s.stars = append(s.stars, a)
		return
	}
	if old, dup := s.aliases[alias]; dup {
		c.scopeErr(st.Pos, "duplicate import name %s (first defined at %s)", alias, old.pos)
	}
	s.add(&s.aliases, a)
}

// defaultAlias is the last path segment, without .mcl, lower case, with
// "-" turned into "_" and a "mgmt-" prefix dropped.
func defaultAlias(path string) string {
	p := strings.TrimSuffix(strings.TrimSuffix(path, "/"), ".mcl")
	if i := strings.LastIndex(p, "/"); i >= 0 {
		p = p[i+1:]
	}
	p = strings.ToLower(p)
	p = strings.TrimPrefix(p, "mgmt-")
	return strings.ReplaceAll(p, "-", "_")
}
