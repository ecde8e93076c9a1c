package syntax

import (
	"fmt"
	"strings"
)

// Limits that keep any input from exhausting the stack.
const (
	// MaxDepth bounds the nesting of constructs: blocks, brackets,
	// parentheses, unary operators, interpolations.
	MaxDepth = 500
	// MaxTerms bounds the operands of one operator chain (a + b + ...)
	// and the items of one relationship chain (A -> B -> ...).
	MaxTerms = 10000
)

// Parse parses a manifest into its top-level statements.
//
// The lexer runs on another core while the parser runs, a few batches of
// tokens ahead of it (tokenStream): the parser holds only the tokens it
// looks at, so that the tokens of a large manifest (some 70 bytes each)
// are never all in memory. An error of the lexer comes first, wherever it
// is: the lexer goes on to the end of the source when the parser stops
// early, and its error replaces the parser's result.
func Parse(file, src string) (stmts []Node, err error) {
	ts := newTokenStream()
	lexErr := make(chan error, 1)
	go func() { lexErr <- ts.lex(&file, src) }()
	defer func() {
		close(ts.stop)
		if lerr := <-lexErr; lerr != nil {
			stmts, err = nil, lerr
		}
	}()
	p := &parser{stream: ts}
	defer p.recover(&err)
	for !p.at(EOF, "") {
		stmts = append(stmts, p.statement())
		p.accept(PUNCT, ";")
	}
	return stmts, nil
}

// ParseExpr parses a single expression (used by templates).
func ParseExpr(pos Pos, src string) (x Node, err error) {
	toks, err := lexFile(pos.file, src)
	if err != nil {
		return nil, err
	}
	for i := range toks {
		toks[i].Pos.Line += pos.Line - 1
	}
	p := &parser{toks: toks}
	defer p.recover(&err)
	x = p.expr()
	if !p.at(EOF, "") {
		p.fail(p.tok().Pos, "syntax error: unexpected %s", describe(p.tok()))
	}
	return x, nil
}

type parser struct {
	// toks are the tokens from the one at i on (and the ones before it
	// not dropped yet); stream, when set, brings the ones after them
	toks   []Token
	i      int
	stream *tokenStream
	lexed  bool // stream has brought the EOF
	// attrBuf is the scratch list of the attributes being parsed (attrs)
	attrBuf []Attr
	depth   int // nesting of the construct being parsed
	// cond is set while parsing the condition of if, unless, elsif or
	// case: a { there starts the body, not resource defaults or an
	// override (if $x =~ Array { ... }).
	cond bool
}

// condition parses the condition of if, unless, elsif or case.
func (p *parser) condition() Node {
	saved := p.cond
	p.cond = true
	defer func() { p.cond = saved }()
	return p.expr()
}

// recover turns the parser's panics (*Error) into err.
func (p *parser) recover(err *error) {
	if r := recover(); r != nil {
		e, ok := r.(*Error)
		if !ok {
			panic(r)
		}
		*err = e
	}
}

// enter counts one level of nesting, failing past MaxDepth; leave undoes
// it.
func (p *parser) enter(pos Pos) {
	p.depth++
	if p.depth > MaxDepth {
		p.fail(pos, "nested too deeply (more than %d levels)", MaxDepth)
	}
}

func (p *parser) leave() { p.depth-- }

func (p *parser) tok() Token { return p.peek(0) }

func (p *parser) peek(n int) Token { return *p.ref(n) }

// ref returns the token n after the current one, like peek, in place: the
// pointer is good only until the parser looks further (fill moves the
// tokens).
func (p *parser) ref(n int) *Token {
	if p.i+n >= len(p.toks) && p.stream != nil && !p.lexed {
		p.fill(n)
	}
	return &p.toks[min(p.i+n, len(p.toks)-1)]
}

// fill drops the tokens before p.i and takes batches from the stream
// up to at least p.i+n.
func (p *parser) fill(n int) {
	p.toks = p.toks[:copy(p.toks, p.toks[p.i:])]
	p.i = 0
	for !p.lexed && len(p.toks) <= n {
		batch, ok := <-p.stream.batches
		if !ok {
			// the lexer stopped at an error, which Parse returns
			// instead
			p.fail(Pos{}, "lexical error")
		}
		p.toks = append(p.toks, batch...)
		p.lexed = batch[len(batch)-1].Kind == EOF
		select {
		case p.stream.free <- batch:
		default:
		}
	}
}

