package eval

import (
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// A lambdaValue is a block passed to a function, with the scope it closes
// over.
type lambdaValue struct {
	l *syntax.Lambda
	s *scope
}

// A fcall is one function call being evaluated.
type fcall struct {
	e      *evaluator
	s      *scope
	c      *syntax.Call
	args   []any
	lambda *lambdaValue
}

// A builtin implements a function; stdlib marks the ones of
// puppetlabs-stdlib, which must be in the module path as in Puppet.
type builtin struct {
	f      func(x *fcall) any
	stdlib bool
}

// builtins are the Puppet and stdlib functions the engine implements,
// filled by the *funcs.go files.
var builtins = map[string]builtin{}

func register(stdlib bool, fs map[string]func(x *fcall) any) {
	for name, f := range fs {
		builtins[name] = builtin{f: f, stdlib: stdlib}
	}
}

// Control flow of return(), next() and break(), carried by panics that
// the function call, lambda call or iteration recovers.
type (
	returnSignal struct{ v any }
	nextSignal   struct{ v any }
	breakSignal  struct{}
)

// call evaluates a function call.
func (e *evaluator) call(s *scope, c *syntax.Call) any {
	if unicode.IsUpper(rune(c.Name[0])) {
		return e.newValue(s, c)
	}
	switch c.Name {
	case "return":
		panic(returnSignal{e.optionalArg(s, c)})
	case "next":
		panic(nextSignal{e.optionalArg(s, c)})
	case "break":
		panic(breakSignal{})
	}
	if v, ok := e.eppCall(s, c); ok {
		return v
	}
	x := &fcall{e: e, s: s, c: c}
	for _, a := range c.Args {
		if u, ok := a.(*syntax.Unary); ok && u.Op == "*" {
			if l, ok := e.expr(s, u.X).([]any); ok {
				x.args = append(x.args, l...)
				continue
			}
		}
		x.args = append(x.args, e.expr(s, a))
	}
	if c.Lambda != nil {
		x.lambda = &lambdaValue{l: c.Lambda, s: s}
	}
	name := strings.TrimPrefix(c.Name, "::")
	if f := e.puppetFunction(name); f != nil {
		return e.callPuppet(c.P, f, x.args, x.lambda)
	}
	if b, ok := builtins[name]; ok && (!b.stdlib || e.rubyFunction(name)) {
		return b.f(x)
	}
	if e.rubyFunction(name) {
		panic(syntax.Unsupported(c.P, "the function "+name+"() (Ruby code in a module)"))
	}
	e.fail(c.P, "Unknown function: '%s'", name)
	return nil
}

func (e *evaluator) optionalArg(s *scope, c *syntax.Call) any {
	switch len(c.Args) {
	case 0:
		return nil
	case 1:
		return e.expr(s, c.Args[0])
	}
	e.fail(c.P, "%s() expects at most one argument", c.Name)
	return nil
}

// callValues calls a function with evaluated arguments (from a template).
func (e *evaluator) callValues(s *scope, c *syntax.Call, args []any) any {
	x := &fcall{e: e, s: s, c: c, args: args}
	name := strings.TrimPrefix(c.Name, "::")
	if f := e.puppetFunction(name); f != nil {
		return e.callPuppet(c.P, f, args, nil)
	}
	if b, ok := builtins[name]; ok && (!b.stdlib || e.rubyFunction(name)) {
		return b.f(x)
	}
	panic(syntax.Unsupported(c.P, "the function "+name+"() from a template"))
}

// puppetFunction finds a function written in the Puppet language: in the
// manifests, or in <module>/functions/<name>.pp.
func (e *evaluator) puppetFunction(name string) *syntax.FunctionDef {
	if f := e.functions[name]; f != nil {
		return f
	}
	if strings.Contains(name, "::") {
		e.loadModuleFile(name, "functions")
	}
	return e.functions[name]
}

// rubyFunction reports whether a module in the module path defines the
// function in Ruby (lib/puppet/functions or lib/puppet/parser/functions).
func (e *evaluator) rubyFunction(name string) bool {
	key := "fn:" + name
	if known, ok := e.rubyTypes[key]; ok {
		return known
	}
	rel := filepath.Join(strings.Split(name, "::")...) + ".rb"
	found := false
	for _, sub := range []string{"lib/puppet/functions", "lib/puppet/parser/functions"} {
		if len(e.modules().find(filepath.Join(sub, rel))) > 0 {
			found = true
		}
	}
	e.rubyTypes[key] = found
	return found
}

// callPuppet calls a Puppet-language function: its own scope (seeing top
// scope), typed parameters, return() for an early value.
func (e *evaluator) callPuppet(p syntax.Pos, f *syntax.FunctionDef, args []any, lambda *lambdaValue) (result any) {
	if lambda != nil {
		panic(syntax.Unsupported(p, "passing a lambda to the Puppet function "+f.Name+"()"))
	}
	e.enter(p)
	defer e.leave()
	fs := newScope(e.top, e.top, e.top.container)
	fs.module = e.moduleOf(f.P.File())
	e.bindArgs(p, fs, "function "+f.Name, f.Params, args)
	defer func() {
		if r := recover(); r != nil {
			rs, ok := r.(returnSignal)
			if !ok {
				panic(r)
			}
			result = rs.v
		}
	}()
	return e.block(fs, f.Body)
}

// bindArgs binds call arguments to parameters (types checked, defaults,
// a captures-rest last parameter).
func (e *evaluator) bindArgs(p syntax.Pos, s *scope, what string, params []*syntax.Param, args []any) {
	min, max := 0, len(params)
	for _, prm := range params {
		if prm.Default == nil && !prm.Rest {
			min++
		}
		if prm.Rest {
			max = -1
		}
	}
	if len(args) < min || max >= 0 && len(args) > max {
		e.fail(p, "%s expects %d to %d arguments, got %d", what, min, max, len(args))
	}
	for i, prm := range params {
		var v any
		switch {
		case prm.Rest:
			rest := []any{}
			if i < len(args) {
				rest = append(rest, args[i:]...)
			}
			v = rest
		case i < len(args):
			v = args[i]
		default:
			v = e.expr(s, prm.Default)
		}
		if prm.Type != nil && !prm.Rest {
			if t := e.paramType(s, prm); !e.isInstance(prm.P, v, t) {
				e.fail(p, "%s: parameter '%s' expects a value of type %s, got %s", what, prm.Name, t, typeName(v))
			}
		}
		s.vars[prm.Name] = v
	}
}

// callLambda calls a lambda with args; next(v) makes v its value.
func (e *evaluator) callLambda(p syntax.Pos, l *lambdaValue, args ...any) (result any) {
	e.enter(p)
	defer e.leave()
	ls := l.s.child()
	e.bindArgs(p, ls, "the lambda", l.l.Params, args)
	defer func() {
		if r := recover(); r != nil {
			ns, ok := r.(nextSignal)
			if !ok {
				panic(r)
			}
			result = ns.v
		}
	}()
	return e.block(ls, l.l.Body)
}

// iterating runs fn until it finishes or the lambda calls break().
func iterating(fn func()) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(breakSignal); !ok {
				panic(r)
			}
		}
	}()
	fn()
}

