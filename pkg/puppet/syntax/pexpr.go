package syntax

import (
	"strconv"
	"strings"
)

// opLevel returns the precedence level of the binary operator t, from 0
// for the lowest, or -1 when t is none.
func opLevel(t *Token) int {
	if t.Kind != PUNCT && t.Kind != NAME {
		return -1
	}
	switch t.Text {
	case "or":
		return 0
	case "and":
		return 1
	case "<", ">", "<=", ">=":
		return 2
	case "==", "!=":
		return 3
	case "<<", ">>":
		return 4
	case "+", "-":
		return 5
	case "*", "/", "%":
		return 6
	case "=~", "!~":
		return 7
	case "in":
		return 8
	}
	return -1
}

func (p *parser) expr() Node {
	t := p.tok()
	p.enter(t.Pos)
	defer p.leave()
	return p.binary(0)
}

// binary parses the operands and operators of precedence level and
// above (precedence climbing: one call per operand, whatever the number of
// levels). Operators of one level associate to the left.
func (p *parser) binary(level int) Node {
	l := p.unary()
	chain, terms := -1, 0 // level of the current operator chain, its operands
	for {
		t := p.ref(0)
		lv := opLevel(t)
		if lv < level {
			return l
		}
		if lv != chain {
			chain, terms = lv, 1
		}
		if terms >= MaxTerms {
			p.fail(t.Pos, "expression too long (more than %d operands)", MaxTerms)
		}
		terms++
		p.i++
		b := &Binary{P: t.Pos, Op: t.Text, L: l} // t is good until the operand is parsed
		b.R = p.binary(lv + 1)
		l = b
	}
}

func (p *parser) unary() Node {
	t := p.tok()
	if p.accept(PUNCT, "!") || p.accept(PUNCT, "-") || p.accept(PUNCT, "*") {
		p.enter(t.Pos)
		defer p.leave()
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
			p.enter(t.Pos)
			x = &Access{P: t.Pos, X: x, Index: p.list("]")}
			p.leave()
		case t.Kind == PUNCT && t.Text == "?":
			p.i++
			x = p.selector(t.Pos, x)
		case t.Kind == PUNCT && t.Text == ".":
			p.i++
			nt := p.tok()
			if nt.Kind != NAME && nt.Kind != TYPE {
				p.fail(nt.Pos, "syntax error: expected a function name after '.', got %s", describe(nt))
			}
			p.i++
			c := &Call{P: nt.Pos, Name: nt.Text, Args: []Node{x}}
			if p.at(PUNCT, "(") && !p.tok().Space {
				p.i++
				p.enter(nt.Pos)
				c.Args = append(c.Args, p.list(")")...)
				p.leave()
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
	p.enter(pos)
	defer p.leave()
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
		return p.typePrimary(t)
	case NAME:
		return p.namePrimary(t)
	case PUNCT:
		switch t.Text {
		case "(":
			p.i++
			saved := p.cond
			p.cond = false
			x := p.assignment()
			p.cond = saved
			p.expect(PUNCT, ")")
			return x
		case "[":
			p.i++
			return &Array{P: t.Pos, Elems: p.list("]")}
		case "{":
			return p.hash()
		case "@", "@@":
			if nt := p.peek(1); nt.Kind == NAME && p.peekIs(2, PUNCT, "{") {
				p.i++
				return p.resource(t.Text == "@", t.Text == "@@", t.Pos)
			}
		}
	}
	p.fail(t.Pos, "syntax error: unexpected %s", describe(t))
	return nil
}

// typePrimary parses what starts with a capitalized name: a type or
// reference (File, File["/x"], Optional[String]), resource defaults
// (File { ... }), an override (File["/x"] { ... }), a collector
// (File <| ... |>) or a type's new function (Integer("1")).
func (p *parser) typePrimary(t Token) Node {
	if p.peekIs(1, PUNCT, "<|") || p.peekIs(1, PUNCT, "<<|") {
		p.i++
		return p.collect(t)
	}
	if p.peekIs(1, PUNCT, "(") && !p.peek(1).Space {
		p.i += 2
		p.enter(t.Pos)
		c := &Call{P: t.Pos, Name: t.Text, Args: p.list(")")}
		p.leave()
		c.Lambda = p.lambda()
		return c
	}
	if p.peekIs(1, PUNCT, "{") && !p.cond {
		p.i++
		return &Defaults{P: t.Pos, Type: t.Text, Attrs: p.attrBlock()}
	}
	r := p.typeExpr().(*TypeRef)
	if p.at(PUNCT, "{") && r.Titles != nil && !p.cond {
		return &Override{P: t.Pos, Target: r, Attrs: p.attrBlock()}
	}
	return r
}

// namePrimary parses an expression that starts with the bare word t: a
// boolean, undef, default, an if, unless or case expression, a resource,
// a call or a name. Another keyword may stand only as a hash key (before
// =>).
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
	case "if", "unless":
		return p.ifExpr()
	case "case":
		return p.caseExpr()
	}
	if next.Kind == PUNCT && next.Text == "{" && (!isKeyword(t.Text) || t.Text == "class") {
		return p.resource(false, false, t.Pos)
	}
	if isKeyword(t.Text) && !(next.Kind == PUNCT && next.Text == "=>") {
		p.fail(t.Pos, "syntax error: unexpected keyword %q", t.Text)
	}
	p.i++
	if p.at(PUNCT, "(") && !p.tok().Space {
		p.i++
		p.enter(t.Pos)
		c := &Call{P: t.Pos, Name: t.Text, Args: p.list(")")}
		p.leave()
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
	p.enter(t.Pos)
	defer p.leave()
	l := &Lambda{P: t.Pos, Params: p.params("|")}
	l.Body = p.block()
	return l
}

