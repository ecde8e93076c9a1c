package eval

import (
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// The Ruby of ERB templates: a lexer, a parser (rubyparse.go) and an
// evaluator (rubyeval.go, rubymethods.go) for the part of Ruby templates
// use: literals, instance and local variables, scope lookups and function
// calls, operators, conditionals and case, iteration with blocks, and the
// common methods of strings, arrays and hashes. Anything else is refused
// as unsupported, with the template's position.

type rtok struct {
	kind string // num, str, sym, ivar, ident, const, kw, op, nl, regex, eof
	text string
	str  *rstr // a string literal (parts for interpolation)
	pos  syntax.Pos
	sp   bool     // white space before the token
	list []string // the words of a %w literal
}

// A rstr is a string literal: literal text and #{...} code.
type rstr struct {
	parts []any // string or *rnode
	code  []string
}

var rubyKeywords = map[string]bool{
	"if": true, "unless": true, "elsif": true, "else": true, "end": true, "do": true, "then": true,
	"case": true, "when": true, "and": true, "or": true, "not": true, "nil": true, "true": true,
	"false": true, "while": true, "until": true, "begin": true, "return": true, "next": true,
	"break": true, "defined?": true, "in": true, "for": true, "self": true,
}

var rubyOps = []string{"**=", "||=", "&&=", "<=>", "===", "...", "**", "==", "!=", "=~", "!~", "<=", ">=", "&&", "||",
	"<<", ">>", "+=", "-=", "*=", "/=", "::", "..", "=>", "->", "+", "-", "*", "/", "%", "<", ">", "!", "=", ".",
	",", "(", ")", "[", "]", "{", "}", "|", "?", ":", ";", "&", "^", "~"}

type rlexer struct {
	src   string
	i     int
	pos   syntax.Pos
	toks  []rtok
	marks []srcMark // where positions jump (see rubyParseMapped)
}

func (l *rlexer) fail(msg string) {
	panic(syntax.Unsupported(l.pos, "Ruby in a template: "+msg))
}

func (l *rlexer) advance(n int) {
	for k := 0; k < n && l.i < len(l.src); k++ {
		if l.src[l.i] == '\n' {
			l.pos.Line++
			l.pos.Col = 1
		} else {
			l.pos.Col++
		}
		l.i++
		l.jump()
	}
}

// jump moves the position to the mark at the current offset, if any.
func (l *rlexer) jump() {
	for len(l.marks) > 0 && l.marks[0].off <= l.i {
		l.pos = l.marks[0].pos
		l.marks = l.marks[1:]
	}
}

// rubyLex splits Ruby source into tokens.
func rubyLex(pos syntax.Pos, src string, marks []srcMark) []rtok {
	// about one token per four bytes of template code: growing the
	// slice from empty copied the tokens of a long template many times
	l := &rlexer{src: src, pos: pos, marks: marks, toks: make([]rtok, 0, len(src)/4+1)}
	l.jump()
	for {
		sp := l.skip()
		p := l.pos
		if l.i >= len(l.src) {
			l.toks = append(l.toks, rtok{kind: "eof", pos: p})
			return l.toks
		}
		t := l.next()
		t.pos, t.sp = p, sp
		l.toks = append(l.toks, t)
	}
}

// skip jumps over spaces and comments; a newline is a token.
func (l *rlexer) skip() bool {
	sp := false
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			l.advance(1)
		case c == '\\' && l.i+1 < len(l.src) && l.src[l.i+1] == '\n':
			l.advance(2)
		case c == '#':
			for l.i < len(l.src) && l.src[l.i] != '\n' {
				l.advance(1)
			}
		default:
			return sp
		}
		sp = true
	}
	return sp
}

func isIdentChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// valueEnded reports whether the previous token ends a value (so that /
// divides and a following [ indexes).
func (l *rlexer) valueEnded() bool {
	if len(l.toks) == 0 {
		return false
	}
	t := l.toks[len(l.toks)-1]
	switch t.kind {
	case "num", "str", "sym", "ivar", "ident", "const", "regex", "nthref":
		return true
	case "kw":
		return t.text == "end" || t.text == "nil" || t.text == "true" || t.text == "false" || t.text == "self"
	case "op":
		return t.text == ")" || t.text == "]" || t.text == "}"
	}
	return false
}