func (p *parser) at(kind, text string) bool {
	t := p.ref(0)
	return t.Kind == kind && (text == "" || t.Text == text)
}

func (p *parser) peekIs(n int, kind, text string) bool {
	t := p.ref(n)
	return t.Kind == kind && (text == "" || t.Text == text)
}

func (p *parser) accept(kind, text string) bool {
	if p.at(kind, text) {
		p.i++
		return true
	}
	return false
}

func (p *parser) fail(pos Pos, format string, args ...any) {
	panic(&Error{pos, fmt.Sprintf(format, args...)})
}

func (p *parser) expect(kind, text string) Token {
	t := p.tok()
	if !p.accept(kind, text) {
		want := text
		if want == "" {
			want = strings.ToLower(kind)
		}
		p.fail(t.Pos, "syntax error: expected %q, got %s", want, describe(t))
	}
	return t
}

func describe(t Token) string {
	if t.Kind == EOF {
		return "end of file"
	}
	return fmt.Sprintf("%q", t.Text)
}

func (p *parser) block() []Node {
	t := p.expect(PUNCT, "{")
	p.enter(t.Pos)
	saved := p.cond
	p.cond = false
	defer func() { p.leave(); p.cond = saved }()
	var out []Node
	for !p.accept(PUNCT, "}") {
		if p.at(EOF, "") {
			p.fail(p.tok().Pos, "syntax error: unexpected end of file, expected \"}\"")
		}
		out = append(out, p.statement())
		p.accept(PUNCT, ";")
	}
	return out
}

// statementCalls are the functions Puppet lets a statement call without
// parentheses.
var statementCalls = map[string]bool{
	"include": true, "require": true, "contain": true, "notice": true, "fail": true,
	"warning": true, "err": true, "info": true, "debug": true, "alert": true, "crit": true,
	"emerg": true, "realize": true, "tag": true,
}

func (p *parser) statement() Node {
	t := p.tok()
	p.enter(t.Pos)
	defer p.leave()
	switch {
	case t.Kind == NAME && t.Text == "class" && p.peek(1).Kind == NAME:
		return p.classDef()
	case t.Kind == NAME && t.Text == "define" && p.peek(1).Kind == NAME:
		return p.defineDef()
	case t.Kind == NAME && t.Text == "node":
		return p.nodeDef()
	case t.Kind == NAME && t.Text == "function" && p.peek(1).Kind == NAME:
		return p.functionDef()
	case t.Kind == NAME && t.Text == "type" && p.peek(1).Kind == TYPE && p.peekIs(2, PUNCT, "="):
		p.i += 2
		p.i++
		return &TypeAlias{P: t.Pos, Name: p.peek(-2).Text, Type: p.expr()}
	case t.Kind == NAME && statementCalls[t.Text] && p.startsExpr(p.peek(1)) && !p.peekIs(1, PUNCT, "["):
		p.i++
		c := &Call{P: t.Pos, Name: t.Text}
		c.Args = append(c.Args, p.expr())
		for p.accept(PUNCT, ",") {
			c.Args = append(c.Args, p.expr())
		}
		return c
	}
	return p.chain()
}

func (p *parser) startsExpr(t Token) bool {
	switch t.Kind {
	case STRING, DQSTRING, VAR, TYPE, NUMBER:
		return true
	case NAME:
		return !isKeyword(t.Text)
	case PUNCT:
		return t.Text == "[" || t.Text == "("
	}
	return false
}

// isChainOp reports whether t is a relationship operator.
func isChainOp(t *Token) bool {
	return t.Kind == PUNCT && (t.Text == "->" || t.Text == "~>" || t.Text == "<-" || t.Text == "<~")
}

// chain parses an expression statement, possibly a relationship chain.
func (p *parser) chain() Node {
	t := p.tok()
	first := p.assignment()
	if op := p.tok(); !isChainOp(&op) {
		return first
	}
	c := &Chain{P: t.Pos, Items: []Node{first}}
	for {
		op := p.tok()
		if !isChainOp(&op) {
			break
		}
		if len(c.Items) >= MaxTerms {
			p.fail(op.Pos, "expression too long (more than %d chained items)", MaxTerms)
		}
		p.i++
		c.Ops = append(c.Ops, op.Text)
		c.Items = append(c.Items, p.assignment())
	}
	return c
}

