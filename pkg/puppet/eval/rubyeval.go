package eval

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// Ruby values: nil, bool, int64, float64, string, rsym, *rarray, *rhash,
// rclass (Array, Hash, String ... for is_a? and case), rrange and rscope
// (the template's scope object).
type (
	rsym   string
	rclass string
	rscope struct{}
	rrange struct {
		lo, hi int64
		excl   bool
	}
	// rarray is a Ruby array; its puppet field (as rhash's) marks one made
	// from a Puppet value, which the template may not change: Puppet
	// shares it.
	rarray struct {
		v      []any
		puppet bool
	}
	rhash struct {
		keys   []any
		m      map[rkey]any
		def    any // Hash.new(def): the value of a missing key
		puppet bool
	}
	rkey struct {
		kind string
		s    string
	}
)

func newRHash() *rhash { return &rhash{m: map[rkey]any{}} }

func keyOf(v any) rkey {
	switch x := v.(type) {
	case string:
		return rkey{"s", x}
	case rsym:
		return rkey{"y", string(x)}
	case int64:
		return rkey{"i", strconv.FormatInt(x, 10)}
	case nil:
		return rkey{"n", ""}
	case bool:
		return rkey{"b", strconv.FormatBool(x)}
	}
	return rkey{"?", rubyInspectValue(v)}
}

func (h *rhash) set(k, v any) {
	key := keyOf(k)
	if _, ok := h.m[key]; !ok {
		h.keys = append(h.keys, k)
	}
	h.m[key] = v
}

func (h *rhash) get(k any) (any, bool) {
	v, ok := h.m[keyOf(k)]
	return v, ok
}

// Control flow in blocks.
type (
	rnextSignal  struct{ v any }
	rbreakSignal struct{ v any }
)

// An rctx is one template rendering.
type rctx struct {
	e     *evaluator
	s     *scope
	file  string
	texts []string
	out   strings.Builder
	match rmatchState // $~ (rubymore.go)
}

// An renv holds local variables; a block's sees and assigns its outer
// ones.
type renv struct {
	vars   map[string]any
	parent *renv
}

func (v *renv) lookup(name string) (any, bool) {
	for env := v; env != nil; env = env.parent {
		if x, ok := env.vars[name]; ok {
			return x, true
		}
	}
	return nil, false
}

func (v *renv) assign(name string, x any) {
	for env := v; env != nil; env = env.parent {
		if _, ok := env.vars[name]; ok {
			env.vars[name] = x
			return
		}
	}
	v.vars[name] = x
}

func (r *rctx) fail(p syntax.Pos, what string) {
	panic(syntax.Unsupported(p, "Ruby in a template: "+what))
}

func (r *rctx) block(env *renv, stmts []*rnode) any {
	var last any
	for _, st := range stmts {
		last = r.eval(env, st)
	}
	return last
}

