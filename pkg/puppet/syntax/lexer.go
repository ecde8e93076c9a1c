package syntax

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Token kinds.
const (
	EOF      = "EOF"
	NAME     = "NAME"     // lower-case bare word: file, foo::bar
	TYPE     = "TYPE"     // capitalized word: File, Foo::Bar
	VAR      = "VAR"      // $x, $::x, $a::b (Text without the $)
	STRING   = "STRING"   // single-quoted string (Text is the value)
	DQSTRING = "DQSTRING" // double-quoted string (Text is the raw body)
	NUMBER   = "NUMBER"
	REGEX    = "REGEX" // /re/ (Text is the pattern)
	PUNCT    = "PUNCT" // operators and punctuation (Text is the operator)
)

// A Pos is a position in a source file: its name, line and column. It
// takes 16 bytes, two words fewer than a name and two ints: every node of
// the syntax tree and every token has one. The lexer of a file shares one
// copy of its name among all its positions.
type Pos struct {
	file      *string
	Line, Col int32
}

// NewPos returns the position of line and column col of file.
func NewPos(file string, line, col int) Pos { return Pos{&file, int32(line), int32(col)} }

// File returns the name of the file, "" when unknown.
func (p Pos) File() string {
	if p.file == nil {
		return ""
	}
	return *p.file
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File(), p.Line, p.Col) }

// A Token is one lexical token.
type Token struct {
	Kind    string
	Text    string
	Pos     Pos
	Space   bool // white space or a comment precedes the token
	Heredoc bool // the string came from a heredoc: no escapes
}

// An Error is a positioned syntax or evaluation error.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Unsupported builds the error for valid Puppet the native engine does not
// handle: the manifest needs real Puppet.
func Unsupported(p Pos, what string) *Error {
	return &Error{Pos: p, Msg: "unsupported by the native engine: " + what + " (compile with real Puppet: --engine puppet)"}
}

var puncts = []string{
	"<<|", "|>>", "=>", "+>", "->", "~>", "<-", "<~", "==", "!=", "=~", "!~", "<=", ">=", "<<", ">>", "<|", "|>",
	"@@", "{", "}", "[", "]", "(", ")", ",", ";", ":", "=", "<", ">", "!", "+", "-", "*", "/", "%", "?", "|", "@", ".",
}

// punctsBy holds, for each first byte, the operators of puncts that start
// with it, longest first as in puncts: the lexer tries only those.
var punctsBy = func() (by [256][]string) {
	for _, op := range puncts {
		by[op[0]] = append(by[op[0]], op)
	}
	return by
}()

// valueEnd reports whether a token ends an operand, so that a following
// '/' is a division rather than the start of a regex.
func valueEnd(t Token) bool {
	switch t.Kind {
	case NAME, TYPE, VAR, STRING, DQSTRING, NUMBER, REGEX:
		return t.Kind != NAME || !isKeyword(t.Text)
	case PUNCT:
		return t.Text == ")" || t.Text == "]"
	}
	return false
}

// isKeyword reports whether a bare word is a keyword of the language.
func isKeyword(w string) bool {
	switch w {
	case "and", "or", "in", "if", "elsif", "else", "unless", "case", "class", "define", "node", "inherits":
		return true
	}
	return false
}

// Lex splits src into tokens.
func Lex(file, src string) ([]Token, error) {
	return lexFile(&file, src)
}

// lexFile is Lex with the name of the file shared.
func lexFile(file *string, src string) ([]Token, error) {
	l := newLexer(file, src)
	var out []Token
	for {
		t, err := l.token()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		if t.Kind == EOF {
			return out, nil
		}
	}
}

// A tokenStream carries the tokens of a lexer running on its own
// goroutine (lex) to the parser, in batches.
type tokenStream struct {
	// batches are the tokens in order, the last batch ending with EOF;
	// closed after it, or at a lexical error
	batches chan []Token
	free    chan []Token  // batches the parser is done with, for reuse
	stop    chan struct{} // closed when the parser reads no more
}

// lexBatch is the number of tokens in a batch, and lexBatches the number
// of batches, made as the lexer needs them and reused: the lexer is at
// most that many batches ahead of the parser.
const (
	lexBatch   = 256
	lexBatches = 8
)

func newTokenStream() *tokenStream {
	return &tokenStream{batches: make(chan []Token, lexBatches), free: make(chan []Token, lexBatches), stop: make(chan struct{})}
}

// batch returns an empty batch for the lexer: one the parser is done
// with, or a new one while there are fewer than lexBatches, else the
// next one the parser is done with. It returns nil when the parser
// stops reading.
func (ts *tokenStream) batch(made *int) []Token {
	select {
	case b := <-ts.free:
		return b[:0]
	default:
	}
	if *made < lexBatches {
		*made++
		return make([]Token, 0, lexBatch)
	}
	select {
	case b := <-ts.free:
		return b[:0]
	case <-ts.stop:
		return nil
	}
}

