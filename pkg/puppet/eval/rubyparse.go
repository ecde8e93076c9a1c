package eval

import (
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// An rnode is a node of a template's Ruby: kind says which, the other
// fields hold its parts.
type rnode struct {
	kind string // lit str sym regex ivar ident const call index op not and or if case array hash
	// assign opassign indexassign range ternary seq defined nthref def begin
	pos   syntax.Pos
	val   any      // lit: the value; regex: the pattern
	name  string   // ident, const, ivar, call (method), op (operator), assign (variable)
	recv  *rnode   // call, index: the receiver (nil: self)
	args  []*rnode // call arguments, array elements, hash keys and values (alternating), seq statements
	a     *rnode   // operands, conditions, values
	b     *rnode
	c     *rnode
	body  [][]*rnode // if: then, else; case: bodies (last: else)
	whens [][]*rnode // case: the values of each when
	blk   *rblock
	not   bool // unless
}

// An rblock is the block of a method call: |params| body, or &:name.
type rblock struct {
	params []string
	body   []*rnode
	sym    string // &:name
}

type rparser struct {
	toks  []rtok
	i     int
	depth int
}

// rubyParse parses Ruby source into statements.
func rubyParse(pos syntax.Pos, src string) []*rnode {
	return rubyParseMapped(pos, src, nil)
}

// rubyParseMapped is rubyParse of code rewritten from a template: from
// each mark's offset on, positions count from the mark's position.
func rubyParseMapped(pos syntax.Pos, src string, marks []srcMark) []*rnode {
	p := &rparser{toks: rubyLex(pos, src, marks)}
	stmts := p.stmts(map[string]bool{"eof": true})
	if !p.at("eof", "") {
		p.fail("unexpected " + p.tok().text)
	}
	return stmts
}

func (p *rparser) tok() rtok { return p.toks[p.i] }

func (p *rparser) at(kind, text string) bool {
	t := p.tok()
	return t.kind == kind && (text == "" || t.text == text)
}

func (p *rparser) accept(kind, text string) bool {
	if p.at(kind, text) {
		p.i++
		return true
	}
	return false
}

func (p *rparser) expect(kind, text string) {
	if !p.accept(kind, text) {
		p.fail("expected " + text + ", got " + p.tok().text)
	}
}

func (p *rparser) fail(msg string) {
	panic(syntax.Unsupported(p.tok().pos, "Ruby in a template: "+msg))
}

func (p *rparser) skipNL() {
	for p.accept("nl", "") {
	}
}

// stmts parses statements until a keyword of stop (not consumed).
func (p *rparser) stmts(stop map[string]bool) []*rnode {
	var out []*rnode
	for {
		p.skipNL()
		t := p.tok()
		if t.kind == "eof" || t.kind == "kw" && stop[t.text] || t.kind == "op" && stop[t.text] {
			return out
		}
		out = append(out, p.stmt())
	}
}

func (p *rparser) stmt() *rnode {
	p.depth++
	if p.depth > syntax.MaxDepth {
		p.fail("nested too deeply")
	}
	defer func() { p.depth-- }()
	n := p.notExpr()
	for {
		t := p.tok()
		if t.kind == "kw" && (t.text == "if" || t.text == "unless") {
			p.i++
			cond := p.notExpr()
			n = &rnode{kind: "if", pos: t.pos, a: cond, body: [][]*rnode{{n}, nil}, not: t.text == "unless"}
			continue
		}
		if t.kind == "kw" && (t.text == "while" || t.text == "until") {
			p.fail("while loops")
		}
		return n
	}
}

// notExpr parses not, and, or (lowest precedence).
func (p *rparser) notExpr() *rnode {
	var l *rnode
	if t := p.tok(); t.kind == "kw" && t.text == "not" {
		p.i++
		l = &rnode{kind: "not", pos: t.pos, a: p.notExpr()}
	} else {
		l = p.assign()
	}
	for {
		t := p.tok()
		if t.kind != "kw" || (t.text != "and" && t.text != "or") {
			return l
		}
		p.i++
		p.skipNL()
		var r *rnode
		if nt := p.tok(); nt.kind == "kw" && nt.text == "not" {
			p.i++
			r = &rnode{kind: "not", pos: nt.pos, a: p.assign()}
		} else {
			r = p.assign()
		}
		kind := "and"
		if t.text == "or" {
			kind = "or"
		}
		l = &rnode{kind: kind, pos: t.pos, a: l, b: r}
	}
}

func (p *rparser) assign() *rnode {
	t := p.tok()
	if t.kind == "ident" && p.i+1 < len(p.toks) {
		op := p.toks[p.i+1]
		if op.kind == "op" && (op.text == "=" || op.text == "||=" || op.text == "+=" || op.text == "-=" || op.text == "&&=") {
			p.i += 2
			p.skipNL()
			v := p.assign()
			if op.text == "=" {
				return &rnode{kind: "assign", pos: t.pos, name: t.text, a: v}
			}
			return &rnode{kind: "opassign", pos: t.pos, name: t.text, val: strings.TrimSuffix(op.text, "="), a: v}
		}
	}
	n := p.ternary()
	if op := p.tok(); op.kind == "op" && op.text == "=" && n.kind == "index" {
		// x[k] = v
		p.i++
		p.skipNL()
		return &rnode{kind: "indexassign", pos: op.pos, recv: n.recv, args: n.args, a: p.assign()}
	}
	return n
}

func (p *rparser) ternary() *rnode {
	c := p.rangeExpr()
	if t := p.tok(); t.kind == "op" && t.text == "?" {
		p.i++
		p.skipNL()
		a := p.ternary()
		p.skipNL()
		p.expect("op", ":")
		p.skipNL()
		b := p.ternary()
		return &rnode{kind: "ternary", pos: t.pos, a: c, b: a, c: b}
	}
	return c
}

func (p *rparser) rangeExpr() *rnode {
	l := p.binary(0)
	if t := p.tok(); t.kind == "op" && (t.text == ".." || t.text == "...") {
		p.i++
		r := p.binary(0)
		return &rnode{kind: "range", pos: t.pos, a: l, b: r, not: t.text == "..."}
	}
	return l
}

// Binary operators, lowest precedence first.
var rubyPrec = [][]string{
	{"||"}, {"&&"}, {"<=>", "==", "===", "!=", "=~", "!~"}, {"<", ">", "<=", ">="},
	{"|", "^"}, {"&"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"},
}

func (p *rparser) binary(level int) *rnode {
	if level == len(rubyPrec) {
		return p.unary()
	}
	l := p.binary(level + 1)
	for {
		t := p.tok()
		match := false
		for _, op := range rubyPrec[level] {
			if t.kind == "op" && t.text == op {
				match = true
			}
		}
		if !match {
			return l
		}
		p.i++
		p.skipNL()
		r := p.binary(level + 1)
		switch t.text {
		case "||":
			l = &rnode{kind: "or", pos: t.pos, a: l, b: r}
		case "&&":
			l = &rnode{kind: "and", pos: t.pos, a: l, b: r}
		default:
			l = &rnode{kind: "op", pos: t.pos, name: t.text, a: l, b: r}
		}
	}
}

func (p *rparser) unary() *rnode {
	t := p.tok()
	if t.kind == "op" && t.text == "!" {
		p.i++
		return &rnode{kind: "not", pos: t.pos, a: p.unary()}
	}
	if t.kind == "op" && t.text == "-" {
		p.i++
		x := p.unary()
		return &rnode{kind: "op", pos: t.pos, name: "-", a: &rnode{kind: "lit", val: int64(0)}, b: x}
	}
	if t.kind == "kw" && t.text == "defined?" {
		p.i++
		p.expect("op", "(")
		x := p.notExpr()
		p.expect("op", ")")
		return &rnode{kind: "defined", pos: t.pos, a: x}
	}
	x := p.postfix(p.primary())
	if t := p.tok(); t.kind == "op" && t.text == "**" {
		p.fail("**")
	}
	return x
}

func (p *rparser) postfix(x *rnode) *rnode {
	for {
		t := p.tok()
		switch {
		case t.kind == "op" && (t.text == "." || t.text == "::") && p.i+1 < len(p.toks):
			p.i++
			nt := p.tok()
			if nt.kind != "ident" && nt.kind != "const" && nt.kind != "kw" {
				p.fail("expected a method name after " + t.text)
			}
			p.i++
			c := &rnode{kind: "call", pos: nt.pos, name: nt.text, recv: x}
			p.callArgs(c)
			x = c
		case t.kind == "op" && t.text == "[" && !t.sp:
			p.i++
			idx := &rnode{kind: "index", pos: t.pos, recv: x, args: p.list("]")}
			x = idx
		default:
			return x
		}
	}
}

// callArgs parses the optional (args) and block of a method call.
func (p *rparser) callArgs(c *rnode) {
	if t := p.tok(); t.kind == "op" && t.text == "(" && !t.sp {
		p.i++
		c.args = p.callList(c)
	}
	p.block(c)
}

// callList parses call arguments up to ")", taking &:sym as the block.
func (p *rparser) callList(c *rnode) []*rnode {
	var out []*rnode
	p.skipNL()
	for !p.accept("op", ")") {
		if p.accept("op", "&") {
			s := p.tok()
			if s.kind != "sym" {
				p.fail("a block argument other than &:name")
			}
			p.i++
			c.blk = &rblock{sym: s.text}
		} else {
			out = append(out, p.hashArg())
		}
		p.skipNL()
		if !p.accept("op", ",") {
			p.skipNL()
			p.expect("op", ")")
			break
		}
		p.skipNL()
	}
	return out
}

// hashArg parses an argument; key => value pairs make a trailing hash.
func (p *rparser) hashArg() *rnode {
	v := p.notExpr()
	if p.at("op", "=>") {
		p.fail("hash arguments without braces")
	}
	return v
}

func (p *rparser) block(c *rnode) {
	t := p.tok()
	var end string
	switch {
	case t.kind == "op" && t.text == "{":
		end = "}"
	case t.kind == "kw" && t.text == "do":
		end = "end"
	default:
		return
	}
	if c.blk != nil {
		p.fail("a block and a block argument")
	}
	p.i++
	b := &rblock{}
	if p.accept("op", "|") {
		for !p.accept("op", "|") {
			nt := p.tok()
			if nt.kind == "op" && nt.text == "(" {
				p.fail("destructuring block parameters")
			}
			if nt.kind != "ident" {
				p.fail("a block parameter " + nt.text)
			}
			p.i++
			b.params = append(b.params, nt.text)
			if !p.accept("op", ",") {
				p.expect("op", "|")
				break
			}
		}
	}
	b.body = p.stmts(map[string]bool{end: true})
	if end == "}" {
		p.expect("op", "}")
	} else {
		p.expect("kw", "end")
	}
	c.blk = b
}

// list parses comma-separated expressions up to the closing token.
func (p *rparser) list(end string) []*rnode {
	var out []*rnode
	p.skipNL()
	for !p.accept("op", end) {
		out = append(out, p.notExpr())
		p.skipNL()
		if !p.accept("op", ",") {
			p.skipNL()
			p.expect("op", end)
			break
		}
		p.skipNL()
	}
	return out
}

func (p *rparser) primary() *rnode {
	t := p.tok()
	p.i++
	switch t.kind {
	case "num":
		if strings.ContainsAny(t.text, ".eE") && !strings.HasPrefix(t.text, "0x") {
			f, err := strconv.ParseFloat(t.text, 64)
			if err != nil {
				p.i--
				p.fail("the number " + t.text)
			}
			return &rnode{kind: "lit", pos: t.pos, val: f}
		}
		n, err := strconv.ParseInt(t.text, 0, 64)
		if err != nil {
			p.i--
			p.fail("the number " + t.text)
		}
		return &rnode{kind: "lit", pos: t.pos, val: n}
	case "str":
		return p.strNode(t)
	case "sym":
		name := t.text
		if t.str != nil {
			if len(t.str.code) > 0 {
				p.fail("interpolated symbols")
			}
			name = t.str.parts[0].(string)
		}
		return &rnode{kind: "lit", pos: t.pos, val: rsym(name)}
	case "regex":
		return &rnode{kind: "regex", pos: t.pos, val: t.text, name: t.str.parts[0].(string)}
	case "nthref":
		return &rnode{kind: "nthref", pos: t.pos, val: int64(t.text[0] - '0')}
	case "words":
		n := &rnode{kind: "array", pos: t.pos}
		for _, w := range t.list {
			n.args = append(n.args, &rnode{kind: "lit", pos: t.pos, val: w})
		}
		return n
	case "ivar":
		return &rnode{kind: "ivar", pos: t.pos, name: t.text}
	case "ident":
		c := &rnode{kind: "ident", pos: t.pos, name: t.text}
		if nt := p.tok(); nt.kind == "op" && nt.text == "(" && !nt.sp {
			c.kind = "call"
			p.callArgs(c)
		} else if nt.kind == "op" && nt.text == "{" || nt.kind == "kw" && nt.text == "do" {
			c.kind = "call"
			p.block(c)
		}
		return c
	case "const":
		c := &rnode{kind: "const", pos: t.pos, name: t.text}
		if nt := p.tok(); nt.kind == "op" && nt.text == "(" && !nt.sp {
			c.kind = "call"
			p.callArgs(c)
		}
		return c
	case "kw":
		return p.keyword(t)
	case "op":
		switch t.text {
		case "(":
			body := p.stmts(map[string]bool{")": true})
			p.expect("op", ")")
			return &rnode{kind: "seq", pos: t.pos, args: body}
		case "[":
			return &rnode{kind: "array", pos: t.pos, args: p.list("]")}
		case "{":
			return p.hashLit(t)
		case "::":
			p.fail("top-level constants")
		}
	}
	p.i--
	p.fail("unexpected " + t.text)
	return nil
}

func (p *rparser) keyword(t rtok) *rnode {
	switch t.text {
	case "nil":
		return &rnode{kind: "lit", pos: t.pos}
	case "true", "false":
		return &rnode{kind: "lit", pos: t.pos, val: t.text == "true"}
	case "if", "unless":
		return p.ifExpr(t)
	case "case":
		return p.caseExpr(t)
	case "next", "break":
		var v *rnode
		if nt := p.tok(); nt.kind != "nl" && nt.kind != "eof" && !(nt.kind == "kw" && (nt.text == "end" || nt.text == "if" || nt.text == "unless")) && !(nt.kind == "op" && nt.text == "}") {
			v = p.notExpr()
		}
		return &rnode{kind: t.text, pos: t.pos, a: v}
	}
	p.i--
	p.fail("the keyword " + t.text)
	return nil
}

func (p *rparser) ifExpr(t rtok) *rnode {
	n := &rnode{kind: "if", pos: t.pos, not: t.text == "unless", a: p.notExpr()}
	p.accept("kw", "then")
	then := p.stmts(map[string]bool{"elsif": true, "else": true, "end": true})
	var els []*rnode
	switch {
	case p.at("kw", "elsif") && !n.not:
		et := p.tok()
		p.i++
		els = []*rnode{p.ifExpr(rtok{kind: "kw", text: "if", pos: et.pos})}
		n.body = [][]*rnode{then, els}
		return n
	case p.accept("kw", "else"):
		els = p.stmts(map[string]bool{"end": true})
	}
	p.expect("kw", "end")
	n.body = [][]*rnode{then, els}
	return n
}

func (p *rparser) caseExpr(t rtok) *rnode {
	n := &rnode{kind: "case", pos: t.pos}
	if !p.at("nl", "") {
		n.a = p.notExpr()
	}
	p.skipNL()
	for p.accept("kw", "when") {
		var vals []*rnode
		for {
			vals = append(vals, p.ternary())
			if !p.accept("op", ",") {
				break
			}
			p.skipNL()
		}
		p.accept("kw", "then")
		n.whens = append(n.whens, vals)
		n.body = append(n.body, p.stmts(map[string]bool{"when": true, "else": true, "end": true}))
	}
	var els []*rnode
	if p.accept("kw", "else") {
		els = p.stmts(map[string]bool{"end": true})
	}
	n.body = append(n.body, els)
	p.expect("kw", "end")
	return n
}

func (p *rparser) hashLit(t rtok) *rnode {
	n := &rnode{kind: "hash", pos: t.pos}
	p.skipNL()
	for !p.accept("op", "}") {
		var k *rnode
		if kt := p.tok(); (kt.kind == "ident" || kt.kind == "const") && p.i+1 < len(p.toks) && p.toks[p.i+1].kind == "op" && p.toks[p.i+1].text == ":" && !p.toks[p.i+1].sp {
			p.i += 2
			k = &rnode{kind: "lit", pos: kt.pos, val: rsym(kt.text)}
		} else {
			k = p.ternary()
			p.skipNL()
			p.expect("op", "=>")
		}
		p.skipNL()
		v := p.ternary()
		n.args = append(n.args, k, v)
		p.skipNL()
		if !p.accept("op", ",") {
			p.skipNL()
			p.expect("op", "}")
			break
		}
		p.skipNL()
	}
	return n
}

// strNode parses the #{...} parts of a string literal.
func (p *rparser) strNode(t rtok) *rnode {
	if len(t.str.code) == 0 {
		return &rnode{kind: "lit", pos: t.pos, val: t.str.parts[0].(string)}
	}
	n := &rnode{kind: "str", pos: t.pos}
	for _, part := range t.str.parts {
		switch x := part.(type) {
		case string:
			if x != "" {
				n.args = append(n.args, &rnode{kind: "lit", pos: t.pos, val: x})
			}
		case int:
			body := rubyParse(t.pos, t.str.code[x])
			n.args = append(n.args, &rnode{kind: "seq", pos: t.pos, args: body})
		}
	}
	return n
}
