// Package parser reads mcl source into an ast.Prog.
//
// The lexer turns the whole file into tokens first (newlines are tokens:
// they end statements). The parser is recursive descent with precedence
// climbing for the binary operators (lowest first: <|>, or, and,
// comparisons and in, + -, * /, not, ->, [ ]). An error panics with a
// *graph.PosError, which the statement loop recovers: it records the
// error, skips to the end of the statement and goes on, so that Parse
// reports every error of a file (up to graph.MaxStageErrors).
// String literals are decoded and interpolated (`${name}` becomes an
// ast.Interp) while parsing.
package parser

import (
	"fmt"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
)

// Parse parses the source of one file. Its error is a graph.ErrorList of
// the syntax errors found, in the order of the source.
func Parse(file, src string) (prog *ast.Prog, err error) {
	p := newParser(file, src)
	defer func() {
		if r := recover(); r != nil {
			switch r := r.(type) {
			case stopParse:
			case *graph.PosError:
				p.errs.Append(r)
			default:
				panic(r)
			}
		}
		if len(p.errs) > 0 {
			prog, err = nil, p.errs
		}
	}()
	prog = p.prog(true)
	prog.Comments = p.lx.comments
	return prog, nil
}

// ParseExpr parses a single expression (used by tests and --var values).
func ParseExpr(file, src string) (e ast.Expr, err error) {
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(*graph.PosError)
			if !ok {
				panic(r)
			}
			e, err = nil, se
		}
	}()
	p := newParser(file, src)
	p.skipNL()
	e = p.expr()
	p.skipNL()
	if p.peek().kind != tEOF {
		p.unexpected("end of input")
	}
	return e, nil
}

// parser reads the tokens as it goes: toks[i:] are the tokens lexed ahead
// (peekN), so that an error early in a huge file comes at once and the
// memory does not grow with the number of tokens.
type parser struct {
	lx   *lexer
	toks []token
	i    int
	// depth is the parser's recursion (maxRecursion), blocks the number of
	// enclosing blocks and typeDepth of enclosing type levels (maxDepth
	// each).
	depth, blocks, typeDepth int
	// h is the height of the expression the last expression parser
	// returned (a literal is 1 high); see built.
	h int
	// brackets are the brackets read and not yet closed, so that
	// recovery finds the end of a statement (see brackets.go).
	brackets
	errs graph.ErrorList
}

// stopParse is the panic that ends parsing after too many errors.
type stopParse struct{}

func newParser(file, src string) *parser {
	p := &parser{lx: &lexer{file: file, src: src, line: 1, col: 1}}
	p.init()
	return p
}

func (p *parser) peek() token { return *p.peekRef(0) }

// peekN returns the token n places ahead (EOF past the end).
func (p *parser) peekN(n int) token { return *p.peekRef(n) }

// peekRef is peekN without the copy: the token it points to stays valid
// until the parser reads further.
func (p *parser) peekRef(n int) *token {
	for p.i+n >= len(p.toks) {
		if k := len(p.toks); k > 0 && p.toks[k-1].kind == tEOF {
			return &p.toks[k-1]
		}
		if p.i > 32 && p.i >= len(p.toks)/2 { // drop the tokens read
			p.toks = append(p.toks[:0], p.toks[p.i:]...)
			p.i = 0
		}
		p.toks = append(p.toks, p.lx.next())
	}
	return &p.toks[p.i+n]
}

func (p *parser) adv() token {
	t := p.peek()
	if t.kind != tEOF {
		p.i++
	}
	if t.kind == tPunct {
		p.bracket(t.text)
	}
	return t
}

func (p *parser) failAt(pos ast.Pos, format string, args ...any) {
	panic(syntaxErr(pos, format, args...))
}

func (p *parser) unexpected(want string) {
	t := p.peek()
	if t.kind == tInvalid {
		panic(t.err)
	}
	p.failAt(t.pos, "unexpected %s, expecting %s", t, want)
}

func (p *parser) is(kind tokKind, text string) bool {
	t := p.peekRef(0)
	return t.kind == kind && t.text == text
}

func (p *parser) isPunct(s string) bool { return p.is(tPunct, s) }
func (p *parser) isOp(s string) bool    { return p.is(tOp, s) }
func (p *parser) isKw(s string) bool    { return p.is(tKeyword, s) }