func (r *rctx) eval(env *renv, n *rnode) any {
	r.e.tick()
	switch n.kind {
	case "lit":
		return n.val
	case "str":
		var b strings.Builder
		for _, part := range n.args {
			b.WriteString(rubyToS(r.eval(env, part)))
		}
		return b.String()
	case "regex":
		return r.regexp(n.pos, n.val.(string), n.name)
	case "nthref":
		return r.nthRef(n.pos, n.val.(int64))
	case "indexassign":
		return r.indexAssign(env, n)
	case "ivar":
		return toRuby(r, n.pos, r.e.lookup(r.s, n.pos, n.name))
	case "ident":
		if v, ok := env.lookup(n.name); ok {
			return v
		}
		if n.name == "scope" {
			return rscope{}
		}
		return r.call(env, &rnode{kind: "call", pos: n.pos, name: n.name})
	case "const":
		switch n.name {
		case "Array", "Hash", "String", "Integer", "Fixnum", "Float", "Numeric", "Symbol",
			"NilClass", "TrueClass", "FalseClass":
			return rclass(n.name)
		}
		r.fail(n.pos, "the constant "+n.name)
	case "call":
		return r.call(env, n)
	case "index":
		return r.index(env, n)
	case "op":
		return r.binop(env, n)
	case "not":
		return !rtruthy(r.eval(env, n.a))
	case "and":
		l := r.eval(env, n.a)
		if !rtruthy(l) {
			return l
		}
		return r.eval(env, n.b)
	case "or":
		l := r.eval(env, n.a)
		if rtruthy(l) {
			return l
		}
		return r.eval(env, n.b)
	case "ternary":
		if rtruthy(r.eval(env, n.a)) {
			return r.eval(env, n.b)
		}
		return r.eval(env, n.c)
	case "if":
		if rtruthy(r.eval(env, n.a)) != n.not {
			return r.block(env, n.body[0])
		}
		return r.block(env, n.body[1])
	case "case":
		return r.caseExpr(env, n)
	case "seq":
		return r.block(env, n.args)
	case "array":
		out := &rarray{}
		for _, el := range n.args {
			out.v = append(out.v, r.eval(env, el))
		}
		return out
	case "hash":
		h := newRHash()
		for i := 0; i+1 < len(n.args); i += 2 {
			h.set(r.eval(env, n.args[i]), r.eval(env, n.args[i+1]))
		}
		return h
	case "assign":
		v := r.eval(env, n.a)
		env.assign(n.name, v)
		return v
	case "opassign":
		return r.opAssign(env, n)
	case "range":
		lo, ok1 := r.eval(env, n.a).(int64)
		hi, ok2 := r.eval(env, n.b).(int64)
		if !ok1 || !ok2 {
			r.fail(n.pos, "ranges of non-integers")
		}
		return rrange{lo: lo, hi: hi, excl: n.not}
	case "defined":
		return r.defined(env, n.a)
	case "next":
		var v any
		if n.a != nil {
			v = r.eval(env, n.a)
		}
		panic(rnextSignal{v})
	case "break":
		var v any
		if n.a != nil {
			v = r.eval(env, n.a)
		}
		panic(rbreakSignal{v})
	}
	r.fail(n.pos, "this expression ("+n.kind+")")
	return nil
}

func (r *rctx) defined(env *renv, n *rnode) any {
	switch n.kind {
	case "ivar":
		// Puppet sets instance variables for the defined, non-undef
		// variables only
		if r.e.varDefined(r.s, n.name) && r.e.lookup(r.s, n.pos, n.name) != nil {
			return "instance-variable"
		}
		return nil
	case "ident":
		if _, ok := env.lookup(n.name); ok {
			return "local-variable"
		}
		return nil
	}
	r.fail(n.pos, "defined? of this expression")
	return nil
}

func (r *rctx) opAssign(env *renv, n *rnode) any {
	old, _ := env.lookup(n.name)
	switch n.val.(string) {
	case "||":
		if rtruthy(old) {
			return old
		}
		v := r.eval(env, n.a)
		env.assign(n.name, v)
		return v
	case "&&":
		if !rtruthy(old) {
			return old
		}
		v := r.eval(env, n.a)
		env.assign(n.name, v)
		return v
	}
	v := r.arith(n.pos, n.val.(string), old, r.eval(env, n.a))
	env.assign(n.name, v)
	return v
}

func (r *rctx) caseExpr(env *renv, n *rnode) any {
	var subject any
	if n.a != nil {
		subject = r.eval(env, n.a)
	}
	for i, vals := range n.whens {
		for _, vn := range vals {
			v := r.eval(env, vn)
			if n.a == nil && rtruthy(v) || n.a != nil && r.caseEq(vn.pos, v, subject) {
				return r.block(env, n.body[i])
			}
		}
	}
	return r.block(env, n.body[len(n.body)-1])
}

