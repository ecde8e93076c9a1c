package eval

import (
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// A scope holds variables (looked up through parent, Puppet's lexical
// chain) and resource defaults (looked up through dyn, the dynamic chain of
// declarations). container is the resource that contains what the scope
// declares; module is the module the code being evaluated belongs to.
type scope struct {
	vars      map[string]any
	parent    *scope
	dyn       *scope
	defaults  map[string]map[string]any
	container *catalog.Resource
	depth     int    // nesting of defined types
	module    string // $module_name
	// callerModule is the module of the code that declared the class or
	// defined type being evaluated ($caller_module_name).
	callerModule string
	class        string // the class (or define) whose body this is, lower case
	virtual      bool   // resources declared here are virtual (a virtual define)
	exported     bool
}

func newScope(parent, dyn *scope, container *catalog.Resource) *scope {
	s := &scope{vars: map[string]any{}, parent: parent, dyn: dyn,
		defaults: map[string]map[string]any{}, container: container}
	if parent != nil {
		s.module, s.class, s.callerModule = parent.module, parent.class, parent.callerModule
	}
	return s
}

// child is a local scope (a lambda's, a template's) inside s.
func (s *scope) child() *scope {
	c := newScope(s, s.dyn, s.container)
	c.depth, c.virtual, c.exported = s.depth, s.virtual, s.exported
	return c
}

// enclosing is the lexical parent of class and define scopes: the node
// scope once a node block is being evaluated, else top scope.
func (e *evaluator) enclosing() *scope {
	if e.node != nil {
		return e.node
	}
	return e.top
}

// lookup finds a variable: qualified names in the named class's scope,
// others along the lexical chain, then top scope. A missing fact refuses
// the compilation when the facts are the gatherer's (Options.StrictFacts).
func (e *evaluator) lookup(s *scope, p syntax.Pos, name string) any {
	if i := strings.LastIndex(name, "::"); i >= 0 {
		cls, v := strings.TrimPrefix(name[:i], "::"), name[i+2:]
		if cls == "" {
			return e.topVar(p, v)
		}
		cs := e.declared[strings.ToLower(cls)]
		if cs == nil {
			if e.classes[strings.ToLower(cls)] == nil {
				e.loadModule(cls)
			}
			if e.classes[strings.ToLower(cls)] != nil {
				// Puppet warns and gives undef for a class not evaluated yet
				return nil
			}
			return nil
		}
		val, ok := cs.vars[v]
		if !ok && cs.parent != nil && cs.parent != e.top && cs.parent != e.node {
			// variables of an inherited class are visible through the child
			return e.lookup(cs.parent, p, v)
		}
		return val
	}
	switch name {
	case "module_name":
		return s.module
	case "caller_module_name":
		return s.callerModule
	}
	for sc := s; sc != nil; sc = sc.parent {
		if v, ok := sc.vars[name]; ok {
			return v
		}
		if sc == e.top {
			break
		}
	}
	return e.topVar(p, name)
}

// topVar reads a top-scope variable: a fact, a setting-like variable or a
// variable of the main manifest.
func (e *evaluator) topVar(p syntax.Pos, name string) any {
	if v, ok := e.top.vars[name]; ok {
		return v
	}
	if v, ok := e.lazyFact(name); ok {
		return v
	}
	if e.opts.StrictFacts && e.isFactName(name) {
		panic(syntax.Unsupported(p, "the fact '"+name+"', which the native fact gatherer does not know"))
	}
	return nil
}

// factValue reads $facts[name] (or fact('name')), refusing an unknown
// fact like topVar does.
func (e *evaluator) factValue(p syntax.Pos, name string) (any, bool) {
	facts, _ := e.top.vars["facts"].(*hash)
	if facts != nil {
		if v, ok := facts.m[name]; ok {
			return v, true
		}
	}
	if v, ok := e.lazyFact(name); ok {
		return v, v != nil
	}
	if e.opts.StrictFacts && e.isFactName(name) {
		panic(syntax.Unsupported(p, "the fact '"+name+"', which the native fact gatherer does not know"))
	}
	return nil, false
}

// isFactName reports whether Facter (or a module's custom fact code) may
// set a fact of that name.
func (e *evaluator) isFactName(name string) bool {
	if e.opts.AbsentFacts[name] {
		return false
	}
	if e.factNames == nil {
		e.factNames = moduleFactNames(e.opts.ModulePath)
	}
	return e.factNames[name] || facterFact(name)
}

// setFacts puts $facts, the legacy top-scope facts and the trusted and
// server variables in the top scope.
func (e *evaluator) setFacts() {
	f := e.opts.Facts
	if f == nil {
		f = map[string]any{}
	}
	facts := fromJSON(f).(*hash)
	e.top.vars["facts"] = facts
	for _, k := range facts.keys {
		e.top.vars[k] = facts.m[k]
	}
	if e.opts.StrictFacts {
		e.addModuleFacts(facts)
	}
	certname := e.opts.Certname
	host, domain, _ := strings.Cut(certname, ".")
	trusted := newHash()
	trusted.set("authenticated", "local")
	trusted.set("certname", certname)
	trusted.set("domain", domain)
	trusted.set("extensions", newHash())
	trusted.set("hostname", host)
	e.top.vars["trusted"] = trusted
	e.top.vars["clientcert"] = certname
	e.top.vars["environment"] = e.opts.Environment
	if v, ok := facts.m["puppetversion"].(string); ok {
		// what the compiling Puppet server says of itself
		sf := newHash()
		sf.set("serverversion", v)
		sf.set("environment", e.opts.Environment)
		e.top.vars["serverversion"] = v
		e.top.vars["server_facts"] = sf
	}
	e.top.vars["name"] = "main"
	e.top.vars["title"] = "main"
}
