// Package eval is puppet-graph's native Puppet compiler: it evaluates the
// AST of pkg/puppet/syntax into a catalog shaped like the one real Puppet
// renders (same resources, titles, parameters that matter, containment
// edges and relationship metaparameters), so that the same translation
// turns either into the same graph.
//
// The evaluation follows Puppet's compiler: the main manifest is evaluated
// top to bottom in Class[main]; the matching node block follows; classes
// are evaluated once, when first declared (include, require, contain or
// resource-like), with their parameters from the declaration, Hiera
// (automatic parameter lookup) or their defaults, checked against their
// data types; instances of defined types are queued and evaluated after
// the code that declared them; collectors realize virtual resources and
// override attributes, and resource overrides are applied, until nothing
// changes; at the end, the relationships of chaining arrows are stored as
// before/notify metaparameters on their left-hand side. Each resource gets
// the resource defaults in effect when it is declared, along its dynamic
// scope chain.
//
// Files: eval.go (the compiler's driver), scope.go (variables and facts),
// stmt.go (statements and relationships), expr.go and values.go
// (expressions and values), types.go (data types), resources.go and
// classes.go (resources, classes, defined types), collect.go (virtual
// resources, collectors, overrides), funcs.go and the *funcs.go files
// (functions), hiera.go (Hiera 5 lookups), template.go and erb*.go
// (EPP and ERB templates), facts.go (the native fact gatherer).
//
// What the engine cannot evaluate exactly (a Ruby function, an unknown
// fact, a construct it lacks) is refused with syntax.Unsupported, naming
// the position: the manifest then needs real Puppet.
package eval

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"

	"github.com/mgmtpipe/mgmt/internal/bounded"
	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// Options configure a compilation.
type Options struct {
	Facts map[string]any // the $facts hash; legacy top-scope facts are derived from it
	// StrictFacts refuses a manifest that reads a fact missing from Facts
	// which Facter or a module's Ruby code might set (the facts come from
	// the native gatherer, which knows only some).
	StrictFacts bool
	// AbsentFacts are facts known not to exist on the node (with
	// StrictFacts: reading them gives undef).
	AbsentFacts map[string]bool
	Certname    string   // node name; defaults to the fqdn fact
	Environment string   // the environment's name (default production)
	ModulePath  []string // directories holding modules
	// HieraConfig is the global hiera.yaml ("" : none); the environment's
	// is EnvironmentDir/hiera.yaml.
	HieraConfig    string
	EnvironmentDir string
	Log            func(string) // notice() and friends; may be nil
	// StrictTypes accepts only the types whose Ruby code is in the module
	// path (as real Puppet does), not every well-known module type.
	StrictTypes bool
	// Read records every file the compilation read (manifests, templates);
	// may be nil.
	Read func(path string)
	// Context, when set, stops the compilation once it is done: Compile
	// then returns its cause (context.Cause).
	Context context.Context
}

// BuiltinTypes are the resource types of Puppet 7's core. Types from
// modules (mount, augeas, anchor, ...) are known when the module path has
// their lib/puppet/type/<name>.rb.
var BuiltinTypes = map[string]bool{
	"exec": true, "file": true, "filebucket": true, "group": true, "notify": true, "package": true,
	"resources": true, "schedule": true, "service": true, "stage": true, "tidy": true, "user": true,
	"whit": true, "component": true,
}

// ModuleTypes are the types of the usual core modules (mount_core,
// augeas_core, host_core, cron_core, stdlib, ...), accepted without looking
// for their Ruby code unless Options.StrictTypes is set.
var ModuleTypes = map[string]bool{
	"mount": true, "augeas": true, "host": true, "cron": true, "anchor": true, "file_line": true,
	"sshkey": true, "ssh_authorized_key": true, "k5login": true, "mailalias": true, "maillist": true,
	"selboolean": true, "selmodule": true, "yumrepo": true, "zfs": true, "zone": true, "zpool": true,
}