// caseEq is Ruby's ===: a class matches its instances, a regexp matching
// strings, a range its members, anything else ==.
func (r *rctx) caseEq(p syntax.Pos, pattern, v any) bool {
	switch x := pattern.(type) {
	case rclass:
		return rIsA(v, x)
	case *regexp.Regexp:
		switch s := v.(type) {
		case string:
			return r.setMatch(x, s) != nil
		case rsym:
			return r.setMatch(x, string(s)) != nil
		}
		r.match.lost = true
		return false
	case rrange:
		n, ok := v.(int64)
		return ok && n >= x.lo && (n < x.hi || !x.excl && n == x.hi)
	}
	return rEqual(pattern, v)
}

func (r *rctx) regexp(p syntax.Pos, pat, flags string) *regexp.Regexp {
	prefix := "(?m"
	if strings.Contains(flags, "i") {
		prefix += "i"
	}
	if strings.Contains(flags, "m") {
		prefix += "s"
	}
	re, err := regexp.Compile(prefix + ")" + pat)
	if err != nil {
		r.fail(p, "the regexp /"+pat+"/ ("+err.Error()+")")
	}
	named, numbered := false, false
	for _, name := range re.SubexpNames()[1:] {
		named, numbered = named || name != "", numbered || name == ""
	}
	if named && numbered {
		// Ruby does not capture (...) in a regexp with named groups
		r.fail(p, "the regexp /"+pat+"/: named groups beside unnamed ones")
	}
	return re
}

func (r *rctx) index(env *renv, n *rnode) any {
	recv := r.eval(env, n.recv)
	args := r.args(env, n.args)
	if _, isScope := recv.(rscope); isScope {
		if len(args) != 1 {
			r.fail(n.pos, "scope[] with several arguments")
		}
		return r.lookupvar(n.pos, rubyToS(args[0]))
	}
	return r.method(n.pos, recv, "[]", args, nil, env)
}

func (r *rctx) args(env *renv, ns []*rnode) []any {
	out := make([]any, len(ns))
	for i, a := range ns {
		out[i] = r.eval(env, a)
	}
	return out
}

// lookupvar reads a Puppet variable for scope['x'] or
// scope.lookupvar('x'): undef (and unknown variables) become nil.
func (r *rctx) lookupvar(p syntax.Pos, name string) any {
	return toRuby(r, p, r.e.lookup(r.s, p, strings.TrimPrefix(name, "$")))
}

func (r *rctx) call(env *renv, n *rnode) any {
	if n.recv == nil {
		if v, ok := r.erbCall(env, n); ok {
			return v
		}
	}
	var recv any
	if n.recv != nil {
		recv = r.eval(env, n.recv)
	}
	args := r.args(env, n.args)
	if n.recv == nil {
		return r.kernel(env, n, args)
	}
	switch x := recv.(type) {
	case rscope:
		return r.scopeCall(n, args)
	case rclass:
		return r.classMethod(n.pos, x, n.name, args, n.blk)
	}
	return r.method(n.pos, recv, n.name, args, n.blk, env)
}

// kernel handles calls without a receiver: Array(x), String(x),
// Integer(x), Float(x), sprintf and format.
func (r *rctx) kernel(env *renv, n *rnode, args []any) any {
	one := func() any {
		if len(args) != 1 {
			r.fail(n.pos, n.name+"() with "+strconv.Itoa(len(args))+" arguments")
		}
		return args[0]
	}
	switch n.name {
	case "Array":
		switch v := one().(type) {
		case nil:
			return &rarray{}
		case *rarray:
			return v
		case *rhash:
			return r.method(n.pos, v, "to_a", nil, nil, env)
		default:
			return &rarray{v: []any{v}}
		}
	case "String":
		return rubyToS(one())
	case "Integer":
		switch v := one().(type) {
		case int64:
			return v
		case float64:
			return int64(v)
		case string:
			i, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(v), "_", ""), 0, 64)
			if err != nil {
				r.fail(n.pos, "Integer() of "+rubyInspectValue(v))
			}
			return i
		}
	case "Float":
		switch v := one().(type) {
		case int64:
			return float64(v)
		case float64:
			return v
		case string:
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				r.fail(n.pos, "Float() of "+rubyInspectValue(v))
			}
			return f
		}
	case "sprintf", "format":
		if len(args) == 0 {
			r.fail(n.pos, n.name+"() without a format")
		}
		return r.format(n.pos, rubyToS(args[0]), args[1:])
	}
	r.fail(n.pos, "the method "+n.name)
	return nil
}