// assignment parses $x = value (right associative) or an expression.
func (p *parser) assignment() Node {
	t := p.tok()
	if t.Kind == VAR && p.peekIs(1, PUNCT, "=") {
		p.i += 2
		p.enter(t.Pos)
		defer p.leave()
		return &Assign{P: t.Pos, Name: t.Text, Value: p.assignment()}
	}
	return p.expr()
}

// params parses a parameter list: ([Type] $name [= default], ...).
func (p *parser) params(end string) []*Param {
	var out []*Param
	for !p.accept(PUNCT, end) {
		var typ Node
		if p.at(TYPE, "") {
			typ = p.typeExpr()
		}
		rest := p.accept(PUNCT, "*")
		v := p.expect(VAR, "")
		if strings.Contains(v.Text, "::") {
			p.fail(v.Pos, "syntax error: a parameter name cannot be qualified: $%s", v.Text)
		}
		prm := &Param{P: v.Pos, Name: v.Text, Type: typ, Rest: rest}
		if p.accept(PUNCT, "=") {
			prm.Default = p.expr()
		}
		out = append(out, prm)
		if !p.accept(PUNCT, ",") {
			p.expect(PUNCT, end)
			break
		}
	}
	return out
}

// typeExpr parses a data type: Name or Name[parameters].
func (p *parser) typeExpr() Node {
	t := p.expect(TYPE, "")
	r := &TypeRef{P: t.Pos, Type: t.Text}
	if p.at(PUNCT, "[") {
		b := p.tok()
		p.i++
		p.enter(b.Pos)
		r.Titles = p.list("]")
		if r.Titles == nil {
			r.Titles = []Node{}
		}
		p.leave()
	}
	return r
}

func (p *parser) className() string {
	t := p.tok()
	if t.Kind != NAME {
		p.fail(t.Pos, "syntax error: expected a class name, got %s", describe(t))
	}
	p.i++
	return t.Text
}

func (p *parser) classDef() Node {
	t := p.expect(NAME, "class")
	c := &ClassDef{P: t.Pos, Name: p.className()}
	if p.accept(PUNCT, "(") {
		c.Params = p.params(")")
	}
	if p.accept(NAME, "inherits") {
		c.Parent = p.className()
	}
	c.Body = p.block()
	return c
}

func (p *parser) defineDef() Node {
	t := p.expect(NAME, "define")
	d := &DefineDef{P: t.Pos, Name: p.className()}
	if p.accept(PUNCT, "(") {
		d.Params = p.params(")")
	}
	d.Body = p.block()
	return d
}

func (p *parser) functionDef() Node {
	t := p.expect(NAME, "function")
	f := &FunctionDef{P: t.Pos, Name: p.className()}
	if p.accept(PUNCT, "(") {
		f.Params = p.params(")")
	}
	if p.accept(PUNCT, ">>") {
		f.Return = p.typeExpr()
	}
	f.Body = p.block()
	return f
}

func (p *parser) nodeDef() Node {
	t := p.expect(NAME, "node")
	n := &NodeDef{P: t.Pos}
	for {
		nt := p.tok()
		switch {
		case nt.Kind == NAME && nt.Text == "default":
			p.i++
			n.Names = append(n.Names, &Default{P: nt.Pos})
		case nt.Kind == NAME || nt.Kind == NUMBER:
			p.i++
			name := nt.Text
			for p.at(PUNCT, ".") {
				p.i++
				name += "." + p.tok().Text
				p.i++
			}
			n.Names = append(n.Names, &Str{P: nt.Pos, Value: name})
		case nt.Kind == REGEX:
			p.i++
			n.Names = append(n.Names, &Regex{P: nt.Pos, Pattern: nt.Text})
		default:
			n.Names = append(n.Names, p.primary())
		}
		if !p.accept(PUNCT, ",") || p.at(PUNCT, "{") {
			break
		}
	}
	n.Body = p.block()
	return n
}

