// Package eval is puppet-graph's native Puppet compiler: it evaluates the
// AST of pkg/puppet/syntax into a catalog shaped like the one real Puppet
// renders (same resources, titles, parameters that matter, containment
// edges and relationship metaparameters), so that the same translation
// turns either into the same graph.
//
// The evaluation follows Puppet's compiler: the main manifest is evaluated
// top to bottom in Class[main]; the matching node block follows; classes
// are evaluated once, when first declared (include, require, contain or
// resource-like), and contained in their stage; instances of defined types
// are queued and evaluated after the code that declared them; at the end,
// each resource gets the resource defaults in effect when it is declared,
// along its dynamic scope chain (declaring scopes of classes and defines);
// at the end, the relationships of chaining arrows are stored as before/notify
// metaparameters on their left-hand side.
package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// Options configure a compilation.
type Options struct {
	Facts      map[string]any // the $facts hash; legacy top-scope facts are derived from it
	Certname   string         // node name; defaults to the fqdn fact
	ModulePath []string       // directories holding modules
	Log        func(string)   // notice() and friends; may be nil
	// StrictTypes accepts only the types whose Ruby code is in the module
	// path (as real Puppet does), not every well-known module type.
	StrictTypes bool
	// Read records every file the compilation read (manifests, templates);
	// may be nil.
	Read func(path string)
}

// BuiltinTypes are the resource types of Puppet 7's core. Types from
// modules (mount, augeas, anchor, ...) are known when the module path has
// their lib/puppet/type/<name>.rb.
var BuiltinTypes = map[string]bool{
	"exec": true, "file": true, "filebucket": true, "group": true, "notify": true, "package": true,
	"resources": true, "schedule": true, "service": true, "stage": true, "tidy": true, "user": true,
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
	found := false
	for _, dir := range e.opts.ModulePath {
		m, _ := filepath.Glob(filepath.Join(dir, "*", "lib", "puppet", "type", typ+".rb"))
		if len(m) > 0 {
			found = true
			break
		}
	}
	e.rubyTypes[typ] = found
	return found
}

// maxDefineDepth bounds the nesting of defined types (an instance declared
// by an instance ...), so that a define declaring itself fails instead of
// running forever.
const maxDefineDepth = 100

type entry struct {
	res   *catalog.Resource
	scope *scope
}

type defInst struct {
	depth  int
	parent *scope // lexical parent: the enclosing scope at declaration
	def    *syntax.DefineDef
	e      *entry
	given  map[string]any
}

type relation struct {
	pos      syntax.Pos
	from, to []ref
	notify   bool
}

type evaluator struct {
	opts      Options
	cat       *catalog.Catalog
	classes   map[string]*syntax.ClassDef
	defines   map[string]*syntax.DefineDef
	nodes     []*syntax.NodeDef
	declared  map[string]*scope // class name -> its scope
	entries   map[string]*entry // catalog ref -> entry
	pending   []*defInst
	relations []relation
	top       *scope
	node      *scope // the node block's scope, parent of later classes
	loaded    map[string]bool
	rubyTypes map[string]bool
}

// Compile evaluates the manifest src (read from file) into a catalog.
func Compile(file, src string, opts Options) (cat *catalog.Catalog, err error) {
	stmts, err := syntax.Parse(file, src)
	if err != nil {
		return nil, err
	}
	if opts.Certname == "" {
		opts.Certname, _ = opts.Facts["fqdn"].(string)
	}
	e := &evaluator{
		opts: opts, cat: &catalog.Catalog{Name: opts.Certname},
		classes: map[string]*syntax.ClassDef{}, defines: map[string]*syntax.DefineDef{},
		declared: map[string]*scope{}, entries: map[string]*entry{}, loaded: map[string]bool{},
		rubyTypes: map[string]bool{},
	}
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(*syntax.Error)
			if !ok {
				panic(r)
			}
			cat, err = nil, se
		}
	}()
	e.register(stmts, "")
	e.run(stmts)
	return e.cat, nil
}

func (e *evaluator) fail(p syntax.Pos, format string, args ...any) {
	panic(&syntax.Error{Pos: p, Msg: fmt.Sprintf(format, args...)})
}