func (l *rlexer) next() rtok {
	s := l.src[l.i:]
	c := s[0]
	word := func(from int) int {
		j := from
		for j < len(s) && isIdentChar(s[j]) {
			j++
		}
		return j
	}
	switch {
	case c == '\n' || c == ';':
		l.advance(1)
		return rtok{kind: "nl"}
	case c >= '0' && c <= '9':
		j := 0
		for j < len(s) && (isIdentChar(s[j]) || s[j] == '.' && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9') {
			j++
		}
		l.advance(j)
		return rtok{kind: "num", text: strings.ReplaceAll(s[:j], "_", "")}
	case c == '@':
		if strings.HasPrefix(s, "@@") {
			l.fail("class variables")
		}
		j := word(1)
		l.advance(j)
		return rtok{kind: "ivar", text: s[1:j]}
	case c == '$' && len(s) > 1 && s[1] >= '1' && s[1] <= '9' && !(len(s) > 2 && isIdentChar(s[2])):
		// $1 .. $9: a group of the last regexp match
		l.advance(2)
		return rtok{kind: "nthref", text: s[1:2]}
	case c == '$':
		l.fail("global variables")
	case c == ':' && len(s) > 1 && (isIdentChar(s[1]) && !(s[1] >= '0' && s[1] <= '9')) && !strings.HasPrefix(s, "::"):
		j := word(1)
		if j < len(s) && (s[j] == '?' || s[j] == '!') {
			j++
		}
		l.advance(j)
		return rtok{kind: "sym", text: s[1:j]}
	case c == ':' && len(s) > 1 && (s[1] == '"' || s[1] == '\''):
		l.advance(1)
		t := l.str(l.src[l.i:])
		t.kind = "sym"
		return t
	case c == '"' || c == '\'':
		return l.str(s)
	case c == '/' && !l.valueEnded():
		return l.regex(s)
	case c == '%' && len(s) > 2 && s[1] == 'w' && !l.valueEnded():
		return l.words(s)
	case c == '%' && len(s) > 1 && strings.ContainsRune("WqQiI", rune(s[1])) && !l.valueEnded():
		l.fail("%-literals other than %w")
	case isIdentChar(c):
		j := word(0)
		if j < len(s) && (s[j] == '?' || s[j] == '!') && !(j+1 < len(s) && s[j+1] == '=') {
			j++
		}
		w := s[:j]
		l.advance(j)
		if w == "defined" && strings.HasPrefix(l.src[l.i:], "?") {
			l.advance(1)
			w = "defined?"
		}
		switch {
		case rubyKeywords[w]:
			return rtok{kind: "kw", text: w}
		case c >= 'A' && c <= 'Z':
			return rtok{kind: "const", text: w}
		}
		return rtok{kind: "ident", text: w}
	}
	for _, op := range rubyOps {
		if strings.HasPrefix(s, op) {
			l.advance(len(op))
			return rtok{kind: "op", text: op}
		}
	}
	l.fail("the character " + string(c))
	return rtok{}
}

// str scans a single- or double-quoted string; double quotes take escapes
// and #{...} interpolation.
func (l *rlexer) str(s string) rtok {
	q := s[0]
	out := &rstr{}
	var b strings.Builder
	i := 1
	for ; i < len(s) && s[i] != q; i++ {
		ch := s[i]
		switch {
		case ch == '\\' && i+1 < len(s):
			i++
			e := s[i]
			if q == '\'' {
				if e != '\\' && e != '\'' {
					b.WriteByte('\\')
				}
				b.WriteByte(e)
				continue
			}
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 's':
				b.WriteByte(' ')
			case '0':
				b.WriteByte(0)
			case 'e':
				b.WriteByte(27)
			case '\n':
			case 'u', 'x':
				l.fail("\\" + string(e) + " escapes")
			default:
				b.WriteByte(e)
			}
		case ch == '#' && q == '"' && i+1 < len(s) && s[i+1] == '{':
			end := syntax.MatchBrace(s, i+2)
			if end < 0 {
				l.fail("an unterminated #{")
			}
			out.parts = append(out.parts, b.String())
			b.Reset()
			out.code = append(out.code, s[i+2:end])
			out.parts = append(out.parts, len(out.code)-1)
			i = end
		default:
			b.WriteByte(ch)
		}
	}
	if i >= len(s) {
		l.fail("an unterminated string")
	}
	out.parts = append(out.parts, b.String())
	l.advance(i + 1)
	return rtok{kind: "str", str: out, text: s[1:i]}
}

func (l *rlexer) regex(s string) rtok {
	i := 1
	for ; i < len(s) && s[i] != '/'; i++ {
		if s[i] == '\\' {
			i++
		}
		if i < len(s) && s[i] == '\n' {
			l.fail("a multi-line regexp")
		}
	}
	if i >= len(s) {
		l.fail("an unterminated regexp")
	}
	pat := s[1:i]
	j := i + 1
	for j < len(s) && strings.ContainsRune("imxo", rune(s[j])) {
		j++
	}
	flags := s[i+1 : j]
	if strings.ContainsAny(flags, "xo") || strings.Contains(pat, "#{") {
		l.fail("this regexp")
	}
	l.advance(j)
	return rtok{kind: "regex", text: pat, str: &rstr{parts: []any{flags}}}
}

// wordsClose maps the opening delimiters of a %w literal that pair with
// another character to it.
var wordsClose = map[byte]byte{'(': ')', '[': ']', '{': '}', '<': '>'}

// words lexes a %w literal: words separated by white space, without
// interpolation; paired delimiters nest. A backslash (which escapes a
// space or a delimiter in Ruby) is refused.
func (l *rlexer) words(s string) rtok {
	open := s[2]
	close, paired := wordsClose[open]
	if !paired {
		close = open
		if isIdentChar(open) || open == ' ' || open == '\n' {
			l.fail("%-literals with this delimiter")
		}
	}
	depth := 0
	for j := 3; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\\':
			l.fail("a backslash in a %w literal")
		case c == close && depth == 0:
			l.advance(j + 1)
			words := strings.Fields(s[3:j])
			if words == nil {
				words = []string{}
			}
			return rtok{kind: "words", text: s[:j+1], list: words}
		case c == close:
			depth--
		case c == open && paired:
			depth++
		}
	}
	l.fail("an unterminated %w literal")
	return rtok{}
}