func (p *parser) expectPunct(s string) token {
	if !p.isPunct(s) {
		p.unexpected(fmt.Sprintf("%q", s))
	}
	return p.adv()
}

func (p *parser) skipNL() {
	for p.peek().kind == tNewline {
		p.adv()
	}
}

// prog parses statements until EOF (top) or a closing brace (not top).
func (p *parser) prog(top bool) *ast.Prog {
	prog := &ast.Prog{Pos: p.peek().pos}
	for {
		p.skipNL()
		t := p.peek()
		if t.kind == tEOF {
			if !top {
				p.unexpected(`"}"`)
			}
			prog.End = t.pos
			return prog
		}
		if !top && p.isPunct("}") {
			prog.End = t.pos
			return prog
		}
		if st := p.stmtOrSkip(top); st != nil {
			prog.Stmts = append(prog.Stmts, st)
		}
	}
}

// stmtOrSkip parses a statement and checks what follows it ends it. On an
// error it records the error, skips the rest of the statement and returns
// nil.
func (p *parser) stmtOrSkip(top bool) (st ast.Stmt) {
	depth, blocks, typeDepth, open := p.depth, p.blocks, p.typeDepth, len(p.stack)
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		e, ok := r.(*graph.PosError)
		if !ok {
			panic(r)
		}
		p.depth, p.blocks, p.typeDepth = depth, blocks, typeDepth
		p.report(e)
		p.skipStmt(top, open)
		st = nil
	}()
	st = p.stmt()
	switch t := p.peek(); {
	case t.kind == tNewline || t.kind == tEOF:
	case !top && p.isPunct("}"):
	default:
		p.unexpected("NEWLINE")
	}
	return st
}

// report records e, unless an error was reported at the same place (one
// mistake seen again by an enclosing block); it stops the parse after too
// many errors.
func (p *parser) report(e *graph.PosError) {
	if n := len(p.errs); n > 0 && p.errs[n-1].Pos == e.Pos {
		return
	}
	if !p.errs.Append(e) {
		panic(stopParse{})
	}
}

func (p *parser) block() *ast.Prog {
	defer p.enterBlock()()
	p.expectPunct("{")
	b := p.prog(false)
	p.expectPunct("}")
	return b
}

// enterBlock counts one more level of blocks (an else-if counts as the
// block it prints as) and returns the function that leaves it.
func (p *parser) enterBlock() func() {
	pos := p.peek().pos
	p.enter(pos, "blocks")
	p.blocks++
	if p.blocks > maxDepth {
		p.failAt(pos, "blocks nested too deeply: more than %d levels", maxDepth)
	}
	return func() { p.blocks--; p.leave() }
}

func (p *parser) stmt() ast.Stmt {
	t := p.peek()
	switch t.kind {
	case tVar:
		return p.bind()
	case tIdent:
		if t.text == "collect" && p.peekN(1).kind == tIdent {
			p.adv()
			r := p.res()
			r.Pos, r.Collect = t.pos, true
			return r
		}
		return p.res()
	case tCaps:
		return p.edge()
	case tKeyword:
		switch t.text {
		case "if":
			return p.ifStmt()
		case "for":
			return p.forStmt()
		case "forkv":
			return p.forKV()
		case "func":
			return p.funcStmt()
		case "class":
			return p.class()
		case "include":
			return p.include()
		case "import":
			return p.importStmt()
		case "panic":
			p.adv()
			args := p.args()
			if len(args) < 1 || len(args) > 2 {
				p.failAt(t.pos, "panic takes one or two arguments")
			}
			return &ast.Panic{Pos: t.pos, Args: args}
		}
	}
	p.unexpected("a statement")
	return nil
}

func (p *parser) bind() ast.Stmt {
	t := p.adv()
	if strings.Contains(t.text, ".") {
		p.failAt(t.pos, "cannot bind the dotted name $%s", t.text)
	}
	b := &ast.Bind{Pos: t.pos, Name: t.text}
	if !p.isPunct("=") {
		if p.peek().kind == tNewline || p.peek().kind == tEOF {
			p.unexpected(`"="`)
		}
		b.Type = p.typ()
	}
	p.expectPunct("=")
	p.skipNL()
	b.Value = p.expr()
	return b
}