// knownType reports whether typ is a core type or a module's Ruby type.
func (e *evaluator) knownType(typ string) bool {
	if BuiltinTypes[typ] || ModuleTypes[typ] && !e.opts.StrictTypes {
		return true
	}
	if known, ok := e.rubyTypes[typ]; ok {
		return known
	}
	found := len(e.modules().find(filepath.Join("lib", "puppet", "type", typ+".rb"))) > 0
	e.rubyTypes[typ] = found
	return found
}

// maxDefineDepth bounds the nesting of defined types (an instance declared
// by an instance ...), so that a define declaring itself fails instead of
// running forever.
const maxDefineDepth = 100

// maxEvalDepth bounds the nesting of evaluation (classes declaring
// classes, functions calling functions, lambdas in lambdas).
const maxEvalDepth = 1000

type evaluator struct {
	opts             Options
	cat              *catalog.Catalog
	classes          map[string]*syntax.ClassDef
	defines          map[string]*syntax.DefineDef
	functions        map[string]*syntax.FunctionDef
	aliases          map[string]*typeAlias
	nodes            []*syntax.NodeDef
	declared         map[string]*scope // class name -> its scope
	entries          map[string]*entry // catalog ref -> entry (virtual ones included)
	files            map[string]*entry // a file's path, trailing slashes removed -> entry
	pending          []*defInst
	relations        []relation
	collects         []*collector
	pendingOverrides map[string][]*override
	top              *scope
	node             *scope // the node block's scope, parent of later classes
	loaded           map[string]bool
	rubyTypes        map[string]bool
	hiera            *hiera
	factNames        map[string]bool       // names Facter or a module's Ruby code may set
	lazyDone         map[string]lazyResult // the lazy facts computed (lazyfacts.go)
	depth            int
	steps            uint        // evaluation steps, to look at the context now and then
	at               syntax.Node // the expression evaluated last, where a tooLarge panic is reported
	epp              *eppRender  // the EPP template being rendered
	namevars         map[string]string
	mods             *modIndex // the module path's files, read once (modindex.go)
	erbTemplates     map[string]*erbParsed
	typeNames        map[string]string // lower-case type name -> catalog.CapitalizeType of it
	// the reference of the container contain last put a resource in
	lastParent    *catalog.Resource
	lastParentRef string
}

// Compile evaluates the manifest src (read from file) into a catalog.
func Compile(file, src string, opts Options) (cat *catalog.Catalog, err error) {
	stmts, err := syntax.Parse(file, src)
	if err != nil {
		return nil, err
	}
	if opts.Certname == "" {
		opts.Certname, _ = opts.Facts["fqdn"].(string)
		opts.Certname = strings.ToLower(opts.Certname)
	}
	if opts.Environment == "" {
		opts.Environment = "production"
	}
	// a resource takes a hundred bytes or more of a manifest: the catalog
	// and the index of the resources start with room for those of the
	// main manifest, instead of growing through every size up to their
	// number
	hint := len(src) / 256
	e := &evaluator{
		opts: opts, cat: &catalog.Catalog{Name: opts.Certname, Resources: make([]*catalog.Resource, 0, hint), Edges: make([]catalog.Edge, 0, hint)},
		classes: map[string]*syntax.ClassDef{}, defines: map[string]*syntax.DefineDef{},
		functions: map[string]*syntax.FunctionDef{}, aliases: map[string]*typeAlias{},
		declared: map[string]*scope{}, entries: make(map[string]*entry, hint), files: make(map[string]*entry, hint/2), loaded: map[string]bool{},
		rubyTypes: map[string]bool{},
	}
	defer func() {
		if r := recover(); r != nil {
			switch x := r.(type) {
			case *syntax.Error:
				cat, err = nil, x
			case stopSignal:
				cat, err = nil, x.err
			case tooLarge:
				p := syntax.NewPos(file, 1, 1)
				if e.at != nil {
					p = e.at.At()
				}
				cat, err = nil, &syntax.Error{Pos: p, Msg: x.msg}
			case returnSignal, nextSignal, breakSignal, rnextSignal, rbreakSignal:
				cat, err = nil, &syntax.Error{Pos: syntax.NewPos(file, 1, 1), Msg: "return(), next() or break() outside of a function or lambda"}
			default:
				// a bug of the engine must not crash the tool
				cat, err = nil, &syntax.Error{Pos: syntax.NewPos(file, 1, 1),
					Msg: fmt.Sprintf("internal error of the native engine: %v (compile with real Puppet: --engine puppet)", r)}
			}
		}
	}()
	e.register(stmts, "")
	e.run(stmts)
	return e.cat, nil
}