// register records the classes, defined types and nodes of stmts,
// including classes nested in classes (named outer::inner).
func (e *evaluator) register(stmts []syntax.Node, prefix string) {
	for _, s := range stmts {
		switch d := s.(type) {
		case *syntax.ClassDef:
			name := qualify(prefix, d.Name)
			if old, dup := e.classes[name]; dup {
				e.fail(d.P, "class '%s' is already defined at %s", name, old.P)
			}
			e.classes[name] = d
			e.register(d.Body, name)
		case *syntax.DefineDef:
			name := qualify(prefix, d.Name)
			if old, dup := e.defines[name]; dup {
				e.fail(d.P, "defined type '%s' is already defined at %s", name, old.P)
			}
			e.defines[name] = d
		case *syntax.NodeDef:
			e.nodes = append(e.nodes, d)
		}
	}
}

func qualify(prefix, name string) string {
	if prefix == "" || strings.Contains(name, "::") {
		return name
	}
	return prefix + "::" + name
}

func (e *evaluator) addResource(r *catalog.Resource, s *scope, p syntax.Pos) *entry {
	if old := e.entries[r.Ref()]; old != nil {
		e.fail(p, "Duplicate declaration: %s is already declared at %s; cannot redeclare", r.Ref(), old.res.Pos())
	}
	en := &entry{res: r, scope: s}
	e.entries[r.Ref()] = en
	e.cat.Resources = append(e.cat.Resources, r)
	return en
}

func (e *evaluator) contain(parent, child *catalog.Resource) {
	e.cat.Edges = append(e.cat.Edges, catalog.Edge{Source: parent.Ref(), Target: child.Ref()})
}

func (e *evaluator) run(stmts []syntax.Node) {
	stage := &catalog.Resource{Type: "Stage", Title: "main", Kind: catalog.KindCompilable, Params: map[string]any{"name": "main"}}
	settings := &catalog.Resource{Type: "Class", Title: "Settings", Kind: catalog.KindUnknown, Params: map[string]any{}}
	main := &catalog.Resource{Type: "Class", Title: "main", Kind: catalog.KindUnknown, Params: map[string]any{"name": "main"}}
	e.top = newScope(nil, nil, main)
	e.setFacts()
	e.addResource(stage, e.top, syntax.Pos{})
	e.addResource(settings, e.top, syntax.Pos{})
	e.addResource(main, e.top, syntax.Pos{})
	e.contain(stage, settings)
	e.contain(stage, main)
	e.declared["settings"] = newScope(e.top, e.top, settings)
	e.declared["main"] = e.top
	e.block(e.top, stmts)
	e.evalNode(main)
	for len(e.pending) > 0 {
		d := e.pending[0]
		if d.depth > maxDefineDepth {
			e.fail(posOf(d.e.res), "defined types nested more than %d deep: endless recursion?", maxDefineDepth)
		}
		e.pending = e.pending[1:]
		e.evalDefine(d)
	}
	e.finish()
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
				if m := mustRegexp(e, x.P, x.Pattern).FindStringSubmatch(name); found == nil && m != nil {
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
	node := &catalog.Resource{Type: "Node", Title: title, Kind: catalog.KindUnknown, File: found.P.File, Line: found.P.Line, Col: found.P.Col, Params: map[string]any{}}
	e.addResource(node, e.top, found.P)
	e.contain(main, node)
	ns := newScope(e.top, e.top, node)
	e.node = ns
	for i, g := range match {
		ns.vars[strconv.Itoa(i)] = g
	}
	e.block(ns, found.Body)
}

// nodeRegexTitle is the title Puppet gives a node matched by a regex.
func nodeRegexTitle(pat string) string {
	t := regexp.MustCompile(`[^-\w:.]`).ReplaceAllString(strings.ToLower(pat), "")
	return "__node_regexp__" + strings.TrimLeft(t, ".")
}

func (e *evaluator) block(s *scope, stmts []syntax.Node) {
	for _, st := range stmts {
		e.stmt(s, st)
	}
}

func (e *evaluator) stmt(s *scope, n syntax.Node) {
	switch x := n.(type) {
	case *syntax.ClassDef, *syntax.DefineDef, *syntax.NodeDef:
		// registered before evaluation
	case *syntax.Assign:
		if strings.Contains(x.Name, "::") {
			e.fail(x.P, "cannot assign to a qualified variable $%s", x.Name)
		}
		if _, dup := s.vars[x.Name]; dup {
			e.fail(x.P, "cannot reassign variable '$%s'", x.Name)
		}
		s.vars[x.Name] = e.expr(s, x.Value)
	case *syntax.Defaults:
		t := catalog.CapitalizeType(x.Type)
		if s.defaults[t] == nil {
			s.defaults[t] = map[string]any{}
		}
		for _, a := range x.Attrs {
			s.defaults[t][a.Name] = e.expr(s, a.Value)
		}
	case *syntax.If:
		c := truthy(e.expr(s, x.Cond))
		if c != x.Not {
			e.block(s, x.Then)
		} else {
			e.block(s, x.Else)
		}
	case *syntax.Case:
		e.caseStmt(s, x)
	case *syntax.Chain:
		e.chain(s, x)
	default:
		e.expr(s, n)
	}
}

func (e *evaluator) caseStmt(s *scope, c *syntax.Case) {
	v := e.expr(s, c.X)
	def := -1
	for i, opts := range c.Opts {
		for _, o := range opts {
			if _, isDef := o.(*syntax.Default); isDef {
				def = i
				continue
			}
			if e.match(s, v, o) {
				e.block(s, c.Bodies[i])
				return
			}
		}
	}
	if def >= 0 {
		e.block(s, c.Bodies[def])
	}
}

// chain records the relationships of a chaining-arrow statement.
func (e *evaluator) chain(s *scope, c *syntax.Chain) {
	var prev []ref
	for i, item := range c.Items {
		cur := e.refsOf(s, item)
		if i > 0 {
			op := c.Ops[i-1]
			r := relation{pos: item.At(), from: prev, to: cur, notify: op == "~>" || op == "<~"}
			if op == "<-" || op == "<~" {
				r.from, r.to = cur, prev
			}
			e.relations = append(e.relations, r)
		}
		prev = cur
	}
}

// refsOf evaluates an operand of a chaining arrow to resource references.
func (e *evaluator) refsOf(s *scope, n syntax.Node) []ref {
	v := e.expr(s, n)
	var out []ref
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case ref:
			out = append(out, x)
		case []any:
			for _, el := range x {
				walk(el)
			}
		default:
			e.fail(n.At(), "a relationship needs resource references, got %s", typeName(v))
		}
	}
	walk(v)
	return out
}