func (p *parser) ifExpr() Node {
	t := p.tok()
	p.i++
	n := &If{P: t.Pos, Not: t.Text == "unless", Cond: p.condition()}
	n.Then = p.block()
	switch {
	case p.at(NAME, "elsif") && !n.Not:
		n.Else = []Node{p.ifExpr()}
	case p.accept(NAME, "else"):
		n.Else = p.block()
	}
	return n
}

func (p *parser) caseExpr() Node {
	t := p.expect(NAME, "case")
	c := &Case{P: t.Pos, X: p.condition()}
	b := p.expect(PUNCT, "{")
	p.enter(b.Pos)
	defer p.leave()
	for !p.accept(PUNCT, "}") {
		var opts []Node
		for {
			opts = append(opts, p.expr())
			if !p.accept(PUNCT, ",") || p.at(PUNCT, ":") {
				break
			}
		}
		p.expect(PUNCT, ":")
		c.Opts = append(c.Opts, opts)
		c.Bodies = append(c.Bodies, p.block())
	}
	return c
}

// attrBlock parses { name => value, ... }.
func (p *parser) attrBlock() []*Attr {
	b := p.expect(PUNCT, "{")
	p.enter(b.Pos)
	defer p.leave()
	attrs := p.attrs()
	p.expect(PUNCT, "}")
	return attrs
}

// attrs parses attribute operations: name => value, name +> value and
// the splat * => hash, separated by commas. They are gathered in the
// parser's scratch list (a value may hold attributes of its own, after
// them) and then copied out in one block.
func (p *parser) attrs() []*Attr {
	start := len(p.attrBuf)
	for {
		t := p.tok()
		name := t.Text
		switch {
		case t.Kind == PUNCT && t.Text == "*":
		case t.Kind == NAME:
		default:
			return p.takeAttrs(start)
		}
		p.i++
		op := p.tok()
		if !p.accept(PUNCT, "=>") && !(name != "*" && p.accept(PUNCT, "+>")) {
			p.fail(op.Pos, "syntax error: expected \"=>\" after attribute %s, got %s", name, describe(op))
		}
		p.attrBuf = append(p.attrBuf, Attr{P: t.Pos, Name: name, Op: op.Text})
		i := len(p.attrBuf) - 1
		v := p.expr()
		p.attrBuf[i].Value = v
		if !p.accept(PUNCT, ",") {
			return p.takeAttrs(start)
		}
	}
}

// takeAttrs removes the attributes from start on from the scratch list
// and returns them (nil when there are none).
func (p *parser) takeAttrs(start int) []*Attr {
	n := len(p.attrBuf) - start
	if n == 0 {
		return nil
	}
	vals := make([]Attr, n)
	copy(vals, p.attrBuf[start:])
	clear(p.attrBuf[start:]) // keep no node alive through the scratch list
	p.attrBuf = p.attrBuf[:start]
	out := make([]*Attr, n)
	for i := range vals {
		out[i] = &vals[i]
	}
	return out
}

// resource parses [@|@@]NAME { title: attrs; title: attrs }.
func (p *parser) resource(virtual, exported bool, at Pos) Node {
	t := p.tok()
	p.i++
	r := &Resource{P: at, Type: t.Text, Virtual: virtual, Exported: exported}
	b := p.expect(PUNCT, "{")
	p.enter(b.Pos)
	defer p.leave()
	for !p.accept(PUNCT, "}") {
		bt := p.tok()
		title := p.expr()
		p.expect(PUNCT, ":")
		r.Bodies = append(r.Bodies, &ResBody{P: bt.Pos, Title: title, Attrs: p.attrs()})
		if !p.accept(PUNCT, ";") {
			p.expect(PUNCT, "}")
			break
		}
	}
	return r
}

// collect parses Type <| query |> or Type <<| query |>>, with an optional
// block of attributes.
func (p *parser) collect(t Token) Node {
	c := &Collect{P: t.Pos, Type: t.Text, Exported: p.at(PUNCT, "<<|")}
	end := "|>"
	if c.Exported {
		end = "|>>"
	}
	p.i++
	if !p.accept(PUNCT, end) {
		c.Query = p.expr()
		p.expect(PUNCT, end)
	}
	if p.at(PUNCT, "{") {
		c.Attrs = p.attrBlock()
	}
	return c
}
