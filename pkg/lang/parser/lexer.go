package parser

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
)

type tokKind int

const (
	tEOF tokKind = iota
	tNewline
	tIdent // lower-case identifier, possibly dotted (fmt.printf)
	tCaps  // capitalized identifier, lower-cased
	tVar   // $name, possibly dotted; text without the $
	tString
	tInt
	tFloat
	tBool
	tPunct   // { } ( ) [ ] , : ; = => .
	tOp      // + - * / == != < > <= >= ?: <|> ->
	tKeyword // if else for forkv func class include import as panic collect and or not in
	tInvalid // input the lexer refused; err says why
)

var tokNames = [...]string{"EOF", "NEWLINE", "IDENTIFIER", "CAPITALIZED_IDENTIFIER", "VARIABLE", "STRING", "INTEGER", "FLOAT", "BOOL", "", "", "", "INVALID"}

type token struct {
	kind tokKind
	text string // identifier/keyword/punct text; raw string content; number text
	pos  ast.Pos
	ival int64
	fval float64
	err  *graph.PosError // of a tInvalid token
}

func (t token) String() string {
	switch t.kind {
	case tPunct, tOp, tKeyword:
		return fmt.Sprintf("%q", t.text)
	case tIdent, tCaps:
		return fmt.Sprintf("%s %q", tokNames[t.kind], t.text)
	case tVar:
		return fmt.Sprintf("variable $%s", t.text)
	}
	return tokNames[t.kind]
}

var keywords = map[string]bool{
	"if": true, "else": true, "for": true, "forkv": true, "func": true, "class": true,
	"include": true, "import": true, "as": true, "panic": true,
	"and": true, "or": true, "not": true, "in": true,
}

// syntaxErr returns an error of the syntax stage (lexing, parsing,
// interpolation) at pos.
func syntaxErr(pos ast.Pos, format string, args ...any) *graph.PosError {
	return graph.Errorf(pos.String(), graph.StageSyntax, format, args...)
}

type lexer struct {
	file  string
	src   string
	i     int
	line  int
	col   int
	start int     // offset of the token being read
	at    ast.Pos // and its position
	// comments are the comments read so far; code is set once a token
	// other than a newline was read on the current line.
	comments []*ast.Comment
	code     bool
}

func (l *lexer) pos() ast.Pos { return ast.Pos{File: l.file, Line: l.line, Col: l.col} }

// fail aborts the token being read with an error at p; next turns it into
// a tInvalid token.
func (l *lexer) fail(p ast.Pos, format string, args ...any) {
	panic(syntaxErr(p, format, args...))
}

// next returns the next token. Input it refuses becomes a tInvalid token
// holding the error, and the lexer moves past it (at least one character),
// so that the parser can report it and go on.
func (l *lexer) next() (t token) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		e, ok := r.(*graph.PosError)
		if !ok {
			panic(r)
		}
		if l.i == l.start && l.i < len(l.src) {
			_, n := utf8.DecodeRuneInString(l.src[l.i:])
			l.adv(n)
		}
		t = token{kind: tInvalid, pos: l.at, err: e}
	}()
	return l.scan()
}