// finish stores the relationships of chaining arrows and checks that
// every relationship names a resource of the catalog.
func (e *evaluator) finish() {
	for _, rel := range e.relations {
		mp := "before"
		if rel.notify {
			mp = "notify"
		}
		for _, f := range rel.from {
			src := e.entries[f.String()]
			if src == nil {
				e.fail(rel.pos, "Could not find resource '%s' for relationship on '%s'", f, rel.to[0])
			}
			for _, t := range rel.to {
				if e.entries[t.String()] == nil {
					e.fail(rel.pos, "Could not find resource '%s' for relationship from '%s'", t, f)
				}
				appendParam(src.res, mp, t.String())
			}
		}
	}
	for _, r := range e.cat.Resources {
		for _, mp := range []string{"before", "require", "notify", "subscribe"} {
			for _, t := range refStrings(r.Params[mp]) {
				if e.entries[t] == nil && !e.aliasExists(t) {
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
		}
	}
	return false
}

func posOf(r *catalog.Resource) syntax.Pos {
	return syntax.Pos{File: r.File, Line: r.Line, Col: r.Col}
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

// loadModule finds the manifest of a class or defined type in the module
// path (mod/manifests/init.pp or mod/manifests/a/b.pp) and registers it.
func (e *evaluator) loadModule(name string) {
	if e.loaded[name] {
		return
	}
	e.loaded[name] = true
	segs := strings.Split(name, "::")
	rel := filepath.Join(segs[0], "manifests", "init.pp")
	if len(segs) > 1 {
		rel = filepath.Join(append([]string{segs[0], "manifests"}, segs[1:]...)...) + ".pp"
	}
	for _, dir := range e.opts.ModulePath {
		p := filepath.Join(dir, rel)
		src, err := os.ReadFile(p)
		if err != nil {
			continue
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