func (x *fcall) fail(format string, args ...any) {
	x.e.fail(x.c.P, format, args...)
}

// arity checks the number of arguments.
func (x *fcall) arity(lo, hi int) {
	if len(x.args) < lo || hi >= 0 && len(x.args) > hi {
		x.fail("%s() expects between %d and %d arguments, got %d", x.c.Name, lo, hi, len(x.args))
	}
}

func (x *fcall) str(i int) string {
	s, ok := x.args[i].(string)
	if !ok {
		x.fail("%s() expects a String as argument %d, got %s", x.c.Name, i+1, typeName(x.args[i]))
	}
	return s
}

func (x *fcall) array(i int) []any {
	a, ok := x.args[i].([]any)
	if !ok {
		x.fail("%s() expects an Array as argument %d, got %s", x.c.Name, i+1, typeName(x.args[i]))
	}
	return a
}

func (x *fcall) hash(i int) *hash {
	h, ok := x.args[i].(*hash)
	if !ok {
		x.fail("%s() expects a Hash as argument %d, got %s", x.c.Name, i+1, typeName(x.args[i]))
	}
	return h
}

// optionalHash returns argument i, a Hash, or an empty hash when it is
// not given or undef.
func (x *fcall) optionalHash(i int) *hash {
	if i >= len(x.args) || x.args[i] == nil {
		return newHash()
	}
	return x.hash(i)
}

func (x *fcall) needLambda(lo, hi int) *lambdaValue {
	if x.lambda == nil {
		x.fail("%s() expects a lambda", x.c.Name)
	}
	if n := len(x.lambda.l.Params); n < lo || n > hi {
		x.e.fail(x.lambda.l.P, "%s() expects a lambda with %d to %d parameters, got %d", x.c.Name, lo, hi, n)
	}
	return x.lambda
}

func (x *fcall) unsupported(what string) {
	panic(syntax.Unsupported(x.c.P, x.c.Name+"() "+what))
}

// findModuleFile resolves "mod/rest" to <modulepath>/mod/<sub>/rest; an
// absolute path is used as it is.
func (e *evaluator) findModuleFile(p syntax.Pos, name, sub string) (string, bool) {
	if filepath.IsAbs(name) {
		_, err := os.Stat(name)
		return name, err == nil
	}
	mod, rest, ok := strings.Cut(name, "/")
	if !ok {
		e.fail(p, "cannot find %s '%s': expected module/file", strings.TrimSuffix(sub, "s"), name)
	}
	for _, dir := range e.opts.ModulePath {
		cand := filepath.Join(dir, mod, sub, rest)
		if _, err := os.Stat(cand); err == nil {
			return cand, true
		}
	}
	return filepath.Join(mod, sub, rest), false
}

func (e *evaluator) readFile(p syntax.Pos, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		e.fail(p, "Evaluation Error: Error while evaluating a Function Call, could not read %s: %v", path, err)
	}
	if e.opts.Read != nil {
		e.opts.Read(path)
	}
	return string(b)
}