// kindName parses `a:b:c` (lower case) or `A:B:C` (capitalized).
func (p *parser) kindName(kind tokKind) string {
	t := p.peek()
	if t.kind != kind {
		p.unexpected(tokNames[kind])
	}
	p.adv()
	name := t.text
	for p.isPunct(":") && p.peekN(1).kind == kind {
		p.adv()
		name += ":" + p.adv().text
	}
	return name
}

func (p *parser) res() *ast.Res {
	pos := p.peek().pos
	kind := p.kindName(tIdent)
	if strings.Contains(kind, ".") {
		p.failAt(pos, "unexpected %q: a resource kind has no dots", kind)
	}
	r := &ast.Res{Pos: pos, Kind: kind}
	r.Name = p.expr()
	p.expectPunct("{")
	for {
		p.skipNL()
		if p.isPunct("}") {
			r.End = p.adv().pos
			return r
		}
		p.resEntry(r)
		if !p.isPunct(",") {
			p.unexpected(`","`)
		}
		p.adv()
	}
}

func (p *parser) resEntry(r *ast.Res) {
	t := p.peek()
	switch {
	case t.kind == tIdent:
		p.adv()
		if strings.Contains(t.text, ".") {
			p.failAt(t.pos, "unexpected %q: a parameter name has no dots", t.text)
		}
		p.expectPunct("=>")
		f := &ast.ResField{Pos: t.pos, Key: t.text}
		f.Cond, f.Value = p.condValue()
		if r.Fields == nil { // most resources have a few fields
			r.Fields = make([]*ast.ResField, 0, 4)
		}
		r.Fields = append(r.Fields, f)
		if r.Order == nil {
			r.Order = make([]ast.Node, 0, 4)
		}
		r.Order = append(r.Order, f)
	case t.kind == tCaps && t.text == "meta":
		p.adv()
		m := &ast.ResMeta{Pos: t.pos}
		if p.isPunct(":") {
			p.adv()
			n := p.peek()
			if n.kind != tIdent {
				p.unexpected("a metaparameter name")
			}
			p.adv()
			m.Prop = strings.ToLower(n.text)
		}
		p.expectPunct("=>")
		m.Cond, m.Value = p.condValue()
		r.Metas = append(r.Metas, m)
		r.Order = append(r.Order, m)
	case t.kind == tCaps && (t.text == "before" || t.text == "depend" || t.text == "notify" || t.text == "listen"):
		p.adv()
		p.expectPunct("=>")
		e := &ast.ResEdge{Pos: t.pos, Prop: t.text}
		if p.peek().kind != tCaps {
			e.Cond = p.expr()
			if !p.isOp("?:") {
				p.unexpected(`"?:" or a resource reference`)
			}
			p.adv()
		}
		e.Kind = p.kindName(tCaps)
		p.expectPunct("[")
		e.Name = p.expr()
		p.expectPunct("]")
		r.Edges = append(r.Edges, e)
		r.Order = append(r.Order, e)
	default:
		p.unexpected("a resource field")
	}
}

func (p *parser) condValue() (cond, value ast.Expr) {
	v := p.expr()
	if p.isOp("?:") {
		p.adv()
		return v, p.expr()
	}
	return nil, v
}

func (p *parser) edgeHalf() *ast.EdgeHalf {
	pos := p.peek().pos
	h := &ast.EdgeHalf{Pos: pos, Kind: p.kindName(tCaps)}
	p.expectPunct("[")
	h.Name = p.expr()
	p.expectPunct("]")
	if p.isPunct(".") {
		p.adv()
		f := p.peek()
		if f.kind != tIdent {
			p.unexpected("a field name")
		}
		h.Field = p.adv().text
	}
	return h
}

