// Package sem gives mcl its meaning: it resolves names (scope), types the
// program (unification), and evaluates it into graph documents (the
// reactive engine).
//
// Check walks the syntax tree once, building a typed IR. Names are
// resolved through static scopes; top-level binds are checked lazily on
// first use, which orders them topologically and reports cycles. A func
// statement or a class is checked again at each use site (a fresh copy
// with fresh type variables: polymorphism by copying), while a lambda is
// checked once (monomorphic). Type equalities unify immediately
// (union-find in pkg/lang/types); rules that need more information
// (operators, indexing, polymorphic built-ins) are deferred constraints
// retried until a fixed point, then forced to decide. The cost is linear
// in the size of the expanded program.
//
// The IR is then evaluated by the Engine (engine.go), pass after pass, each
// pass producing a graph document.
package sem

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mgmtpipe/mgmt/internal/bounded"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/parser"
	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
)

// Options configure Check.
type Options struct {
	// Vars are the variables of the default scope (name -> str value).
	Vars map[string]string
	// Prefix is the state directory (module cache, value store).
	Prefix string
	// Hostname is what functions see as the host's name.
	Hostname string
	// Args are the program arguments (os.args).
	Args []string
	// Logf logs warnings and debug lines.
	Logf func(format string, args ...any)
	// Download allows fetching remote (git) modules.
	Download bool
	// World is given to the functions through funcs.Env.World.
	World worldapi.Handle
	// CollectFrom lists the hosts whose exported resources collect takes
	// (funcs.Env.CollectFrom); nil takes every host.
	CollectFrom []string
}

// A Program is a checked mcl program, ready to run.
type Program struct {
	main   *module
	global *Scope
	envs   map[*module]*funcs.Env
	opts   Options
	root   string
	// kindErrs are the statements of unknown kinds (see KindErrors).
	kindErrs []*graph.PosError
}

// Check loads the program at path (a .mcl file, a module directory, or "-"
// with src given) and checks it. Errors are *graph.PosError.
func Check(path string, src []byte, opts Options) (prog *Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*graph.PosError)
			if !ok {
				e = errAt(ast.Pos{File: path}, StageRuntime, "internal error: %v", r)
			}
			prog, err = nil, e
		}
	}()
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	global := newScope(nil, nil)
	// The default scope: $hostname, then the caller's variables.
	vars := map[string]string{"hostname": opts.Hostname}
	for k, v := range opts.Vars {
		vars[k] = v
	}
	for k, v := range vars {
		global.add(&global.vars, &binding{kind: bkBind, name: k, expr: &ast.Str{Value: v}})
	}
	c := &checker{global: global}
	c.loader = &loader{mods: map[string]*module{}, prefix: opts.Prefix, download: opts.Download}
	main, err := c.loader.loadMain(c, path, src)
	if err != nil {
		return nil, err
	}
	c.checkUnused()
	c.solve()
	if len(c.errs) == 0 {
		c.runFinals()
	}
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	p := &Program{main: main, global: global, envs: map[*module]*funcs.Env{}, opts: opts, root: main.dir}
	for _, pos := range slices.SortedFunc(maps.Keys(c.kindErrs), comparePos) {
		p.kindErrs = append(p.kindErrs, c.kindErrs[pos])
	}
	return p, nil
}

// comparePos orders positions by file, line and column.
func comparePos(a, b ast.Pos) int {
	return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
}

// KindErrors returns an error (a graph.ErrorList, in source order) for
// each resource statement of an unknown kind, or nil. Check accepts them,
// since a statement in a branch never taken creates nothing, and running
// the program fails at the first one evaluated; mcl-compile --check
// reports them all.
func (p *Program) KindErrors() error {
	if len(p.kindErrs) == 0 {
		return nil
	}
	var l graph.ErrorList
	for _, e := range p.kindErrs {
		l = append(l, e)
	}
	return l
}

// runFinals runs the checks that need the solved types, recording their
// errors with the type errors.
func (c *checker) runFinals() {
	for _, f := range c.finals {
		err := f()
		if err == nil {
			continue
		}
		l, _ := graph.AsList(graph.WithStage(err, StageType))
		for _, e := range l {
			if !c.errs.Append(e) {
				return
			}
		}
	}
}

func (p *Program) envOf(m *module) *funcs.Env {
	if m == nil {
		m = p.main
	}
	if e, ok := p.envs[m]; ok {
		return e
	}
	e := &funcs.Env{
		ModuleDir: m.dir, DeployRoot: p.root, Prefix: p.opts.Prefix, Hostname: p.opts.Hostname,
		Getenv: os.LookupEnv, Args: p.opts.Args, Logf: p.opts.Logf, World: p.opts.World,
		CollectFrom: p.opts.CollectFrom, Root: "/",
	}
	p.envs[m] = e
	return e
}

// runtimeErr turns an evaluation error into a positioned *graph.PosError.
func (p *Program) runtimeErr(err error) error {
	if re, ok := err.(*runtimeError); ok {
		return errAt(re.pos, StageRuntime, "%v", re.err)
	}
	if e, ok := err.(*graph.PosError); ok {
		return e
	}
	return errAt(ast.Pos{}, StageRuntime, "%v", err)
}

// checkUnused checks the func statements and classes no one uses, for
// their scope errors only (they have no types without a use site).
func (c *checker) checkUnused() {
	for _, m := range c.loader.order {
		c.checkUnusedIn(m.scope)
	}
}

