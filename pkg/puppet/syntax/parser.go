package syntax

import (
	"fmt"
	"strconv"
	"strings"
)

// Parse parses a manifest into its top-level statements.
func Parse(file, src string) (stmts []Node, err error) {
	toks, err := Lex(file, src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			stmts, err = nil, e
		}
	}()
	for !p.at(EOF, "") {
		stmts = append(stmts, p.statement())
		p.accept(PUNCT, ";")
	}
	return stmts, nil
}

type parser struct {
	toks []Token
	i    int
}

func (p *parser) tok() Token       { return p.toks[p.i] }
func (p *parser) peek(n int) Token { return p.toks[min(p.i+n, len(p.toks)-1)] }

func (p *parser) at(kind, text string) bool {
	t := p.tok()
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
	p.expect(PUNCT, "{")
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
	switch {
	case t.Kind == NAME && t.Text == "class" && p.peek(1).Kind == NAME:
		return p.classDef()
	case t.Kind == NAME && t.Text == "define":
		return p.defineDef()
	case t.Kind == NAME && t.Text == "node":
		return p.nodeDef()
	case t.Kind == NAME && (t.Text == "if" || t.Text == "unless"):
		return p.ifStmt()
	case t.Kind == NAME && t.Text == "case":
		return p.caseStmt()
	case t.Kind == NAME && t.Text == "function":
		panic(Unsupported(t.Pos, "function definitions"))
	case t.Kind == NAME && t.Text == "type":
		panic(Unsupported(t.Pos, "type aliases"))
	case t.Kind == VAR && p.peek(1).Kind == PUNCT && p.peek(1).Text == "=":
		p.i += 2
		return &Assign{P: t.Pos, Name: t.Text, Value: p.expr()}
	case t.Kind == TYPE && p.peek(1).Kind == PUNCT && p.peek(1).Text == "{":
		p.i++
		return &Defaults{P: t.Pos, Type: t.Text, Attrs: p.attrBlock()}
	case t.Kind == TYPE && p.peek(1).Kind == PUNCT && (p.peek(1).Text == "<|" || p.peek(1).Text == "<<|"):
		panic(Unsupported(t.Pos, "resource collectors"))
	case t.Kind == NAME && statementCalls[t.Text] && p.startsExpr(p.peek(1)):
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
		return !keywords[t.Text]
	case PUNCT:
		return t.Text == "["
	}
	return false
}

// chain parses an expression statement, possibly a relationship chain.
func (p *parser) chain() Node {
	t := p.tok()
	first := p.expr()
	c := &Chain{P: t.Pos, Items: []Node{first}}
	for {
		op := p.tok()
		if op.Kind != PUNCT || (op.Text != "->" && op.Text != "~>" && op.Text != "<-" && op.Text != "<~") {
			break
		}
		p.i++
		c.Ops = append(c.Ops, op.Text)
		c.Items = append(c.Items, p.expr())
	}
	if len(c.Ops) == 0 {
		return first
	}
	return c
}

func (p *parser) params() []*Param {
	var out []*Param
	if !p.accept(PUNCT, "(") {
		return nil
	}
	for !p.accept(PUNCT, ")") {
		p.skipType()
		v := p.expect(VAR, "")
		prm := &Param{P: v.Pos, Name: v.Text}
		if p.accept(PUNCT, "=") {
			prm.Default = p.expr()
		}
		out = append(out, prm)
		if !p.accept(PUNCT, ",") {
			p.expect(PUNCT, ")")
			break
		}
	}
	return out
}

// skipType skips a parameter's data type (String, Optional[Array[Int]]).
func (p *parser) skipType() {
	if !p.accept(TYPE, "") {
		return
	}
	if p.accept(PUNCT, "[") {
		depth := 1
		for depth > 0 {
			t := p.tok()
			if t.Kind == EOF {
				p.fail(t.Pos, "syntax error: unterminated type")
			}
			if t.Kind == PUNCT && t.Text == "[" {
				depth++
			} else if t.Kind == PUNCT && t.Text == "]" {
				depth--
			}
			p.i++
		}
	}
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
	c.Params = p.params()
	if p.accept(NAME, "inherits") {
		c.Parent = p.className()
	}
	c.Body = p.block()
	return c
}

func (p *parser) defineDef() Node {
	t := p.expect(NAME, "define")
	d := &DefineDef{P: t.Pos, Name: p.className()}
	d.Params = p.params()
	d.Body = p.block()
	return d
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
		case nt.Kind == NAME:
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
		if !p.accept(PUNCT, ",") {
			break
		}
	}
	n.Body = p.block()
	return n
}