func (p *parser) edge() ast.Stmt {
	e := &ast.Edge{Pos: p.peek().pos}
	e.Halves = append(e.Halves, p.edgeHalf())
	for p.isOp("->") {
		p.adv()
		p.skipNL()
		e.Halves = append(e.Halves, p.edgeHalf())
	}
	// A lone half (no "->") parses: it is a type error, found by the checker.
	sr := false
	for _, h := range e.Halves {
		if h.Field != "" {
			sr = true
		}
	}
	if sr && len(e.Halves) > 1 && (len(e.Halves) != 2 || e.Halves[0].Field == "" || e.Halves[1].Field == "") {
		p.failAt(e.Pos, "a send/recv edge joins exactly two fields: Kind[a].send -> Kind[b].recv")
	}
	return e
}

func (p *parser) ifStmt() ast.Stmt {
	t := p.adv()
	s := &ast.If{Pos: t.pos, Cond: p.expr()}
	s.Then = p.block()
	if p.isKw("else") {
		p.adv()
		if p.isKw("if") {
			leave := p.enterBlock()
			inner := p.ifStmt()
			leave()
			s.Else = &ast.Prog{Pos: inner.Position(), Stmts: []ast.Stmt{inner}}
		} else {
			s.Else = p.block()
		}
	}
	return s
}

func (p *parser) varName() token {
	t := p.peek()
	if t.kind != tVar || strings.Contains(t.text, ".") {
		p.unexpected("a variable")
	}
	return p.adv()
}

func (p *parser) forStmt() ast.Stmt {
	t := p.adv()
	s := &ast.For{Pos: t.pos}
	s.Index = p.varName().text
	p.expectPunct(",")
	s.Value = p.varName().text
	if !p.isKw("in") {
		p.unexpected(`"in"`)
	}
	p.adv()
	s.List = p.expr()
	s.Body = p.block()
	return s
}

func (p *parser) forKV() ast.Stmt {
	t := p.adv()
	s := &ast.ForKV{Pos: t.pos}
	s.Key = p.varName().text
	p.expectPunct(",")
	s.Val = p.varName().text
	if !p.isKw("in") {
		p.unexpected(`"in"`)
	}
	p.adv()
	s.Map = p.expr()
	s.Body = p.block()
	return s
}

func (p *parser) params() []*ast.Param {
	p.expectPunct("(")
	var ps []*ast.Param
	for {
		p.skipNL()
		if p.isPunct(")") {
			p.adv()
			return ps
		}
		if len(ps) > 0 {
			p.expectPunct(",")
			p.skipNL()
			if p.isPunct(")") {
				p.adv()
				return ps
			}
		}
		v := p.varName()
		prm := &ast.Param{Pos: v.pos, Name: v.text}
		if !p.isPunct(",") && !p.isPunct(")") && p.peek().kind != tNewline {
			prm.Type = p.typ()
		}
		ps = append(ps, prm)
	}
}

func (p *parser) lambdaRest(pos ast.Pos) *ast.Lambda {
	l := &ast.Lambda{Pos: pos, Params: p.params()}
	if !p.isPunct("{") {
		l.Out = p.typ()
	}
	p.expectPunct("{")
	p.skipNL()
	l.Body = p.expr()
	p.skipNL()
	p.expectPunct("}")
	p.built(pos, p.h+1)
	return l
}

func (p *parser) funcStmt() ast.Stmt {
	t := p.adv()
	n := p.peek()
	if n.kind != tIdent || strings.Contains(n.text, ".") {
		p.unexpected("a function name")
	}
	p.adv()
	return &ast.FuncStmt{Pos: t.pos, Name: n.text, Func: p.lambdaRest(n.pos)}
}

func (p *parser) class() ast.Stmt {
	t := p.adv()
	c := &ast.Class{Pos: t.pos, Name: p.kindName(tIdent)}
	if p.isPunct("(") {
		c.HasArg = true
		c.Params = p.params()
	}
	c.Body = p.block()
	return c
}

func (p *parser) include() ast.Stmt {
	t := p.adv()
	s := &ast.Include{Pos: t.pos, Name: p.kindName(tIdent)}
	if p.isPunct("(") {
		s.HasArg = true
		s.Args = p.args()
	}
	if p.isKw("as") {
		p.adv()
		a := p.peek()
		if a.kind != tIdent || strings.Contains(a.text, ".") {
			p.unexpected("an alias name")
		}
		s.Alias = p.adv().text
	}
	return s
}

