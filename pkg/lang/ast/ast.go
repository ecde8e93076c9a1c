// Package ast is the syntax tree of mcl. Nodes are plain data: the parser
// builds them, the printer prints them back as source, and the later stages
// (scope, unification, evaluation) read them and keep their own tables
// keyed by node.
package ast

import (
	"strconv"

	"github.com/mgmtpipe/mgmt/pkg/lang/types"
)

// A Pos is a position in a source file; Line and Col count from 1.
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) String() string {
	var buf [128]byte
	b := buf[:0]
	if p.File != "" {
		b = append(append(b, p.File...), ':')
	}
	b = strconv.AppendInt(b, int64(p.Line), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(p.Col), 10)
	return string(b)
}

// A Node is any syntax tree node.
type Node interface{ Position() Pos }

// A Stmt is a statement.
type Stmt interface {
	Node
	stmt()
}

// An Expr is an expression.
type Expr interface {
	Node
	expr()
}

// Before reports whether p comes before q in the same file. A position
// naming no line comes before nothing and nothing comes before it.
func (p Pos) Before(q Pos) bool {
	if p.Line == 0 || q.Line == 0 {
		return false
	}
	return p.Line < q.Line || p.Line == q.Line && p.Col < q.Col
}

// Prog is a list of statements: a file, or the body of an if, for, class.
type Prog struct {
	Pos   Pos
	Stmts []Stmt
	// End is the position of the closing brace of a block, or of the end
	// of a file (zero for a block the parser made, an else if).
	End Pos
	// Comments are the comments of a file, in source order, on the Prog
	// of the file only: the printer puts each back before the first
	// node that followed it.
	Comments []*Comment
}

// A Comment is a comment, from its # to the end of its line.
type Comment struct {
	Pos  Pos
	Text string // with the #, without trailing blanks
	// Trailing is set when code precedes the comment on its line.
	Trailing bool
}

// Bind is `$name = value` or `$name T = value`.
type Bind struct {
	Pos   Pos
	Name  string
	Type  *types.Type // annotation, nil if none
	Value Expr
}

// Res is a resource `kind name { body }` (or `collect kind name { body }`).
type Res struct {
	Pos     Pos
	Kind    string
	Name    Expr
	Collect bool
	Fields  []*ResField
	Edges   []*ResEdge
	Metas   []*ResMeta
	// Order lists the body entries in source order, for printing.
	Order []Node
	End   Pos // of the closing brace
}

// ResField is `key => value,` or `key => cond ?: value,`.
type ResField struct {
	Pos   Pos
	Key   string
	Cond  Expr // nil if unconditional
	Value Expr
}

// ResEdge is `Before|Depend|Notify|Listen => [cond ?:] Kind[name],`.
type ResEdge struct {
	Pos  Pos
	Prop string // "before", "depend", "notify", "listen"
	Cond Expr
	Kind string
	Name Expr
}

// ResMeta is `Meta:prop => value,` or, with Prop "", `Meta => struct{...},`.
type ResMeta struct {
	Pos   Pos
	Prop  string
	Cond  Expr
	Value Expr
}

// Edge is a chain `Kind[name] -> Kind[name] -> ...`; with two halves that
// both name a field it is a send/recv edge.
type Edge struct {
	Pos    Pos
	Halves []*EdgeHalf
}

// EdgeHalf is one end `Kind[name]` or `Kind[name].field`.
type EdgeHalf struct {
	Pos   Pos
	Kind  string
	Name  Expr
	Field string
}

// If is the statement `if cond { then } else { else }`.
type If struct {
	Pos  Pos
	Cond Expr
	Then *Prog
	Else *Prog // nil if absent
}

// For is `for $index, $value in list { body }`.
type For struct {
	Pos   Pos
	Index string
	Value string
	List  Expr
	Body  *Prog
}

// ForKV is `forkv $key, $val in map { body }`.
type ForKV struct {
	Pos  Pos
	Key  string
	Val  string
	Map  Expr
	Body *Prog
}

// FuncStmt is `func name(params) [T] { body }`.
type FuncStmt struct {
	Pos  Pos
	Name string
	Func *Lambda
}

// Class is `class name[(params)] { body }`.
type Class struct {
	Pos    Pos
	Name   string
	Params []*Param
	HasArg bool // written with parentheses
	Body   *Prog
}

// Include is `include name[(args)] [as alias]`.
type Include struct {
	Pos    Pos
	Name   string
	Args   []Expr
	HasArg bool
	Alias  string
}

// Import is `import "path" [as alias]`; Alias "*" imports into the scope.
type Import struct {
	Pos   Pos
	Path  string
	Alias string
}

// Panic is the statement `panic(args)`.
type Panic struct {
	Pos  Pos
	Args []Expr
}