func (p *parser) ifStmt() Node {
	t := p.tok()
	p.i++
	n := &If{P: t.Pos, Not: t.Text == "unless", Cond: p.expr()}
	n.Then = p.block()
	switch {
	case p.at(NAME, "elsif") && !n.Not:
		n.Else = []Node{p.ifStmt()}
	case p.accept(NAME, "else"):
		n.Else = p.block()
	}
	return n
}

func (p *parser) caseStmt() Node {
	t := p.expect(NAME, "case")
	c := &Case{P: t.Pos, X: p.expr()}
	p.expect(PUNCT, "{")
	for !p.accept(PUNCT, "}") {
		var opts []Node
		for {
			opts = append(opts, p.expr())
			if !p.accept(PUNCT, ",") {
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
	p.expect(PUNCT, "{")
	attrs := p.attrs()
	p.expect(PUNCT, "}")
	return attrs
}

func (p *parser) attrs() []*Attr {
	var out []*Attr
	for {
		t := p.tok()
		if t.Kind == PUNCT && t.Text == "*" {
			panic(Unsupported(t.Pos, "attribute splat (* =>)"))
		}
		if t.Kind != NAME {
			return out
		}
		p.i++
		op := p.tok()
		if !p.accept(PUNCT, "=>") && !p.accept(PUNCT, "+>") {
			p.fail(op.Pos, "syntax error: expected \"=>\" after attribute %s, got %s", t.Text, describe(op))
		}
		out = append(out, &Attr{P: t.Pos, Name: t.Text, Op: op.Text, Value: p.expr()})
		if !p.accept(PUNCT, ",") {
			return out
		}
	}
}

// resource parses NAME { title: attrs; title: attrs }.
func (p *parser) resource() Node {
	t := p.tok()
	p.i++
	r := &Resource{P: t.Pos, Type: t.Text}
	p.expect(PUNCT, "{")
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

// Binary operator precedence, lowest first.
var precedence = [][]string{
	{"or"}, {"and"}, {"<", ">", "<=", ">="}, {"==", "!="}, {"<<", ">>"},
	{"+", "-"}, {"*", "/", "%"}, {"=~", "!~"}, {"in"},
}

func (p *parser) expr() Node { return p.binary(0) }

func (p *parser) binary(level int) Node {
	if level == len(precedence) {
		return p.unary()
	}
	l := p.binary(level + 1)
	for {
		t := p.tok()
		match := false
		for _, op := range precedence[level] {
			if (t.Kind == PUNCT || t.Kind == NAME) && t.Text == op {
				match = true
			}
		}
		if !match {
			return l
		}
		p.i++
		l = &Binary{P: t.Pos, Op: t.Text, L: l, R: p.binary(level + 1)}
	}
}

func (p *parser) unary() Node {
	t := p.tok()
	if p.accept(PUNCT, "!") || p.accept(PUNCT, "-") {
		return &Unary{P: t.Pos, Op: t.Text, X: p.unary()}
	}
	return p.postfix(p.primary())
}

func (p *parser) postfix(x Node) Node {
	for {
		t := p.tok()
		switch {
		case t.Kind == PUNCT && t.Text == "[" && !t.Space:
			p.i++
			a := &Access{P: t.Pos, X: x, Index: p.list("]")}
			x = a
		case t.Kind == PUNCT && t.Text == "?":
			p.i++
			x = p.selector(t.Pos, x)
		case t.Kind == PUNCT && t.Text == ".":
			p.i++
			nt := p.expect(NAME, "")
			c := &Call{P: nt.Pos, Name: nt.Text, Args: []Node{x}}
			if p.at(PUNCT, "(") && !p.tok().Space {
				p.i++
				c.Args = append(c.Args, p.list(")")...)
			}
			c.Lambda = p.lambda()
			x = c
		default:
			return x
		}
	}
}

func (p *parser) selector(pos Pos, x Node) Node {
	s := &Selector{P: pos, X: x}
	p.expect(PUNCT, "{")
	for !p.accept(PUNCT, "}") {
		s.Matches = append(s.Matches, p.expr())
		p.expect(PUNCT, "=>")
		s.Values = append(s.Values, p.expr())
		if !p.accept(PUNCT, ",") {
			p.expect(PUNCT, "}")
			break
		}
	}
	return s
}

// list parses comma-separated expressions up to the closing token.
func (p *parser) list(end string) []Node {
	var out []Node
	for !p.accept(PUNCT, end) {
		out = append(out, p.expr())
		if !p.accept(PUNCT, ",") {
			p.expect(PUNCT, end)
			break
		}
	}
	return out
}

func (p *parser) primary() Node {
	t := p.tok()
	switch t.Kind {
	case STRING:
		p.i++
		return &Str{P: t.Pos, Value: t.Text}
	case DQSTRING:
		p.i++
		return p.interpolate(t)
	case NUMBER:
		p.i++
		return &Num{P: t.Pos, Text: t.Text}
	case VAR:
		p.i++
		return &Var{P: t.Pos, Name: t.Text}
	case REGEX:
		p.i++
		return &Regex{P: t.Pos, Pattern: t.Text}
	case TYPE:
		p.i++
		r := &TypeRef{P: t.Pos, Type: t.Text}
		if p.at(PUNCT, "[") {
			p.i++
			r.Titles = p.list("]")
		}
		if p.at(PUNCT, "{") {
			panic(Unsupported(t.Pos, "resource overrides"))
		}
		if p.at(PUNCT, "<|") || p.at(PUNCT, "<<|") {
			panic(Unsupported(t.Pos, "resource collectors"))
		}
		return r
	case NAME:
		return p.namePrimary(t)
	case PUNCT:
		switch t.Text {
		case "(":
			p.i++
			x := p.expr()
			p.expect(PUNCT, ")")
			return x
		case "[":
			p.i++
			return &Array{P: t.Pos, Elems: p.list("]")}
		case "{":
			return p.hash()
		case "|":
			panic(Unsupported(t.Pos, "lambdas"))
		}
	}
	p.fail(t.Pos, "syntax error: unexpected %s", describe(t))
	return nil
}

func (p *parser) namePrimary(t Token) Node {
	next := p.peek(1)
	switch t.Text {
	case "true", "false":
		p.i++
		return &Bool{P: t.Pos, Value: t.Text == "true"}
	case "undef":
		p.i++
		return &Undef{P: t.Pos}
	case "default":
		p.i++
		return &Default{P: t.Pos}
	}
	if next.Kind == PUNCT && next.Text == "{" && !keywords[t.Text] {
		return p.resource()
	}
	if t.Text == "class" && next.Kind == PUNCT && next.Text == "{" {
		return p.resource()
	}
	if keywords[t.Text] {
		p.fail(t.Pos, "syntax error: unexpected keyword %q", t.Text)
	}
	p.i++
	if p.at(PUNCT, "(") {
		p.i++
		c := &Call{P: t.Pos, Name: t.Text, Args: p.list(")")}
		c.Lambda = p.lambda()
		return c
	}
	return &Name{P: t.Pos, Value: t.Text}
}

// lambda parses an optional |params| { body } after a call.
func (p *parser) lambda() *Lambda {
	t := p.tok()
	if !p.accept(PUNCT, "|") {
		return nil
	}
	l := &Lambda{P: t.Pos}
	for !p.accept(PUNCT, "|") {
		p.skipType()
		v := p.expect(VAR, "")
		prm := &Param{P: v.Pos, Name: v.Text}
		if p.accept(PUNCT, "=") {
			prm.Default = p.expr()
		}
		l.Params = append(l.Params, prm)
		if !p.accept(PUNCT, ",") {
			p.expect(PUNCT, "|")
			break
		}
	}
	l.Body = p.block()
	return l
}

func (p *parser) hash() Node {
	t := p.expect(PUNCT, "{")
	h := &Hash{P: t.Pos}
	for !p.accept(PUNCT, "}") {
		h.Keys = append(h.Keys, p.expr())
		p.expect(PUNCT, "=>")
		h.Vals = append(h.Vals, p.expr())
		if !p.accept(PUNCT, ",") {
			p.expect(PUNCT, "}")
			break
		}
	}
	return h
}

// interpolate turns the raw body of a double-quoted string into a Str.
func (p *parser) interpolate(t Token) Node {
	s := &Str{P: t.Pos}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			s.Parts = append(s.Parts, &Str{P: t.Pos, Value: lit.String()})
			lit.Reset()
		}
	}
	raw := t.Text
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '\\' && i+1 < len(raw) && !t.Heredoc:
			i++
			switch raw[i] {
			case 'n':
				lit.WriteByte('\n')
			case 't':
				lit.WriteByte('\t')
			case 'r':
				lit.WriteByte('\r')
			case 's':
				lit.WriteByte(' ')
			case '\\', '"', '\'', '$':
				lit.WriteByte(raw[i])
			case 'u':
				n, r := unicodeEscape(raw[i+1:])
				if n == 0 {
					p.fail(offsetPos(t, i), "malformed unicode escape")
				}
				lit.WriteRune(r)
				i += n
			case '\n':
			default:
				lit.WriteByte('\\')
				lit.WriteByte(raw[i])
			}
		case c == '$' && i+1 < len(raw) && raw[i+1] == '{':
			end := matchBrace(raw, i+2)
			if end < 0 {
				p.fail(offsetPos(t, i), "unterminated ${ in string")
			}
			flush()
			s.Parts = append(s.Parts, p.embedded(t, i+2, raw[i+2:end]))
			i = end
		case c == '$' && i+1 < len(raw) && (isWord(raw[i+1]) || raw[i+1] == ':'):
			j := i + 1
			if strings.HasPrefix(raw[j:], "::") {
				j += 2
			}
			k := j
			for k < len(raw) && (isWord(raw[k]) || strings.HasPrefix(raw[k:], "::") && k+2 < len(raw) && isWord(raw[k+2])) {
				if raw[k] == ':' {
					k += 2
				} else {
					k++
				}
			}
			flush()
			s.Parts = append(s.Parts, &Var{P: offsetPos(t, i), Name: raw[j:k]})
			i = k - 1
		default:
			lit.WriteByte(c)
		}
	}
	if len(s.Parts) == 0 {
		return &Str{P: t.Pos, Value: lit.String()}
	}
	flush()
	return s
}

