package ast

import (
	"strconv"
	"strings"
)

// Print returns prog as mcl source in a canonical layout (tabs, one
// statement per line). Parsing the result gives the same tree.
//
// The comments of a file's Prog are kept: each is printed before the first
// statement or resource entry that followed it in the source (or the
// closing brace of its block), at the end of the line before it when code
// preceded it on its own line. A comment inside an expression, which is
// printed on one line, moves to the end of its statement's line.
func Print(prog *Prog) string {
	p := printer{comments: prog.Comments}
	p.stmts(prog.Stmts, prog.End)
	if p.pending() {
		if len(prog.Stmts) > 0 {
			p.nl()
		}
		p.commentLines(Pos{})
	}
	if p.b.Len() > 0 {
		p.b.WriteByte('\n')
	}
	return p.b.String()
}

// PrintExpr returns e as mcl source.
func PrintExpr(e Expr) string {
	var p printer
	p.expr(e)
	return p.b.String()
}

type printer struct {
	b        strings.Builder
	indent   int
	comments []*Comment // not printed yet
}

// pending reports whether a comment is left to print.
func (p *printer) pending() bool { return len(p.comments) > 0 }

// before reports whether the next comment comes before pos (a zero pos:
// whether there is one).
func (p *printer) before(pos Pos) bool {
	return len(p.comments) > 0 && (pos.Line == 0 || p.comments[0].Pos.Before(pos))
}

// trail prints the trailing comments before pos at the end of the
// current line, and reports whether it printed any: the line must then
// end, or the comment would swallow what follows on it.
func (p *printer) trail(pos Pos) bool {
	any := false
	for p.before(pos) && p.comments[0].Trailing {
		p.w(" ", p.comments[0].Text)
		p.comments = p.comments[1:]
		any = true
	}
	return any
}

// commentLines prints the comments before pos (a zero pos: all), one a
// line, with no newline after the last, and reports whether it printed
// any.
func (p *printer) commentLines(pos Pos) bool {
	any := false
	for p.before(pos) {
		if any {
			p.nl()
		}
		p.w(p.comments[0].Text)
		p.comments = p.comments[1:]
		any = true
	}
	return any
}

func (p *printer) w(s ...string) {
	for _, x := range s {
		p.b.WriteString(x)
	}
}

func (p *printer) nl() {
	p.b.WriteByte('\n')
	for i := 0; i < p.indent; i++ {
		p.b.WriteByte('\t')
	}
}

// stmts prints the statements of a block that ends at end, with the
// comments before end.
func (p *printer) stmts(ss []Stmt, end Pos) {
	for i, s := range ss {
		pos := s.Position()
		if i > 0 {
			p.trail(pos)
			p.nl()
		}
		if p.commentLines(pos) {
			p.nl()
		}
		p.stmt(s)
	}
	if len(ss) > 0 {
		p.trail(end)
		if p.before(end) {
			p.nl()
		}
	}
	p.commentLines(end)
}

func (p *printer) block(prog *Prog) {
	p.w("{")
	first := prog.End
	if len(prog.Stmts) > 0 {
		first = prog.Stmts[0].Position()
	}
	trailed := p.trail(first)
	if len(prog.Stmts) > 0 || p.before(prog.End) {
		p.indent++
		p.nl()
		p.stmts(prog.Stmts, prog.End)
		p.indent--
		p.nl()
	} else if trailed {
		p.nl()
	}
	p.w("}")
}

func (p *printer) params(ps []*Param) {
	p.w("(")
	for i, x := range ps {
		if i > 0 {
			p.w(", ")
		}
		p.w("$", x.Name)
		if x.Type != nil {
			p.w(" ", x.Type.Syntax())
		}
	}
	p.w(")")
}

func (p *printer) stmt(s Stmt) {
	switch s := s.(type) {
	case *Bind:
		p.w("$", s.Name)
		if s.Type != nil {
			p.w(" ", s.Type.Syntax())
		}
		p.w(" = ")
		p.expr(s.Value)
	case *Res:
		if s.Collect {
			p.w("collect ")
		}
		p.w(s.Kind, " ")
		p.expr(s.Name)
		p.w(" {")
		p.resBody(s)
		p.w("}")
	case *Edge:
		for i, h := range s.Halves {
			if i > 0 {
				p.w(" -> ")
			}
			p.w(capKind(h.Kind), "[")
			p.expr(h.Name)
			p.w("]")
			if h.Field != "" {
				p.w(".", h.Field)
			}
		}
	case *If:
		p.w("if ")
		p.expr(s.Cond)
		p.w(" ")
		p.block(s.Then)
		if s.Else != nil {
			p.w(" else ")
			p.block(s.Else)
		}
	case *For:
		p.w("for $", s.Index, ", $", s.Value, " in ")
		p.expr(s.List)
		p.w(" ")
		p.block(s.Body)
	case *ForKV:
		p.w("forkv $", s.Key, ", $", s.Val, " in ")
		p.expr(s.Map)
		p.w(" ")
		p.block(s.Body)
	case *FuncStmt:
		p.w("func ", s.Name)
		p.lambdaRest(s.Func)
	case *Class:
		p.w("class ", s.Name)
		if s.HasArg {
			p.params(s.Params)
		}
		p.w(" ")
		p.block(s.Body)
	case *Include:
		p.w("include ", s.Name)
		if s.HasArg {
			p.args(s.Args)
		}
		if s.Alias != "" {
			p.w(" as ", s.Alias)
		}
	case *Import:
		p.w("import \"", escape(s.Path), "\"")
		if s.Alias != "" {
			p.w(" as ", s.Alias)
		}
	case *Panic:
		p.w("panic")
		p.args(s.Args)
	case *Prog:
		p.block(s)
	}
}