func (e *evaluator) fail(p syntax.Pos, format string, args ...any) {
	panic(&syntax.Error{Pos: p, Msg: fmt.Sprintf(format, args...)})
}

// stopSignal unwinds a compilation whose context is done.
type stopSignal struct{ err error }

// tick counts an evaluation step and, every 1024 steps, stops the
// compilation when its context is done: an endless or very long
// evaluation ends on SIGTERM or a deadline.
func (e *evaluator) tick() {
	e.steps++
	if e.steps%1024 != 0 || e.opts.Context == nil {
		return
	}
	if e.opts.Context.Err() != nil {
		panic(stopSignal{context.Cause(e.opts.Context)})
	}
}

// enter counts one level of evaluation nesting; leave undoes it.
func (e *evaluator) enter(p syntax.Pos) {
	e.depth++
	if e.depth > maxEvalDepth {
		e.fail(p, "nested too deeply (more than %d levels of classes, functions or lambdas)", maxEvalDepth)
	}
}

func (e *evaluator) leave() { e.depth-- }

// register records the classes, defined types, functions, type aliases
// and nodes of stmts, including classes nested in classes (outer::inner).
func (e *evaluator) register(stmts []syntax.Node, prefix string) {
	for _, s := range stmts {
		switch d := s.(type) {
		case *syntax.ClassDef:
			name := qualify(prefix, d.Name)
			if old, dup := e.classes[name]; dup && old != d {
				e.fail(d.P, "class '%s' is already defined at %s", name, old.P)
			}
			e.classes[name] = d
			e.register(d.Body, name)
		case *syntax.DefineDef:
			name := qualify(prefix, d.Name)
			if old, dup := e.defines[name]; dup && old != d {
				e.fail(d.P, "defined type '%s' is already defined at %s", name, old.P)
			}
			e.defines[name] = d
		case *syntax.FunctionDef:
			e.functions[strings.TrimPrefix(d.Name, "::")] = d
		case *syntax.TypeAlias:
			key := strings.ToLower(d.Name)
			if e.aliases[key] == nil {
				e.aliases[key] = &typeAlias{name: d.Name, def: d.Type}
			}
		case *syntax.NodeDef:
			e.nodes = append(e.nodes, d)
		}
	}
}

func qualify(prefix, name string) string {
	name = strings.TrimPrefix(name, "::")
	if prefix == "" || strings.Contains(name, "::") {
		return name
	}
	return prefix + "::" + name
}

// contain records that parent contains child. The resources of one
// container come one after the other: its reference is made once for them.
func (e *evaluator) contain(parent, child *catalog.Resource) { e.containRef(parent, child.Ref()) }

// containRef records that parent contains the resource of reference
// child.
func (e *evaluator) containRef(parent *catalog.Resource, child string) {
	if parent != e.lastParent {
		e.lastParent, e.lastParentRef = parent, parent.Ref()
	}
	e.cat.Edges = append(e.cat.Edges, catalog.Edge{Source: e.lastParentRef, Target: child})
}

// capitalType returns catalog.CapitalizeType(typ), made once per type.
func (e *evaluator) capitalType(typ string) string {
	if t, ok := e.typeNames[typ]; ok {
		return t
	}
	if e.typeNames == nil {
		e.typeNames = map[string]string{}
	}
	t := catalog.CapitalizeType(typ)
	e.typeNames[typ] = t
	return t
}