func (l *lexer) adv(n int) {
	for k := 0; k < n; k++ {
		if l.src[l.i] == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
		l.i++
	}
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isWord(c byte) bool  { return isLower(c) || isDigit(c) || c == '_' }

func (l *lexer) word(start int) int {
	j := start
	for j < len(l.src) && isWord(l.src[j]) {
		j++
	}
	return j
}

// dotted extends an identifier over `.ident` parts.
func (l *lexer) dotted(j int) int {
	for j+1 < len(l.src) && l.src[j] == '.' && isLower(l.src[j+1]) {
		j = l.word(j + 1)
	}
	return j
}

func (l *lexer) scan() token {
	for l.i < len(l.src) {
		c := l.src[l.i]
		if c == ' ' || c == '\t' {
			l.adv(1)
			continue
		}
		if c == '#' {
			p, start := l.pos(), l.i
			for l.i < len(l.src) && l.src[l.i] != '\n' {
				l.adv(1)
			}
			text := strings.TrimRight(l.src[start:l.i], " \t\r")
			l.comments = append(l.comments, &ast.Comment{Pos: p, Text: text, Trailing: l.code})
			continue
		}
		break
	}
	p := l.pos()
	l.start, l.at = l.i, p
	if l.i >= len(l.src) {
		return token{kind: tEOF, pos: p}
	}
	c := l.src[l.i]
	l.code = c != '\n'
	switch {
	case c == '\n':
		l.adv(1)
		return token{kind: tNewline, pos: p, text: "\n"}
	case c == '\r':
		l.fail(p, "unexpected carriage return (\\r); use Unix line endings")
	case c == '"':
		return l.str(p)
	case isDigit(c) || c == '-' && l.i+1 < len(l.src) && isDigit(l.src[l.i+1]):
		return l.number(p)
	case isLower(c):
		j := l.word(l.i)
		w := l.src[l.i:j]
		if keywords[w] {
			l.adv(j - l.i)
			return token{kind: tKeyword, text: w, pos: p}
		}
		if w == "true" || w == "false" {
			l.adv(j - l.i)
			return token{kind: tBool, text: w, pos: p}
		}
		j = l.dotted(j)
		w = l.src[l.i:j]
		l.adv(j - l.i)
		return token{kind: tIdent, text: w, pos: p}
	case c >= 'A' && c <= 'Z':
		j := l.word(l.i + 1)
		w := l.src[l.i:j]
		l.adv(j - l.i)
		return token{kind: tCaps, text: string(c+'a'-'A') + w[1:], pos: p}
	case c == '$':
		if l.i+1 < len(l.src) && isLower(l.src[l.i+1]) {
			first := l.word(l.i + 1)
			if w := l.src[l.i+1 : first]; keywords[w] {
				l.adv(first - l.i)
				l.fail(p, "unexpected %s: %q is a keyword, not a variable name", strings.ToUpper(w), w)
			}
			j := l.dotted(first)
			w := l.src[l.i+1 : j]
			l.adv(j - l.i)
			return token{kind: tVar, text: w, pos: p}
		}
		l.fail(p, "expected a variable name after $")
	}
	for _, op := range []string{"<|>", "=>", "==", "!=", "<=", ">=", "?:", "->"} {
		if len(l.src)-l.i >= len(op) && l.src[l.i:l.i+len(op)] == op {
			l.adv(len(op))
			kind := tOp
			if op == "=>" {
				kind = tPunct
			}
			return token{kind: kind, text: op, pos: p}
		}
	}
	switch c {
	case '{', '}', '(', ')', '[', ']', ',', ':', ';', '=', '.':
		l.adv(1)
		return token{kind: tPunct, text: string(c), pos: p}
	case '+', '-', '*', '/', '<', '>':
		l.adv(1)
		return token{kind: tOp, text: string(c), pos: p}
	}
	l.fail(p, "unexpected character %q", rune(c))
	return token{}
}

func (l *lexer) str(p ast.Pos) token {
	j := l.i + 1
	for j < len(l.src) && l.src[j] != '"' {
		if l.src[j] == '\\' {
			j++
		}
		j++
	}
	if j >= len(l.src) {
		l.adv(len(l.src) - l.i)
		l.fail(p, "unterminated string")
	}
	raw := l.src[l.i+1 : j]
	l.adv(j + 1 - l.i)
	return token{kind: tString, text: raw, pos: p}
}

func (l *lexer) number(p ast.Pos) token {
	j := l.i
	if l.src[j] == '-' {
		j++
	}
	for j < len(l.src) && isDigit(l.src[j]) {
		j++
	}
	isFloat := false
	if j+1 < len(l.src) && l.src[j] == '.' && isDigit(l.src[j+1]) {
		isFloat = true
		j++
		for j < len(l.src) && isDigit(l.src[j]) {
			j++
		}
	}
	text := l.src[l.i:j]
	l.adv(j - l.i)
	if isFloat {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			l.fail(p, "bad float %s", text)
		}
		return token{kind: tFloat, text: text, fval: f, pos: p}
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		l.fail(p, "integer %s out of range", text)
	}
	return token{kind: tInt, text: text, ival: n, pos: p}
}
