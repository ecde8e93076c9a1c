// Package syntax is the front end of puppet-graph's native Puppet engine:
// a lexer and a recursive-descent parser for the Puppet language
// (resources, virtual and exported resources, defaults, overrides,
// collectors, classes, defined types, nodes, functions and type aliases,
// conditionals usable as values, selectors, relationships, lambdas, data
// types, string interpolation and heredocs). The AST is plain data;
// pkg/puppet/eval evaluates it into a catalog. Valid Puppet the engine
// does not handle is reported with Unsupported, never as a syntax error:
// `FILE:LINE:COL: unsupported by the native engine: ...`.
//
// The parser bounds its recursion (MaxDepth nested constructs) and the
// length of operator and arrow chains (MaxTerms), so that no input can
// exhaust the stack: such input gets a positioned "nested too deeply" or
// "expression too long" error.
package syntax

// A Node is any AST node.
type Node interface{ At() Pos }

// Expressions.
type (
	// Str is a string literal, or an interpolated string when Parts is
	// set (each part is a *Str literal or an expression).
	Str struct {
		P     Pos
		Value string
		Parts []Node
	}
	Num struct {
		P    Pos
		Text string
	}
	Bool struct {
		P     Pos
		Value bool
	}
	Undef   struct{ P Pos }
	Default struct{ P Pos }
	Var     struct {
		P    Pos
		Name string
	}
	Regex struct {
		P       Pos
		Pattern string
	}
	Array struct {
		P     Pos
		Elems []Node
	}
	Hash struct {
		P    Pos
		Keys []Node
		Vals []Node
	}
	// TypeRef is a bare capitalized name (File, Class), or a resource
	// reference when Titles is set (File["/x"], Class[a, b]).
	TypeRef struct {
		P      Pos
		Type   string
		Titles []Node
	}
	Access struct {
		P     Pos
		X     Node
		Index []Node
	}
	Unary struct {
		P  Pos
		Op string
		X  Node
	}
	Binary struct {
		P    Pos
		Op   string
		L, R Node
	}
	Selector struct {
		P       Pos
		X       Node
		Matches []Node
		Values  []Node
	}
	// Call is a function call; a method call x.f(a) has x as its first
	// argument. A capitalized Name is a type's new function:
	// Integer("1"), Sensitive($x).
	Call struct {
		P      Pos
		Name   string
		Args   []Node
		Lambda *Lambda
	}
	// Collect is a resource collector, Type <| Query |> (or <<| |>> for
	// exported resources), with an optional block of attributes to set.
	Collect struct {
		P        Pos
		Type     string
		Query    Node // nil: every resource of the type
		Exported bool
		Attrs    []*Attr
	}
	// Lambda is the block of an iterating call: |$a, $b| { ... }.
	Lambda struct {
		P      Pos
		Params []*Param
		Body   []Node
	}
	// Name is a bare word used as a value (a string in Puppet).
	Name struct {
		P     Pos
		Value string
	}
)

// Statements.
type (
	// Attr is one attribute operation; Name "*" is a splat (* => $hash).
	Attr struct {
		P     Pos
		Name  string
		Op    string // => or +>
		Value Node
	}
	ResBody struct {
		P     Pos
		Title Node
		Attrs []*Attr
	}
	// Resource declares resources of Type (lower case; "class" for
	// resource-like class declarations); a body titled default holds the
	// defaults of the other bodies. Virtual (@) resources exist only once
	// realized; exported (@@) ones are for other nodes.
	Resource struct {
		P        Pos
		Type     string
		Bodies   []*ResBody
		Virtual  bool
		Exported bool
	}
	// Override sets attributes of resources declared elsewhere:
	// File["/x"] { mode => "0644" }.
	Override struct {
		P      Pos
		Target Node
		Attrs  []*Attr
	}
	// Defaults sets resource defaults: File { mode => "0644" }.
	Defaults struct {
		P     Pos
		Type  string
		Attrs []*Attr
	}
	Param struct {
		P       Pos
		Name    string
		Type    Node // the data type; nil when none is given (Any)
		Default Node // nil when mandatory
		Rest    bool // *$rest: captures the remaining arguments
	}
	// FunctionDef defines a function in the Puppet language.
	FunctionDef struct {
		P      Pos
		Name   string
		Params []*Param
		Return Node // return type, nil when none is given
		Body   []Node
	}
	// TypeAlias defines a data type alias: type Name = Type.
	TypeAlias struct {
		P    Pos
		Name string
		Type Node
	}
	ClassDef struct {
		P      Pos
		Name   string
		Params []*Param
		Parent string
		Body   []Node
	}
	DefineDef struct {
		P      Pos
		Name   string
		Params []*Param
		Body   []Node
	}
	NodeDef struct {
		P     Pos
		Names []Node // *Str, *Name, *Regex or *Default
		Body  []Node
	}
	If struct {
		P    Pos
		Cond Node
		Then []Node
		Else []Node
		Not  bool // unless
	}
	Case struct {
		P      Pos
		X      Node
		Opts   [][]Node // match values per branch
		Bodies [][]Node
	}
	Assign struct {
		P     Pos
		Name  string
		Value Node
	}
	// Chain is a relationship statement: Ops[i] joins Items[i] and Items[i+1].
	Chain struct {
		P     Pos
		Items []Node
		Ops   []string
	}
)

func (n *Str) At() Pos         { return n.P }
func (n *Num) At() Pos         { return n.P }
func (n *Bool) At() Pos        { return n.P }
func (n *Undef) At() Pos       { return n.P }
func (n *Default) At() Pos     { return n.P }
func (n *Var) At() Pos         { return n.P }
func (n *Regex) At() Pos       { return n.P }
func (n *Array) At() Pos       { return n.P }
func (n *Hash) At() Pos        { return n.P }
func (n *TypeRef) At() Pos     { return n.P }
func (n *Access) At() Pos      { return n.P }
func (n *Unary) At() Pos       { return n.P }
func (n *Binary) At() Pos      { return n.P }
func (n *Selector) At() Pos    { return n.P }
func (n *Call) At() Pos        { return n.P }
func (n *Name) At() Pos        { return n.P }
func (n *Lambda) At() Pos      { return n.P }
func (n *Attr) At() Pos        { return n.P }
func (n *ResBody) At() Pos     { return n.P }
func (n *Resource) At() Pos    { return n.P }
func (n *Defaults) At() Pos    { return n.P }
func (n *Param) At() Pos       { return n.P }
func (n *ClassDef) At() Pos    { return n.P }
func (n *DefineDef) At() Pos   { return n.P }
func (n *NodeDef) At() Pos     { return n.P }
func (n *If) At() Pos          { return n.P }
func (n *Case) At() Pos        { return n.P }
func (n *Assign) At() Pos      { return n.P }
func (n *Chain) At() Pos       { return n.P }
func (n *Collect) At() Pos     { return n.P }
func (n *Override) At() Pos    { return n.P }
func (n *FunctionDef) At() Pos { return n.P }
func (n *TypeAlias) At() Pos   { return n.P }