func (s *Prog) Position() Pos     { return s.Pos }
func (s *Bind) Position() Pos     { return s.Pos }
func (s *Res) Position() Pos      { return s.Pos }
func (s *ResField) Position() Pos { return s.Pos }
func (s *ResEdge) Position() Pos  { return s.Pos }
func (s *ResMeta) Position() Pos  { return s.Pos }
func (s *Edge) Position() Pos     { return s.Pos }
func (s *EdgeHalf) Position() Pos { return s.Pos }
func (s *If) Position() Pos       { return s.Pos }
func (s *For) Position() Pos      { return s.Pos }
func (s *ForKV) Position() Pos    { return s.Pos }
func (s *FuncStmt) Position() Pos { return s.Pos }
func (s *Class) Position() Pos    { return s.Pos }
func (s *Include) Position() Pos  { return s.Pos }
func (s *Import) Position() Pos   { return s.Pos }
func (s *Panic) Position() Pos    { return s.Pos }

func (*Prog) stmt()     {}
func (*Bind) stmt()     {}
func (*Res) stmt()      {}
func (*Edge) stmt()     {}
func (*If) stmt()       {}
func (*For) stmt()      {}
func (*ForKV) stmt()    {}
func (*FuncStmt) stmt() {}
func (*Class) stmt()    {}
func (*Include) stmt()  {}
func (*Import) stmt()   {}
func (*Panic) stmt()    {}

// Param is a function or class parameter `$name [T]`.
type Param struct {
	Pos  Pos
	Name string
	Type *types.Type // nil if not annotated
}

// Bool is a bool literal.
type Bool struct {
	Pos   Pos
	Value bool
}

// Str is a string literal without interpolation (escapes decoded).
type Str struct {
	Pos   Pos
	Value string
}

// Interp is an interpolated string: literal parts (*Str) and variables
// (*Var), concatenated. Every variable must be a str.
type Interp struct {
	Pos   Pos
	Parts []Expr
}

// Int is an int literal.
type Int struct {
	Pos   Pos
	Value int64
}

// Float is a float literal.
type Float struct {
	Pos   Pos
	Value float64
	Text  string
}

// List is `[a, b, ...]`.
type List struct {
	Pos   Pos
	Elems []Expr
}

// Map is `{k => v, ...}`.
type Map struct {
	Pos  Pos
	Keys []Expr
	Vals []Expr
}

// Struct is `struct{f => v, ...}`.
type Struct struct {
	Pos    Pos
	Names  []string
	Values []Expr
}

// Var is `$name` (Name may be dotted: `$mod.x`).
type Var struct {
	Pos  Pos
	Name string
}

// Call is `name(args)` (Name set, maybe dotted) or `fn(args)` where Fn is
// an expression (a `$var`, a lambda, another call).
type Call struct {
	Pos  Pos
	Name string
	Fn   Expr
	Args []Expr
}

// Lambda is `func(params) [T] { body }`.
type Lambda struct {
	Pos    Pos
	Params []*Param
	Out    *types.Type // nil if not annotated
	Body   Expr
}

// IfExpr is `if cond { a } else { b }` in value position.
type IfExpr struct {
	Pos  Pos
	Cond Expr
	Then Expr
	Else Expr
}

// Except is `a <|> b`.
type Except struct {
	Pos Pos
	A   Expr
	B   Expr
}

// Binary is `a op b` for + - * / == != < > <= >= and or in.
type Binary struct {
	Pos Pos
	Op  string
	A   Expr
	B   Expr
}

// Not is `not x`.
type Not struct {
	Pos Pos
	X   Expr
}

// Index is `x[index]`.
type Index struct {
	Pos   Pos
	X     Expr
	Index Expr
}

// Field is `x->name`.
type Field struct {
	Pos  Pos
	X    Expr
	Name string
}

func (e *Param) Position() Pos  { return e.Pos }
func (e *Bool) Position() Pos   { return e.Pos }
func (e *Str) Position() Pos    { return e.Pos }
func (e *Interp) Position() Pos { return e.Pos }
func (e *Int) Position() Pos    { return e.Pos }
func (e *Float) Position() Pos  { return e.Pos }
func (e *List) Position() Pos   { return e.Pos }
func (e *Map) Position() Pos    { return e.Pos }
func (e *Struct) Position() Pos { return e.Pos }
func (e *Var) Position() Pos    { return e.Pos }
func (e *Call) Position() Pos   { return e.Pos }
func (e *Lambda) Position() Pos { return e.Pos }
func (e *IfExpr) Position() Pos { return e.Pos }
func (e *Except) Position() Pos { return e.Pos }
func (e *Binary) Position() Pos { return e.Pos }
func (e *Not) Position() Pos    { return e.Pos }
func (e *Index) Position() Pos  { return e.Pos }
func (e *Field) Position() Pos  { return e.Pos }
func (*Bool) expr()             {}
func (*Str) expr()              {}
func (*Interp) expr()           {}
func (*Int) expr()              {}
func (*Float) expr()            {}
func (*List) expr()             {}
func (*Map) expr()              {}
func (*Struct) expr()           {}
func (*Var) expr()              {}
func (*Call) expr()             {}
func (*Lambda) expr()           {}
func (*IfExpr) expr()           {}
func (*Except) expr()           {}
func (*Binary) expr()           {}
func (*Not) expr()              {}
func (*Index) expr()            {}
func (*Field) expr()            {}
