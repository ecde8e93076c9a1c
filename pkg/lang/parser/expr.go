package parser

import (
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
)

// binary operator precedence levels, lowest first.
var levels = [][]string{
	{"<|>"},
	{"or"},
	{"and"},
	{"<", ">", "<=", ">=", "==", "!=", "in"},
	{"+", "-"},
	{"*", "/"},
}

// maxDepth bounds the nesting of expressions and types, so that hostile
// input gets an error instead of exhausting the stack.
const maxDepth = 500

func (p *parser) expr() ast.Expr {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		p.failAt(p.peek().pos, "expressions nested more than %d deep", maxDepth)
	}
	return p.binary(0)
}

func (p *parser) opAt(level int) (token, bool) {
	t := p.peek()
	if t.kind != tOp && t.kind != tKeyword {
		return t, false
	}
	for _, op := range levels[level] {
		if t.text == op {
			return t, true
		}
	}
	return t, false
}

func (p *parser) binary(level int) ast.Expr {
	if level == len(levels) {
		return p.unary()
	}
	a := p.binary(level + 1)
	for {
		t, ok := p.opAt(level)
		if !ok {
			return a
		}
		p.adv()
		p.skipNL()
		b := p.binary(level + 1)
		if t.text == "<|>" {
			a = &ast.Except{Pos: a.Position(), A: a, B: b}
		} else {
			a = &ast.Binary{Pos: t.pos, Op: t.text, A: a, B: b}
		}
		if level == 3 { // comparisons are non-associative
			if _, again := p.opAt(level); again {
				p.failAt(p.peek().pos, "comparison operators do not chain; add parentheses")
			}
			return a
		}
	}
}

func (p *parser) unary() ast.Expr {
	if p.isKw("not") {
		t := p.adv()
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > maxDepth {
			p.failAt(t.pos, "expressions nested more than %d deep", maxDepth)
		}
		return &ast.Not{Pos: t.pos, X: p.unary()}
	}
	return p.postfix(p.primary())
}

func (p *parser) postfix(e ast.Expr) ast.Expr {
	for {
		switch {
		case p.isPunct("["):
			t := p.adv()
			p.skipNL()
			idx := p.expr()
			p.skipNL()
			p.expectPunct("]")
			e = &ast.Index{Pos: t.pos, X: e, Index: idx}
		case p.isOp("->"):
			t := p.adv()
			n := p.peek()
			if n.kind != tIdent || strings.Contains(n.text, ".") {
				p.unexpected("a struct field name")
			}
			p.adv()
			e = &ast.Field{Pos: t.pos, X: e, Name: n.text}
		case p.isPunct("("):
			switch e.(type) {
			case *ast.Var, *ast.Lambda, *ast.Call, *ast.Index, *ast.Field:
			default:
				return e
			}
			e = &ast.Call{Pos: e.Position(), Fn: e, Args: p.args()}
		default:
			return e
		}
	}
}

func (p *parser) primary() ast.Expr {
	t := p.peek()
	switch t.kind {
	case tBool:
		p.adv()
		return &ast.Bool{Pos: t.pos, Value: t.text == "true"}
	case tInt:
		p.adv()
		return &ast.Int{Pos: t.pos, Value: t.ival}
	case tFloat:
		p.adv()
		return &ast.Float{Pos: t.pos, Value: t.fval, Text: t.text}
	case tString:
		p.adv()
		e, err := interpolate(t)
		if err != nil {
			panic(err)
		}
		return e
	case tVar:
		p.adv()
		return &ast.Var{Pos: t.pos, Name: t.text}
	case tIdent:
		if t.text == "struct" && p.peekN(1).kind == tPunct && p.peekN(1).text == "{" {
			return p.structLit()
		}
		p.adv()
		if !p.isPunct("(") {
			p.failAt(t.pos, "unexpected %s, expecting \"(\" (a name alone is not a value; variables start with $)", t)
		}
		return &ast.Call{Pos: t.pos, Name: t.text, Args: p.args()}
	case tKeyword:
		switch t.text {
		case "func":
			p.adv()
			return p.lambdaRest(t.pos)
		case "if":
			return p.ifExpr()
		}
	case tPunct:
		switch t.text {
		case "(":
			p.adv()
			p.skipNL()
			e := p.expr()
			p.skipNL()
			p.expectPunct(")")
			return e
		case "[":
			p.adv()
			return &ast.List{Pos: t.pos, Elems: p.exprList("]")}
		case "{":
			return p.mapLit()
		}
	}
	p.unexpected("an expression")
	return nil
}

func (p *parser) ifExpr() ast.Expr {
	t := p.adv()
	e := &ast.IfExpr{Pos: t.pos, Cond: p.expr()}
	e.Then = p.exprBlock()
	if !p.isKw("else") {
		p.unexpected(`"else" (an if expression needs both branches)`)
	}
	p.adv()
	if p.isKw("if") {
		e.Else = p.ifExpr()
	} else {
		e.Else = p.exprBlock()
	}
	return e
}

func (p *parser) exprBlock() ast.Expr {
	p.expectPunct("{")
	p.skipNL()
	e := p.expr()
	p.skipNL()
	p.expectPunct("}")
	return e
}

func (p *parser) mapLit() ast.Expr {
	t := p.adv()
	m := &ast.Map{Pos: t.pos}
	for {
		p.skipNL()
		if p.isPunct("}") {
			p.adv()
			return m
		}
		if len(m.Keys) > 0 {
			p.expectPunct(",")
			p.skipNL()
			if p.isPunct("}") {
				p.adv()
				return m
			}
		}
		m.Keys = append(m.Keys, p.expr())
		p.expectPunct("=>")
		p.skipNL()
		m.Vals = append(m.Vals, p.expr())
	}
}

func (p *parser) structLit() ast.Expr {
	t := p.adv()
	p.adv() // {
	s := &ast.Struct{Pos: t.pos}
	for {
		p.skipNL()
		if p.isPunct("}") {
			p.adv()
			return s
		}
		if len(s.Names) > 0 {
			p.expectPunct(",")
			p.skipNL()
			if p.isPunct("}") {
				p.adv()
				return s
			}
		}
		n := p.peek()
		if n.kind != tIdent || strings.Contains(n.text, ".") {
			p.unexpected("a struct field name")
		}
		p.adv()
		p.expectPunct("=>")
		p.skipNL()
		s.Names = append(s.Names, n.text)
		s.Values = append(s.Values, p.expr())
	}
}