// lex runs the lexer over src to its end and returns its first error. It
// sends the tokens to the parser until it stops reading, and goes on
// lexing without them after that: a lexical error anywhere is reported
// before a syntax error.
func (ts *tokenStream) lex(file *string, src string) error {
	defer close(ts.batches)
	l := newLexer(file, src)
	made := 0
	batch := ts.batch(&made)
	sending := true
	for {
		t, err := l.token()
		if err != nil {
			return err
		}
		if !sending {
			if t.Kind == EOF {
				return nil
			}
			continue
		}
		batch = append(batch, t)
		if len(batch) < lexBatch && t.Kind != EOF {
			continue
		}
		select {
		case ts.batches <- batch:
		case <-ts.stop:
			sending = false
		}
		if t.Kind == EOF {
			return nil
		}
		if sending {
			batch = ts.batch(&made)
			sending = batch != nil
		}
	}
}

func newLexer(file *string, src string) *lexer { return &lexer{file: file, src: src, line: 1, col: 1} }

// token returns the next token, with Space set.
func (l *lexer) token() (Token, error) {
	before := l.off
	t, err := l.next()
	if err != nil {
		return Token{}, err
	}
	t.Space = before == 0 || before < len(l.src) && l.spaceAt(before)
	l.afterValue = valueEnd(t)
	return t, nil
}

type lexer struct {
	file      *string
	src       string
	off       int
	line, col int
	// a heredoc body the lexer jumps over when it reaches skipFrom
	skipFrom, skipTo, skipLines int
	// the last token ends an operand: a '/' is a division, not a regex
	afterValue bool
}

// spaceAt reports whether the byte at off is white space or a comment.
func (l *lexer) spaceAt(off int) bool {
	c := l.src[off]
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '#' || strings.HasPrefix(l.src[off:], "/*")
}

func (l *lexer) pos() Pos { return Pos{l.file, int32(l.line), int32(l.col)} }

func (l *lexer) advance(n int) {
	for i := 0; i < n && l.off < len(l.src); i++ {
		if l.src[l.off] == '\n' {
			l.line, l.col = l.line+1, 1
		} else {
			l.col++
		}
		l.off++
		if l.skipTo > 0 && l.off == l.skipFrom {
			l.off, l.line = l.skipTo, l.line+l.skipLines
			l.skipFrom, l.skipTo = 0, 0
		}
	}
}