func capKind(kind string) string {
	parts := strings.Split(kind, ":")
	for i, x := range parts {
		if x != "" {
			parts[i] = strings.ToUpper(x[:1]) + x[1:]
		}
	}
	return strings.Join(parts, ":")
}

func (p *printer) cond(c Expr) {
	if c != nil {
		p.expr(c)
		p.w(" ?: ")
	}
}

// resBody prints the entries of a resource, one a line, with the
// comments before its closing brace.
func (p *printer) resBody(s *Res) {
	p.indent++
	for _, n := range s.Order {
		pos := n.Position()
		p.trail(pos)
		p.nl()
		if p.commentLines(pos) {
			p.nl()
		}
		p.resEntry(n)
		p.w(",")
	}
	trailed := p.trail(s.End)
	inner := p.before(s.End)
	if inner {
		p.nl()
		p.commentLines(s.End)
	}
	p.indent--
	if len(s.Order) > 0 || inner || trailed {
		p.nl()
	}
}

func (p *printer) resEntry(n Node) {
	switch e := n.(type) {
	case *ResField:
		p.w(e.Key, " => ")
		p.cond(e.Cond)
		p.expr(e.Value)
	case *ResEdge:
		p.w(capKind(e.Prop), " => ")
		p.cond(e.Cond)
		p.w(capKind(e.Kind), "[")
		p.expr(e.Name)
		p.w("]")
	case *ResMeta:
		p.w("Meta")
		if e.Prop != "" {
			p.w(":", e.Prop)
		}
		p.w(" => ")
		p.cond(e.Cond)
		p.expr(e.Value)
	}
}

func (p *printer) args(args []Expr) {
	p.w("(")
	for i, a := range args {
		if i > 0 {
			p.w(", ")
		}
		p.expr(a)
	}
	p.w(")")
}

func (p *printer) lambdaRest(l *Lambda) {
	p.params(l.Params)
	if l.Out != nil {
		p.w(" ", l.Out.Syntax())
	}
	p.w(" { ")
	p.expr(l.Body)
	p.w(" }")
}

// escape writes a string literal's content with escapes; dollars are
// escaped so that no interpolation appears.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '"', '$':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\v':
			b.WriteString(`\v`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func (p *printer) expr(e Expr) {
	switch e := e.(type) {
	case *Bool:
		p.w(strconv.FormatBool(e.Value))
	case *Str:
		p.w(`"`, escape(e.Value), `"`)
	case *Interp:
		p.w(`"`)
		for _, part := range e.Parts {
			switch x := part.(type) {
			case *Str:
				p.w(escape(x.Value))
			case *Var:
				p.w("${", x.Name, "}")
			}
		}
		p.w(`"`)
	case *Int:
		p.w(strconv.FormatInt(e.Value, 10))
	case *Float:
		if e.Text != "" {
			p.w(e.Text)
		} else {
			s := strconv.FormatFloat(e.Value, 'f', -1, 64)
			if !strings.Contains(s, ".") {
				s += ".0"
			}
			p.w(s)
		}
	case *List:
		p.w("[")
		for i, x := range e.Elems {
			if i > 0 {
				p.w(", ")
			}
			p.expr(x)
		}
		p.w("]")
	case *Map:
		p.w("{")
		for i := range e.Keys {
			if i > 0 {
				p.w(", ")
			}
			p.expr(e.Keys[i])
			p.w(" => ")
			p.expr(e.Vals[i])
		}
		p.w("}")
	case *Struct:
		p.w("struct{")
		for i := range e.Names {
			if i > 0 {
				p.w(", ")
			}
			p.w(e.Names[i], " => ")
			p.expr(e.Values[i])
		}
		p.w("}")
	case *Var:
		p.w("$", e.Name)
	case *Call:
		if e.Name != "" {
			p.w(e.Name)
		} else {
			p.wrapped(e.Fn)
		}
		p.args(e.Args)
	case *Lambda:
		p.w("func")
		p.lambdaRest(e)
	case *IfExpr:
		p.w("if ")
		p.expr(e.Cond)
		p.w(" { ")
		p.expr(e.Then)
		p.w(" } else { ")
		p.expr(e.Else)
		p.w(" }")
	case *Except:
		p.wrapped(e.A)
		p.w(" <|> ")
		p.wrapped(e.B)
	case *Binary:
		p.wrapped(e.A)
		p.w(" ", e.Op, " ")
		p.wrapped(e.B)
	case *Not:
		p.w("not ")
		p.wrapped(e.X)
	case *Index:
		p.wrapped(e.X)
		p.w("[")
		p.expr(e.Index)
		p.w("]")
	case *Field:
		p.wrapped(e.X)
		p.w("->", e.Name)
	}
}

// wrapped prints e, in parentheses unless it is atomic.
func (p *printer) wrapped(e Expr) {
	switch e.(type) {
	case *Bool, *Str, *Interp, *Int, *Float, *List, *Map, *Struct, *Var, *Call, *Index, *Field:
		p.expr(e)
	default:
		p.w("(")
		p.expr(e)
		p.w(")")
	}
}
