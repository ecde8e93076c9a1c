package sem

import (
	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
)

type bindKind uint8

const (
	bkBind  bindKind = iota // $x = expr (lazy, memoized per activation)
	bkParam                 // function/class parameter, loop variable
	bkFunc                  // func name(...) {...}
	bkClass                 // class name {...}
	bkAlias                 // import alias or include ... as alias
)

// A binding is a name defined in a scope.
type binding struct {
	kind  bindKind
	name  string
	pos   ast.Pos
	scope *Scope
	slot  int

	// bkBind
	expr  ast.Expr
	annot *types.Type
	typ   *types.Type
	ir    node
	state uint8 // 0 unchecked, 1 checking, 2 done

	// bkFunc
	fn        *ast.FuncStmt
	instances map[string]*lambdaIR // checked copies by concrete argument types
	// bkClass
	class *ast.Class
	// bkFunc, bkClass: set while an instance is being checked
	busy bool
	used bool
	// bkClass: full name (a:b) and the scope holding `class full:x` defs
	full     string
	nestedIn *Scope

	// bkAlias
	module  string     // core module name ("" if not a core module)
	target  *Scope     // namespace scope (local module or class instance)
	mod     *module    // local module
	include *includeIR // include-as: the instance
	incAST  *ast.Include
	incEnv  *Scope // scope where the include statement is
}

// A Scope is one static lexical scope: a file, a block body, a class
// instance, a lambda's parameters. At run time each activation of a scope
// is an rscope holding one cell per binding slot.
type Scope struct {
	parent  *Scope
	vars    map[string]*binding
	funcs   map[string]*binding
	classes map[string]*binding
	aliases map[string]*binding
	stars   []*binding
	nslots  int
	mod     *module                 // module (file) the scope belongs to
	static  bool                    // activated once per evaluation (module top level)
	nested  map[string][]*ast.Class // class a:b definitions, by parent name
}

func newScope(parent *Scope, mod *module) *Scope {
	return &Scope{parent: parent, mod: mod}
}

func (s *Scope) add(m *map[string]*binding, b *binding) {
	if *m == nil {
		*m = map[string]*binding{}
	}
	b.scope = s
	b.slot = s.nslots
	s.nslots++
	(*m)[b.name] = b
}

func (s *Scope) ns(kind bindKind) map[string]*binding {
	switch kind {
	case bkFunc:
		return s.funcs
	case bkClass:
		return s.classes
	case bkAlias:
		return s.aliases
	}
	return s.vars
}

// lookupLocal finds name in this scope only (and its star imports).
func (s *Scope) lookupLocal(kind bindKind, name string) (*binding, []*binding) {
	if b, ok := s.ns(kind)[name]; ok {
		return b, nil
	}
	for i := len(s.stars) - 1; i >= 0; i-- { // a later star import wins
		st := s.stars[i]
		if st.target == nil {
			continue
		}
		if b, path := st.target.lookupLocal(kind, name); b != nil {
			return b, append([]*binding{st}, path...)
		}
	}
	return nil, nil
}

// names lists the names visible from s in the namespace of kind, for
// "did you mean" suggestions.
func (s *Scope) names(kind bindKind) []string {
	var out []string
	for sc := s; sc != nil; sc = sc.parent {
		for n := range sc.ns(kind) {
			out = append(out, n)
		}
	}
	return out
}

// A ref is a resolved name: the aliases to go through, then the target.
type ref struct {
	path   []*binding
	target *binding
}