func (l *lexer) skipSpace() error {
	for l.off < len(l.src) {
		c := l.src[l.off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			l.advance(1)
		case c == '#':
			for l.off < len(l.src) && l.src[l.off] != '\n' {
				l.advance(1)
			}
		case strings.HasPrefix(l.src[l.off:], "/*"):
			p := l.pos()
			end := strings.Index(l.src[l.off+2:], "*/")
			if end < 0 {
				return &Error{p, "unterminated comment"}
			}
			l.advance(end + 4)
		default:
			return nil
		}
	}
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWord(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// word scans a possibly ::-qualified word starting at off.
func (l *lexer) word(off int) int { return wordEnd(l.src, off) }

// wordEnd returns the end of the possibly ::-qualified word of s starting
// at i.
func wordEnd(s string, i int) int {
	for {
		for i < len(s) && isWord(s[i]) {
			i++
		}
		if strings.HasPrefix(s[i:], "::") && i+2 < len(s) && isWord(s[i+2]) {
			i += 2
			continue
		}
		return i
	}
}

func (l *lexer) next() (Token, error) {
	if err := l.skipSpace(); err != nil {
		return Token{}, err
	}
	p := l.pos()
	if l.off >= len(l.src) {
		return Token{Kind: EOF, Pos: p}, nil
	}
	s := l.src[l.off:]
	c := s[0]
	tok := func(kind, text string, n int) (Token, error) {
		l.advance(n)
		return Token{Kind: kind, Text: text, Pos: p}, nil
	}
	switch {
	case c == '$':
		start := l.off + 1
		if strings.HasPrefix(s[1:], "::") {
			start += 2
		}
		end := l.word(start)
		if end == start {
			return Token{}, &Error{p, "bad variable name"}
		}
		return tok(VAR, l.src[l.off+1:end], end-l.off) // $::x keeps its ::, the top scope's x
	case c == '\'':
		return l.single(p)
	case c == '"':
		return l.double(p)
	case c >= '0' && c <= '9':
		i := 0
		hex := len(s) > 1 && (s[1] == 'x' || s[1] == 'X')
		for i < len(s) && (isWord(s[i]) || s[i] == '.' && i+1 < len(s) && isDigit(s[i+1]) ||
			s[i] == '-' && !hex && (s[i-1] == 'e' || s[i-1] == 'E') && i+1 < len(s) && isDigit(s[i+1])) {
			i++
		}
		return tok(NUMBER, s[:i], i)
	case isWord(c) || strings.HasPrefix(s, "::") && len(s) > 2 && isWord(s[2]):
		start := l.off
		if c == ':' {
			start += 2
		}
		end := l.word(start)
		w := l.src[start:end]
		if unicode.IsUpper(rune(w[0])) {
			return tok(TYPE, w, end-l.off)
		}
		return tok(NAME, w, end-l.off)
	case strings.HasPrefix(s, "@("):
		return l.heredoc(p)
	case c == '/' && !l.afterValue:
		i := 1
		for i < len(s) && s[i] != '/' && s[i] != '\n' {
			if s[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(s) || s[i] != '/' {
			return Token{}, &Error{p, "unterminated regular expression"}
		}
		return tok(REGEX, strings.ReplaceAll(s[1:i], `\/`, "/"), i+1)
	}
	for _, op := range punctsBy[c] {
		if strings.HasPrefix(s, op) {
			return tok(PUNCT, op, len(op))
		}
	}
	return Token{}, &Error{p, fmt.Sprintf("unexpected character %q", c)}
}

var heredocEnd = regexp.MustCompile(`^[ \t]*(\|)?[ \t]*(-)?[ \t]*(.*?)[ \t]*$`)

// heredoc scans @(TAG) or @("TAG") (interpolated), with an optional
// :syntax; escape flags are outside the subset. The body is the lines after
// the current one up to the end line `[|][-] TAG`; '|' strips its column of
// indentation from every line, '-' the last line break.
func (l *lexer) heredoc(p Pos) (Token, error) {
	s := l.src[l.off:]
	end := strings.IndexByte(s, ')')
	if end < 0 || strings.ContainsAny(s[:end], "\n") {
		return Token{}, &Error{p, "syntax error: unterminated heredoc tag"}
	}
	spec := s[2:end]
	spec, _, _ = strings.Cut(spec, ":")
	if strings.Contains(spec, "/") {
		return Token{}, Unsupported(p, "heredoc escape flags")
	}
	tag := strings.TrimSpace(spec)
	interp := strings.HasPrefix(tag, `"`) && strings.HasSuffix(tag, `"`) && len(tag) > 1
	tag = strings.Trim(tag, `"`)
	if tag == "" {
		return Token{}, &Error{p, "syntax error: heredoc without a tag"}
	}
	start := l.skipTo
	if start == 0 {
		nl := strings.IndexByte(s, '\n')
		if nl < 0 {
			return Token{}, &Error{p, "syntax error: heredoc without a body"}
		}
		start = l.off + nl + 1
	}
	var lines []string
	i := start
	for {
		if i >= len(l.src) {
			return Token{}, &Error{p, "syntax error: heredoc has no end line '" + tag + "'"}
		}
		j := strings.IndexByte(l.src[i:], '\n')
		line := l.src[i:]
		next := len(l.src)
		if j >= 0 {
			line, next = l.src[i:i+j], i+j+1
		}
		if m := heredocEnd.FindStringSubmatch(line); m != nil && m[3] == tag {
			margin := -1
			if m[1] != "" {
				margin = strings.IndexByte(line, '|')
			}
			body := heredocBody(lines, margin, m[2] != "")
			if l.skipTo == 0 {
				l.skipFrom = start
			}
			l.skipTo = next
			l.skipLines = strings.Count(l.src[l.skipFrom:next], "\n")
			kind := STRING
			if interp {
				kind = DQSTRING
			}
			l.advance(end + 1)
			return Token{Kind: kind, Text: body, Pos: p, Heredoc: true}, nil
		}
		lines = append(lines, line)
		i = next
	}
}

func heredocBody(lines []string, margin int, trim bool) string {
	var b strings.Builder
	for _, line := range lines {
		if margin > 0 {
			k := 0
			for k < margin && k < len(line) && (line[k] == ' ' || line[k] == '\t') {
				k++
			}
			line = line[k:]
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	out := b.String()
	if trim {
		out = strings.TrimSuffix(out, "\n")
	}
	return out
}

func (l *lexer) single(p Pos) (Token, error) {
	var b strings.Builder
	s := l.src[l.off:]
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) && (s[i+1] == '\\' || s[i+1] == '\'') {
				b.WriteByte(s[i+1])
				i++
				continue
			}
			b.WriteByte('\\')
		case '\'':
			l.advance(i + 1)
			return Token{Kind: STRING, Text: b.String(), Pos: p}, nil
		default:
			b.WriteByte(s[i])
		}
	}
	return Token{}, &Error{p, "unterminated string"}
}

func (l *lexer) double(p Pos) (Token, error) {
	s := l.src[l.off:]
	depth := 0
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\':
			i++
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '{':
			depth++
			i++
		case s[i] == '}' && depth > 0:
			depth--
		case s[i] == '"' && depth == 0:
			l.advance(i + 1)
			return Token{Kind: DQSTRING, Text: s[1:i], Pos: p}, nil
		}
	}
	return Token{}, &Error{p, "unterminated string"}
}