func (e *evaluator) run(stmts []syntax.Node) {
	stage := &catalog.Resource{Type: "Stage", Title: "main", Kind: catalog.KindCompilable, Params: map[string]any{"name": "main"}}
	settings := &catalog.Resource{Type: "Class", Title: "Settings", Kind: catalog.KindUnknown, Params: map[string]any{}}
	main := &catalog.Resource{Type: "Class", Title: "main", Kind: catalog.KindUnknown, Params: map[string]any{"name": "main"}}
	e.top = newScope(nil, nil, main)
	e.setFacts()
	e.hiera = newHiera(e)
	e.addResource(stage, e.top, syntax.Pos{}, false)
	e.addResource(settings, e.top, syntax.Pos{}, false)
	e.addResource(main, e.top, syntax.Pos{}, false)
	e.contain(stage, settings)
	e.contain(stage, main)
	e.declared["settings"] = newScope(e.top, e.top, settings)
	e.declared["main"] = e.top
	e.block(e.top, stmts)
	e.evalNode(main)
	e.settle()
	e.finish()
}

// settle evaluates queued defined types and applies collectors and
// overrides until nothing changes, as Puppet's compiler does.
func (e *evaluator) settle() {
	for {
		progress := false
		for len(e.pending) > 0 {
			d := e.pending[0]
			if d.depth > maxDefineDepth {
				e.fail(posOf(d.e.res), "defined types nested more than %d deep: endless recursion?", maxDefineDepth)
			}
			e.pending = e.pending[1:]
			e.evalDefine(d)
			progress = true
		}
		if e.runCollectors() {
			progress = true
		}
		if !progress && len(e.pending) == 0 {
			break
		}
	}
	e.checkOverrides()
}

// evalNode evaluates the node block matching the certname, if any.
func (e *evaluator) evalNode(main *catalog.Resource) {
	if len(e.nodes) == 0 {
		return
	}
	name := strings.ToLower(e.opts.Certname)
	var found, def *syntax.NodeDef
	var title string
	var match []string
	for _, n := range e.nodes {
		for _, m := range n.Names {
			switch x := m.(type) {
			case *syntax.Default:
				def = n
			case *syntax.Str:
				if strings.ToLower(x.Value) == name && found == nil {
					found, title = n, x.Value
				}
			case *syntax.Regex:
				if m := e.regexp(x.P, x.Pattern).FindStringSubmatch(name); found == nil && m != nil {
					found, title, match = n, nodeRegexTitle(x.Pattern), m
				}
			default:
				e.fail(m.At(), "syntax error: bad node name")
			}
		}
	}
	if found == nil {
		if def == nil {
			e.fail(e.nodes[0].P, "Could not find node statement with name 'default' or '%s'", name)
		}
		found, title = def, "default"
	}
	node := &catalog.Resource{Type: "Node", Title: title, Kind: catalog.KindUnknown, File: found.P.File(), Line: int(found.P.Line), Col: int(found.P.Col), Params: map[string]any{}}
	e.addResource(node, e.top, found.P, false)
	e.contain(main, node)
	ns := newScope(e.top, e.top, node)
	e.node = ns
	for i, g := range match {
		ns.vars[fmt.Sprint(i)] = g
	}
	e.block(ns, found.Body)
}

// nodeRegexTitle is the title Puppet gives a node matched by a regex.
func nodeRegexTitle(pat string) string {
	t := regexp.MustCompile(`[^-\w:.]`).ReplaceAllString(strings.ToLower(pat), "")
	return "__node_regexp__" + strings.TrimLeft(t, ".")
}