func (p *parser) hash() Node {
	t := p.expect(PUNCT, "{")
	p.enter(t.Pos)
	defer p.leave()
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
// A literal part without escapes is a substring of the body, not a copy.
func (p *parser) interpolate(t Token) Node {
	var parts []Node
	raw := t.Text
	var lit strings.Builder // the literal before seg, when escapes made it differ from raw
	seg := 0                // start of the literal text not yet in lit
	text := func(end int) string {
		if lit.Len() == 0 {
			return raw[seg:end]
		}
		lit.WriteString(raw[seg:end])
		v := lit.String()
		lit.Reset()
		return v
	}
	flush := func(end int) {
		if v := text(end); v != "" {
			parts = append(parts, &Str{P: t.Pos, Value: v})
		}
	}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '\\' && i+1 < len(raw) && !t.Heredoc:
			lit.WriteString(raw[seg:i])
			i = p.escape(t, &lit, i+1)
			seg = i + 1
		case c == '$' && i+1 < len(raw) && raw[i+1] == '{':
			end := MatchBrace(raw, i+2)
			if end < 0 {
				p.fail(offsetPos(t, i), "unterminated ${ in string")
			}
			flush(i)
			parts = append(parts, p.embedded(t, i+2, raw[i+2:end]))
			i, seg = end, end+1
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
			flush(i)
			parts = append(parts, &Var{P: offsetPos(t, i), Name: raw[i+1 : k]})
			i, seg = k-1, k
		}
	}
	if len(parts) == 0 {
		return &Str{P: t.Pos, Value: text(len(raw))}
	}
	flush(len(raw))
	return &Str{P: t.Pos, Parts: parts}
}

// escape writes the value of the escape whose letter is at raw[i] (after
// its backslash) to lit and returns the index of its last byte.
func (p *parser) escape(t Token, lit *strings.Builder, i int) int {
	raw := t.Text
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
	return i
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

// MatchBrace finds the brace closing the one before from, skipping quoted
// strings: the end of a ${...} interpolation in Puppet, or of a #{...} in
// Ruby. It returns -1 when the brace is not closed.
func MatchBrace(s string, from int) int {
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
		case '\'', '"':
			q := s[i]
			for i++; i < len(s) && s[i] != q; i++ {
				if s[i] == '\\' {
					i++
				}
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
		pos.Line += int32(n)
		pos.Col = int32(len(body) - strings.LastIndexByte(body, '\n'))
		return pos
	}
	pos.Col += int32(i + 1)
	return pos
}

// embedded parses the expression of a ${...} interpolation; a leading bare
// word names a variable.
func (p *parser) embedded(t Token, off int, src string) Node {
	pos := offsetPos(t, off)
	p.enter(pos)
	defer p.leave()
	if isVarName(src) { // ${name}, the common case, without a lexer
		p.enter(pos)
		p.leave()
		return &Var{P: pos, Name: src}
	}
	toks, err := lexFile(pos.file, src)
	if err != nil {
		panic(err)
	}
	for i := range toks {
		if toks[i].Pos.Line == 1 {
			toks[i].Pos.Col += pos.Col - 1
		}
		toks[i].Pos.Line += pos.Line - 1
	}
	if len(toks) > 1 && toks[0].Kind == NAME && (toks[1].Kind == EOF || toks[1].Kind == PUNCT && (toks[1].Text == "[" || toks[1].Text == ".")) && !isKeyword(toks[0].Text) {
		toks[0].Kind = VAR
	}
	if len(toks) == 2 && toks[0].Kind == NUMBER {
		if strings.Trim(toks[0].Text, "0123456789") != "" {
			p.fail(pos, "illegal numeric variable name %q: a name that starts with a digit must be a decimal number", toks[0].Text)
		}
		toks[0].Kind = VAR // ${1}: a regex capture
	}
	sub := &parser{toks: toks, depth: p.depth}
	x := sub.expr()
	if !sub.at(EOF, "") {
		sub.fail(sub.tok().Pos, "syntax error in interpolation: unexpected %s", describe(sub.tok()))
	}
	return x
}

// isVarName reports whether the body of an interpolation is a bare
// lower-case word (possibly ::-qualified), which names a variable.
func isVarName(src string) bool {
	return src != "" && (src[0] >= 'a' && src[0] <= 'z' || src[0] == '_') &&
		wordEnd(src, 0) == len(src) && !isKeyword(src)
}