func (c *checker) checkUnusedIn(s *Scope) {
	nerrs, nfinals, ncons := len(c.errs), len(c.finals), len(c.cons)
	defer func() {
		c.errs, c.finals, c.cons = c.errs[:nerrs], c.finals[:nfinals], c.cons[:ncons]
	}()
	for _, b := range sorted(s.classes) {
		if b.used {
			continue
		}
		b.used = true
		c.dryInclude(b)
	}
	for _, b := range sorted(s.funcs) {
		if b.used {
			continue
		}
		b.used = true
		c.checkLambda(b.fn.Func, b.scope)
	}
}

// dryInclude instantiates class b with unknown arguments.
func (c *checker) dryInclude(b *binding) {
	cl := b.class
	is := newScope(b.scope, b.scope.mod)
	for _, p := range cl.Params {
		if _, dup := is.vars[p.Name]; dup {
			c.scopeErr(p.Pos, "duplicate parameter $%s", p.Name)
		}
		is.add(&is.vars, &binding{kind: bkParam, name: p.Name, pos: p.Pos, typ: freshOr(p)})
	}
	body := newScope(is, is.mod)
	c.declareNested(b, body)
	b.busy = true
	c.checkProg(cl.Body, body)
	b.busy = false
	c.checkUnusedIn(body)
}

// A module is one loaded file: the main program or an import.
type module struct {
	path  string // file path
	dir   string // module directory (deploy functions resolve against it)
	scope *Scope
	prog  *progIR
	busy  bool
}

type loader struct {
	mods     map[string]*module
	order    []*module
	prefix   string
	download bool
}

func (l *loader) loadMain(c *checker, path string, src []byte) (*module, error) {
	dir := "."
	file := path
	if path == "-" {
		file = "<stdin>"
		if wd, err := os.Getwd(); err == nil {
			dir = wd
		}
	} else {
		st, err := os.Stat(path)
		if err != nil {
			return nil, errAt(ast.Pos{}, StageScope, "%v", err)
		}
		if st.IsDir() {
			dir = path
			file, err = moduleMain(path)
			if pe := (*graph.PosError)(nil); errors.As(err, &pe) {
				return nil, pe
			}
			if err != nil {
				return nil, errAt(ast.Pos{File: path}, StageScope, "%v", err)
			}
		} else {
			dir = filepath.Dir(path)
		}
		if src, err = bounded.ReadFile(file); err != nil {
			if tl := (*bounded.TooLarge)(nil); errors.As(err, &tl) {
				return nil, errAt(ast.Pos{File: file, Line: 1, Col: 1}, StageScope, "%s", tl.Reason())
			}
			return nil, errAt(ast.Pos{}, StageScope, "%v", err)
		}
	}
	abs, _ := filepath.Abs(dir)
	return l.parseAndCheck(c, file, abs, src)
}

func (l *loader) parseAndCheck(c *checker, file, dir string, src []byte) (*module, error) {
	prog, err := parser.Parse(displayName(file), string(src))
	if err != nil {
		return nil, err
	}
	m := &module{path: file, dir: dir, busy: true}
	l.mods[file] = m
	l.order = append(l.order, m)
	m.scope = newScope(c.global, m)
	m.scope.static = true
	m.prog = c.checkProg(prog, m.scope)
	m.busy = false
	return m, nil
}

// displayName shortens paths below the working directory.
func displayName(file string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, file); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return file
}

// ModuleMain returns the entry file of a module directory: metadata.yaml's
// main (default main.mcl), under its path if set.
func ModuleMain(dir string) (string, error) { return moduleMain(dir) }

func moduleMain(dir string) (string, error) {
	md, err := readMetadata(dir)
	if err != nil {
		return "", err
	}
	main := filepath.Join(dir, md.Path, md.Main)
	if _, err := os.Stat(main); err != nil {
		return "", fmt.Errorf("module %s has no %s", dir, md.Main)
	}
	return main, nil
}

// load loads an import of a local file or directory module, relative to
// the importing module.
func (l *loader) load(c *checker, from *module, path string, pos ast.Pos) (*module, error) {
	var fromDir, fromFileDir string
	if from != nil {
		fromDir = from.dir
		fromFileDir = filepath.Dir(from.path)
	}
	var file, dir string
	switch {
	case strings.Contains(path, "://"):
		d, err := l.remote(path)
		if err != nil {
			return nil, err
		}
		dir = d
		f, err := moduleMain(d)
		if err != nil {
			return nil, err
		}
		file = f
	case strings.HasSuffix(path, "/"):
		dir = filepath.Join(fromFileDir, path)
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		f, err := moduleMain(dir)
		if err != nil {
			return nil, err
		}
		file = f
	default:
		file = filepath.Join(fromFileDir, path)
		dir = fromDir
	}
	if m, ok := l.mods[file]; ok {
		if m.busy {
			return nil, errAt(pos, StageScope, "import cycle: %s imports itself", path)
		}
		return m, nil
	}
	src, err := bounded.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return l.parseAndCheck(c, file, dir, src)
}

// sorted returns the bindings of m in declaration order.
func sorted(m map[string]*binding) []*binding {
	out := make([]*binding, 0, len(m))
	for _, b := range m {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].slot < out[j].slot })
	return out
}