// scopeCall handles scope.lookupvar, scope.function_NAME([args]) and
// scope.call_function('NAME', [args]).
func (r *rctx) scopeCall(n *rnode, args []any) any {
	switch {
	case n.name == "to_hash" && len(args) == 0:
		return rscopeHash{p: n.pos}
	case n.name == "lookupvar" || n.name == "[]":
		if len(args) != 1 {
			r.fail(n.pos, "scope.lookupvar with several arguments")
		}
		return r.lookupvar(n.pos, rubyToS(args[0]))
	case strings.HasPrefix(n.name, "function_"):
		var fargs []any
		if len(args) == 1 {
			if a, ok := args[0].(*rarray); ok {
				fargs = a.v
			}
		} else if len(args) != 0 {
			r.fail(n.pos, "scope."+n.name+" with arguments not in one array")
		}
		return r.puppetCall(n.pos, strings.TrimPrefix(n.name, "function_"), fargs)
	case n.name == "call_function":
		if len(args) < 1 || len(args) > 2 {
			r.fail(n.pos, "scope.call_function with "+strconv.Itoa(len(args))+" arguments")
		}
		var fargs []any
		if len(args) == 2 {
			a, ok := args[1].(*rarray)
			if !ok {
				r.fail(n.pos, "scope.call_function with arguments not in an array")
			}
			fargs = a.v
		}
		return r.puppetCall(n.pos, rubyToS(args[0]), fargs)
	}
	r.fail(n.pos, "the scope method "+n.name)
	return nil
}

// puppetCall calls a Puppet function from a template.
func (r *rctx) puppetCall(p syntax.Pos, name string, args []any) any {
	c := &syntax.Call{P: p, Name: name}
	pargs := make([]any, len(args))
	for i, a := range args {
		pargs[i] = fromRuby(r, p, a)
		c.Args = append(c.Args, &syntax.Undef{P: p})
	}
	v := r.e.callValues(r.s, c, pargs)
	return toRuby(r, p, v)
}

func rtruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	}
	return true
}

// toRuby turns a Puppet value into its Ruby form (a copy).
func toRuby(r *rctx, p syntax.Pos, v any) any {
	switch x := v.(type) {
	case nil, string, int64, float64, bool:
		return x
	case []any:
		out := &rarray{v: make([]any, len(x)), puppet: true}
		for i, el := range x {
			out.v[i] = toRuby(r, p, el)
		}
		return out
	case *hash:
		out := newRHash()
		out.puppet = true
		for _, k := range x.keys {
			out.set(k, toRuby(r, p, x.m[k]))
		}
		return out
	case ref:
		r.fail(p, "a resource reference")
	}
	r.fail(p, "a "+typeName(v)+" value")
	return nil
}

// fromRuby turns a Ruby value back into a Puppet value.
func fromRuby(r *rctx, p syntax.Pos, v any) any {
	switch x := v.(type) {
	case nil, string, int64, float64, bool:
		return x
	case rsym:
		return string(x)
	case *rarray:
		out := make([]any, len(x.v))
		for i, el := range x.v {
			out[i] = fromRuby(r, p, el)
		}
		return out
	case *rhash:
		out := newHash()
		for _, k := range x.keys {
			ks, ok := k.(string)
			if !ok {
				if sym, isSym := k.(rsym); isSym {
					ks = string(sym)
				} else {
					r.fail(p, "a hash key that is not a string")
				}
			}
			out.set(ks, fromRuby(r, p, x.m[keyOf(k)]))
		}
		return out
	}
	r.fail(p, "passing a "+rubyClass(v)+" to Puppet")
	return nil
}