func unicodeEscape(s string) (int, rune) {
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return 0, 0
		}
		v, err := strconv.ParseUint(s[1:end], 16, 32)
		if err != nil {
			return 0, 0
		}
		return end + 1, rune(v)
	}
	if len(s) < 4 {
		return 0, 0
	}
	v, err := strconv.ParseUint(s[:4], 16, 32)
	if err != nil {
		return 0, 0
	}
	return 4, rune(v)
}

func matchBrace(s string, from int) int {
	depth := 1
	for i := from; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// offsetPos approximates the position of byte i of a string token's body.
func offsetPos(t Token, i int) Pos {
	pos := t.Pos
	body := t.Text[:i]
	if n := strings.Count(body, "\n"); n > 0 {
		pos.Line += n
		pos.Col = len(body) - strings.LastIndexByte(body, '\n')
		return pos
	}
	pos.Col += i + 1
	return pos
}

// embedded parses the expression of a ${...} interpolation; a leading bare
// word names a variable.
func (p *parser) embedded(t Token, off int, src string) Node {
	pos := offsetPos(t, off)
	toks, err := Lex(pos.File, src)
	if err != nil {
		panic(err)
	}
	for i := range toks {
		if toks[i].Pos.Line == 1 {
			toks[i].Pos.Col += pos.Col - 1
		}
		toks[i].Pos.Line += pos.Line - 1
	}
	if len(toks) > 1 && toks[0].Kind == NAME && (toks[1].Kind == EOF || toks[1].Kind == PUNCT && (toks[1].Text == "[" || toks[1].Text == ".")) && !keywords[toks[0].Text] {
		toks[0].Kind = VAR
	}
	if len(toks) == 2 && toks[0].Kind == NUMBER && strings.Trim(toks[0].Text, "0123456789") == "" {
		toks[0].Kind = VAR // ${1}: a regex capture
	}
	sub := &parser{toks: toks}
	x := sub.expr()
	if !sub.at(EOF, "") {
		sub.fail(sub.tok().Pos, "syntax error in interpolation: unexpected %s", describe(sub.tok()))
	}
	return x
}

// ParseExpr parses a single expression (used by templates).
func ParseExpr(pos Pos, src string) (x Node, err error) {
	toks, err := Lex(pos.File, src)
	if err != nil {
		return nil, err
	}
	for i := range toks {
		toks[i].Pos.Line += pos.Line - 1
	}
	p := &parser{toks: toks}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			x, err = nil, e
		}
	}()
	x = p.expr()
	if !p.at(EOF, "") {
		p.fail(p.tok().Pos, "syntax error: unexpected %s", describe(p.tok()))
	}
	return x, nil
}