// finish stores the relationships of chaining arrows and checks that
// every relationship names a resource of the catalog.
func (e *evaluator) finish() {
	for _, rel := range e.relations {
		mp := "before"
		if rel.notify {
			mp = "notify"
		}
		from, to := e.refsOf(rel.pos, rel.from), e.refsOf(rel.pos, rel.to)
		for _, f := range from {
			e.sameFileSpelling(rel.pos, f.String())
			src := e.entries[f.String()]
			if src == nil || src.virtual {
				e.fail(rel.pos, "Could not find resource '%s' for relationship on '%s'", f, to)
			}
			for _, t := range to {
				e.sameFileSpelling(rel.pos, t.String())
				if en := e.entries[t.String()]; en == nil || en.virtual {
					e.fail(rel.pos, "Could not find resource '%s' for relationship from '%s'", t, f)
				}
				appendParam(src.res, mp, t.String())
			}
		}
	}
	for _, r := range e.cat.Resources {
		for _, mp := range []string{"before", "require", "notify", "subscribe"} {
			for _, t := range refStrings(r.Params[mp]) {
				e.sameFileSpelling(posOf(r), t)
				if en := e.entries[t]; (en == nil || en.virtual) && !e.aliasExists(t) {
					e.fail(posOf(r), "Could not find resource '%s' in parameter '%s' of %s", t, mp, r.Ref())
				}
			}
		}
	}
	sort.Strings(e.cat.Classes)
}

func (e *evaluator) aliasExists(t string) bool {
	typ, title, _ := catalog.ParseRef(t)
	for _, r := range e.cat.Resources {
		if r.Type == typ {
			if p, ok := r.Params["path"].(string); ok && typ == "File" && p == title {
				return true
			}
			if p, ok := r.Params["name"].(string); ok && typ != "File" && p == title {
				return true
			}
		}
	}
	return false
}

func posOf(r *catalog.Resource) syntax.Pos {
	return syntax.NewPos(r.File, r.Line, r.Col)
}

func appendParam(r *catalog.Resource, k, v string) {
	switch old := r.Params[k].(type) {
	case nil:
		r.Params[k] = []any{v}
	case string:
		r.Params[k] = []any{old, v}
	case []any:
		r.Params[k] = append(old, v)
	}
}

func refStrings(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, el := range x {
			out = append(out, refStrings(el)...)
		}
		return out
	}
	return nil
}

// loadModule finds the manifest of a class, defined type or function in
// the module path (mod/manifests/init.pp or mod/manifests/a/b.pp) and
// registers it.
func (e *evaluator) loadModule(name string) {
	e.loadModuleFile(name, "manifests")
}

// loadModuleFile loads <module>/<dir>/<rest>.pp for a qualified name
// (<module>/<dir>/init.pp for a bare module name), once.
func (e *evaluator) loadModuleFile(name, dir string) {
	name = strings.ToLower(strings.TrimPrefix(name, "::"))
	key := dir + ":" + name
	if e.loaded[key] {
		return
	}
	e.loaded[key] = true
	segs := strings.Split(name, "::")
	if len(segs) == 1 && dir != "manifests" {
		return
	}
	rel := filepath.Join(segs[0], dir, "init.pp")
	if len(segs) > 1 {
		rel = filepath.Join(append([]string{segs[0], dir}, segs[1:]...)...) + ".pp"
	}
	for _, mdir := range e.opts.ModulePath {
		p := filepath.Join(mdir, rel)
		src, err := bounded.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			continue
		}
		if err != nil {
			// The first module directory holding the file is the one
			// Puppet loads it from: one it cannot read is an error, not
			// a reason to load another's.
			msg := err.Error()
			if tl := (*bounded.TooLarge)(nil); errors.As(err, &tl) {
				msg = tl.Reason()
			} else if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
				msg = "could not read: " + pe.Err.Error()
			}
			panic(&syntax.Error{Pos: syntax.NewPos(p, 1, 1), Msg: msg})
		}
		if e.opts.Read != nil {
			e.opts.Read(p)
		}
		stmts, err := syntax.Parse(p, string(src))
		if err != nil {
			panic(err)
		}
		e.register(stmts, "")
		return
	}
}

// moduleOf returns the module a file belongs to, from its path under a
// module path directory ("" for the main manifest).
func (e *evaluator) moduleOf(file string) string {
	for _, dir := range e.opts.ModulePath {
		rel, err := filepath.Rel(dir, file)
		if err == nil && !strings.HasPrefix(rel, "..") {
			if mod, _, ok := strings.Cut(rel, string(filepath.Separator)); ok {
				return mod
			}
		}
	}
	return ""
}
