package sem

import (
	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// node is a typed expression of the IR. eval computes its value in one
// activation (rscope) during one evaluation pass.
type node interface {
	typ() *types.Type
	eval(p *pass, rs *rscope) (values.Value, error)
}

// stmtIR is a statement of the IR; walk adds its resources and edges to
// the pass's output.
type stmtIR interface {
	walk(p *pass, rs *rscope) error
}

type progIR struct {
	scope *Scope
	stmts []stmtIR
	pos   ast.Pos
}

type constIR struct{ v values.Value }

type interpIR struct{ parts []node }

type listIR struct {
	t, rt *types.Type
	elems []node
	pos   ast.Pos
}

type mapIR struct {
	t, rt      *types.Type
	keys, vals []node
	pos        ast.Pos
}

type structIR struct {
	t, rt *types.Type
	names []string
	vals  []node
	pos   ast.Pos
}

type varIR struct {
	r    ref
	t    *types.Type
	name string
	pos  ast.Pos
}

type lambdaIR struct {
	scope   *Scope
	nparams int
	body    node
	t, rt   *types.Type
	id      int
	pos     ast.Pos
}

// instIR is a use of a func statement: its instance lambda, evaluated in
// the scope of the definition.
type instIR struct {
	r   ref
	lam *lambdaIR
}

type callIR struct {
	fn   node
	args []node
	t    *types.Type
	id   int
	pos  ast.Pos
}

type builtinIR struct {
	f         *funcs.Func
	args      []node
	sig, rsig *types.Type
	impl      funcs.Impl
	id        int
	pos       ast.Pos
	name      string
}

type ifIR struct{ cond, a, b node }

type exceptIR struct{ a, b node }

type binIR struct {
	op   string
	a, b node
	t    *types.Type
	pos  ast.Pos
}

type notIR struct{ x node }

type indexIR struct {
	x, i  node
	t     *types.Type
	isMap bool
	pos   ast.Pos
}

type fieldIR struct {
	x      node
	name   string
	t      *types.Type
	def    node // optional form: default value
	absent bool // optional form: the struct type has no such field
	pos    ast.Pos
}

func (n *constIR) typ() *types.Type   { return n.v.Type() }
func (n *interpIR) typ() *types.Type  { return types.Str }
func (n *listIR) typ() *types.Type    { return n.t }
func (n *mapIR) typ() *types.Type     { return n.t }
func (n *structIR) typ() *types.Type  { return n.t }
func (n *varIR) typ() *types.Type     { return n.t }
func (n *lambdaIR) typ() *types.Type  { return n.t }
func (n *instIR) typ() *types.Type    { return n.lam.t }
func (n *callIR) typ() *types.Type    { return n.t }
func (n *builtinIR) typ() *types.Type { return n.sig.Out }
func (n *ifIR) typ() *types.Type      { return n.a.typ() }
func (n *exceptIR) typ() *types.Type  { return n.a.typ() }
func (n *binIR) typ() *types.Type     { return n.t }
func (n *notIR) typ() *types.Type     { return types.Bool }
func (n *indexIR) typ() *types.Type   { return n.t }
func (n *fieldIR) typ() *types.Type   { return n.t }

// Statements.

type resIR struct {
	kind    string
	name    node
	fields  []*resFieldIR
	metas   []*resMetaIR
	edges   []*resEdgeIR
	collect node   // collect statement: the _collect call
	unknown string // an unknown kind: why it cannot be created
	pos     ast.Pos
}

type resFieldIR struct {
	key       string
	cond, val node
	rt        *types.Type
	pos       ast.Pos
}

type resMetaIR struct {
	prop      string
	cond, val node
	pos       ast.Pos
}

type resEdgeIR struct {
	prop       string
	cond, name node
	kind       string
	pos        ast.Pos
}

type edgeIR struct {
	halves []*edgeHalfIR
	pos    ast.Pos
}

type edgeHalfIR struct {
	kind  string
	name  node
	field string
	pos   ast.Pos
}

type ifStmtIR struct {
	cond      node
	then, els *progIR
}

type forIR struct {
	pscope *Scope
	list   node
	kv     bool
	body   *progIR
	pos    ast.Pos
	id     int
}

// includeIR is one class instance: the class body checked for this
// include site with its arguments.
type includeIR struct {
	r      ref
	args   []node
	pscope *Scope // parameters
	scope  *Scope // body
	body   *progIR
	pos    ast.Pos
	name   string
	id     int
}

// includeWalkIR is an include statement: it walks the instance's body
// (through the alias when there is one, so that the instance is shared
// with the `$alias.x` lookups).
type includeWalkIR struct {
	inc   *includeIR
	alias *binding
}

type panicIR struct {
	args []node
	pos  ast.Pos
}

type importIR struct{ mod *module }