func (p *parser) importStmt() ast.Stmt {
	t := p.adv()
	st := p.peek()
	if st.kind != tString {
		p.unexpected("an import path string")
	}
	p.adv()
	s := &ast.Import{Pos: t.pos, Path: decodeOrFail(p, st)}
	if p.isKw("as") {
		p.adv()
		a := p.peek()
		switch {
		case a.kind == tOp && a.text == "*":
			s.Alias = "*"
		case a.kind == tIdent && !strings.Contains(a.text, "."):
			s.Alias = a.text
		default:
			p.unexpected(`an alias name or "*"`)
		}
		p.adv()
	}
	return s
}

func decodeOrFail(p *parser, t token) string {
	s, err := unescape(t.text)
	if err != nil {
		p.failAt(t.pos, "%v", err)
	}
	return s
}

// args parses `( expr, ... )` allowing newlines after commas and a
// trailing comma.
func (p *parser) args() []ast.Expr {
	p.expectPunct("(")
	return p.exprList(")")
}

// exprList parses expressions up to end and sets p.h to the height of the
// highest (0 for none).
func (p *parser) exprList(end string) []ast.Expr {
	var out []ast.Expr
	h := 0
	for {
		p.skipNL()
		if p.isPunct(end) {
			p.adv()
			p.h = h
			return out
		}
		if len(out) > 0 {
			p.expectPunct(",")
			p.skipNL()
			if p.isPunct(end) {
				p.adv()
				p.h = h
				return out
			}
		}
		out = append(out, p.expr())
		h = max(h, p.h)
	}
}

// typ parses a type written with tokens.
func (p *parser) typ() *types.Type {
	t := p.peek()
	p.enter(t.pos, "types")
	p.typeDepth++
	defer func() { p.typeDepth--; p.leave() }()
	if p.typeDepth > types.MaxDepth {
		p.failAt(t.pos, "type nested too deeply: more than %d levels", types.MaxDepth)
	}
	switch {
	case t.kind == tPunct && t.text == "[":
		p.adv()
		p.expectPunct("]")
		return types.NewList(p.typ())
	case t.kind == tKeyword && t.text == "func":
		p.adv()
		p.expectPunct("(")
		var fs []types.Field
		for !p.isPunct(")") {
			if len(fs) > 0 {
				p.expectPunct(",")
			}
			f := types.Field{}
			if n := p.peek(); n.kind == tIdent && !isTypeWord(n.text) {
				p.adv()
				f.Name = n.text
			} else if n.kind == tVar {
				p.adv()
				f.Name = n.text
			}
			f.Type = p.typ()
			fs = append(fs, f)
		}
		p.adv()
		return types.NewFunc(fs, p.typ())
	case t.kind == tIdent:
		switch t.text {
		case "bool", "str", "int", "float", "variant":
			p.adv()
			typ, _ := types.Parse(t.text)
			return typ
		case "map":
			p.adv()
			p.expectPunct("{")
			k := p.typ()
			p.expectPunct(":")
			v := p.typ()
			p.expectPunct("}")
			return types.NewMap(k, v)
		case "struct":
			return p.structType()
		}
	}
	p.unexpected("a type")
	return nil
}

func (p *parser) structType() *types.Type {
	p.adv()
	p.expectPunct("{")
	var fs []types.Field
	seen := map[string]bool{}
	for {
		p.skipNL()
		if p.isPunct("}") {
			p.adv()
			return types.NewStruct(fs...)
		}
		if len(fs) > 0 {
			if !p.isPunct(";") && p.peek().kind != tNewline {
				p.unexpected(`";"`)
			}
			p.adv()
			p.skipNL()
			if p.isPunct("}") {
				p.adv()
				return types.NewStruct(fs...)
			}
		}
		n := p.peek()
		if n.kind != tIdent || strings.Contains(n.text, ".") {
			p.unexpected("a field name")
		}
		p.adv()
		if seen[n.text] {
			p.failAt(n.pos, "duplicate struct field %q", n.text)
		}
		seen[n.text] = true
		fs = append(fs, types.Field{Name: n.text, Type: p.typ()})
	}
}

func isTypeWord(w string) bool {
	switch w {
	case "bool", "str", "int", "float", "variant", "map", "struct":
		return true
	}
	return false
}
