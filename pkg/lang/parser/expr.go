package parser

import (
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
)

// levels are the binary operators by precedence level, lowest first.
var levels = [][]string{
	{"<|>"},
	{"or"},
	{"and"},
	{"<", ">", "<=", ">=", "==", "!=", "in"},
	{"+", "-"},
	{"*", "/"},
}

// maxDepth bounds the height of the syntax tree, so that hostile input
// gets an error instead of exhausting the stack of a stage that recurses
// over the tree (printer, checker, evaluator). Every expression node and
// block counts one level. Operator chains such as `a + b + c` and postfix
// chains such as `$x[0][1]` build left-deep trees: they nest one level
// per operator although the source has no parentheses (the printer writes
// them).
const maxDepth = 500

// maxRecursion bounds the parser's own recursion, which also counts
// parentheses and the levels of types. It leaves room for the printed form
// of any tree within maxDepth (at most two parser levels per node, a
// parenthesis and a `not`, plus a type) to parse again.
const maxRecursion = 4 * maxDepth

// enter counts one more level of the parser's recursion, failing at pos
// when it goes past maxRecursion; what names the construct. Pair it with
// leave.
func (p *parser) enter(pos ast.Pos, what string) {
	p.depth++
	if p.depth > maxRecursion {
		p.failAt(pos, "%s nested too deeply: more than %d levels", what, maxRecursion)
	}
}

func (p *parser) leave() { p.depth-- }

// built records that the expression just built is h levels high (see
// p.h) and fails at pos when, inside the enclosing blocks, that is more
// than maxDepth.
func (p *parser) built(pos ast.Pos, h int) {
	p.setHeight(pos, h, "expression nested too deeply: more than %d levels")
}

// chained is built for the operator (at pos) of a chain, which grows the
// tree in a loop, without recursing.
func (p *parser) chained(pos ast.Pos, h int) {
	p.setHeight(pos, h, "expression too long: more than %d levels (each operator of a chain such as a + b + c or $x[0][1] nests one level deeper: split it with variables)")
}

func (p *parser) setHeight(pos ast.Pos, h int, tooHigh string) {
	p.h = h
	if p.blocks+h > maxDepth {
		p.failAt(pos, tooHigh, maxDepth)
	}
}

func (p *parser) expr() ast.Expr {
	p.enter(p.peek().pos, "expressions")
	defer p.leave()
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
	ha := p.h
	for {
		t, ok := p.opAt(level)
		if !ok {
			p.h = ha
			return a
		}
		p.adv()
		p.skipNL()
		b := p.binary(level + 1)
		ha = max(ha, p.h) + 1
		if t.text == "<|>" {
			a = &ast.Except{Pos: a.Position(), A: a, B: b}
		} else {
			a = &ast.Binary{Pos: t.pos, Op: t.text, A: a, B: b}
		}
		p.chained(t.pos, ha)
		if level == 3 { // comparisons are non-associative
			if _, again := p.opAt(level); again {
				p.failAt(p.peek().pos, "comparison operators do not chain; add parentheses")
			}
			p.h = ha
			return a
		}
	}
}

func (p *parser) unary() ast.Expr {
	if p.isKw("not") {
		t := p.adv()
		p.enter(t.pos, "expressions")
		defer p.leave()
		n := &ast.Not{Pos: t.pos, X: p.unary()}
		p.built(t.pos, p.h+1)
		return n
	}
	return p.postfix(p.primary())
}

// postfix parses the indexes, fields and calls after e, whose height is
// p.h.
func (p *parser) postfix(e ast.Expr) ast.Expr {
	for {
		he := p.h
		switch {
		case p.isPunct("["):
			t := p.adv()
			p.skipNL()
			idx := p.expr()
			p.skipNL()
			p.expectPunct("]")
			e = &ast.Index{Pos: t.pos, X: e, Index: idx}
			p.chained(t.pos, max(he, p.h)+1)
		case p.isOp("->"):
			t := p.adv()
			n := p.peek()
			if n.kind != tIdent || strings.Contains(n.text, ".") {
				p.unexpected("a struct field name")
			}
			p.adv()
			e = &ast.Field{Pos: t.pos, X: e, Name: n.text}
			p.chained(t.pos, he+1)
		case p.isPunct("("):
			switch e.(type) {
			case *ast.Var, *ast.Lambda, *ast.Call, *ast.Index, *ast.Field:
			default:
				return e
			}
			pos := p.peek().pos
			e = &ast.Call{Pos: e.Position(), Fn: e, Args: p.args()}
			p.chained(pos, max(he, p.h)+1)
		default:
			p.h = he
			return e
		}
	}
}

// primary parses an operand and sets p.h to its height.
func (p *parser) primary() ast.Expr {
	t := p.peek()
	p.h = 1
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
		if _, ok := e.(*ast.Interp); ok {
			p.h = 2
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
		c := &ast.Call{Pos: t.pos, Name: t.text, Args: p.args()}
		p.built(t.pos, p.h+1)
		return c
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
			l := &ast.List{Pos: t.pos, Elems: p.exprList("]")}
			p.built(t.pos, p.h+1)
			return l
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
	h := p.h
	e.Then = p.exprBlock()
	h = max(h, p.h)
	if !p.isKw("else") {
		p.unexpected(`"else" (an if expression needs both branches)`)
	}
	p.adv()
	if p.isKw("if") {
		// An else-if is an if expression nested in the else branch (and
		// prints as one).
		p.enter(p.peek().pos, "if expressions")
		e.Else = p.ifExpr()
		p.leave()
	} else {
		e.Else = p.exprBlock()
	}
	p.built(t.pos, max(h, p.h)+1)
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
	h := 0
	for {
		p.skipNL()
		if p.isPunct("}") {
			p.adv()
			break
		}
		if len(m.Keys) > 0 {
			p.expectPunct(",")
			p.skipNL()
			if p.isPunct("}") {
				p.adv()
				break
			}
		}
		m.Keys = append(m.Keys, p.expr())
		h = max(h, p.h)
		p.expectPunct("=>")
		p.skipNL()
		m.Vals = append(m.Vals, p.expr())
		h = max(h, p.h)
	}
	p.built(t.pos, h+1)
	return m
}

func (p *parser) structLit() ast.Expr {
	t := p.adv()
	p.adv() // {
	s := &ast.Struct{Pos: t.pos}
	h := 0
	for {
		p.skipNL()
		if p.isPunct("}") {
			p.adv()
			break
		}
		if len(s.Names) > 0 {
			p.expectPunct(",")
			p.skipNL()
			if p.isPunct("}") {
				p.adv()
				break
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
		h = max(h, p.h)
	}
	p.built(t.pos, h+1)
	return s
}
