package graph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonParser decodes one framed JSON document straight into a Document.
// It is a recursive-descent parser over the frame's bytes: it knows the
// document's fields, so it needs no reflection, reports every error with
// its exact position and the path of the field, gives each resource and
// edge its own position, and interns kinds and names (edges repeat the
// names of resources). Errors panic with a jsonErr that decodeJSON
// recovers.
type jsonParser struct {
	data   []byte
	i      int
	start  Position
	intern map[string]string
	values map[string]any // short string parameter values, boxed once
	// The strings of intern and values met last, by recentSlot: a
	// document repeats the same few keys and values, which these find
	// without hashing.
	recentStrs   [16]string
	recentValues [16]struct {
		s string
		v any
	}
	alloc slab   // names and the document's other strings
	vals  slab   // strings of parameter values
	esc   []byte // a string with escapes, unescaped

	// The path of the value being parsed, for messages: object keys, and
	// array indexes as -1-index.
	keys []string
	idxs []int

	// Incremental offset -> position conversion.
	posOff, posLine, posLineStart int

	// splitMin is the size from which a resources array is decoded in
	// two halves (resourcesSplit); 0 is defaultSplitMin.
	splitMin int
}

type jsonErr struct {
	off int
	msg string
	eof bool // the data ended inside the document
}

const msgTruncated = "unexpected end of JSON document (truncated?)"

func (p *jsonParser) failEOF(off int) {
	panic(jsonErr{off, msgTruncated, true})
}

const maxJSONDepth = 1000

// tryDecodeJSON parses one document from data; eof reports that the data
// ended inside the document.
func tryDecodeJSON(data []byte, start Position, splitMin int) (doc *Document, eof bool, err error) {
	p := &jsonParser{data: data, start: start, intern: map[string]string{}, values: map[string]any{}, posLine: start.Line, posLineStart: -(start.Col - 1),
		splitMin: splitMin}
	defer func() {
		if r := recover(); r != nil {
			je, ok := r.(jsonErr)
			if !ok {
				panic(r)
			}
			doc, eof, err = nil, je.eof, &PosError{Pos: p.pos(je.off).String(), Msg: je.msg}
		}
	}()
	doc = &Document{}
	p.ws()
	p.document(doc)
	p.ws()
	if p.i < len(p.data) {
		p.fail(p.i, "unexpected data after the document")
	}
	if err := doc.finish(start); err != nil {
		return nil, false, err
	}
	return doc, false, nil
}

// pos converts a byte offset to a position; offsets must not decrease
// between calls, except for error reports.
func (p *jsonParser) pos(off int) Position {
	if off < p.posOff {
		p.posOff, p.posLine, p.posLineStart = 0, p.start.Line, -(p.start.Col - 1)
	}
	if off > len(p.data) {
		off = len(p.data)
	}
	seg := p.data[p.posOff:off]
	if n := bytes.Count(seg, []byte{'\n'}); n > 0 {
		p.posLine += n
		p.posLineStart = p.posOff + bytes.LastIndexByte(seg, '\n') + 1
	}
	p.posOff = off
	return Position{File: p.start.File, Line: p.posLine, Col: off - p.posLineStart + 1}
}

// path returns the path of the value being parsed: resources[3].meta.retry.
func (p *jsonParser) path() string {
	var b strings.Builder
	for i, k := range p.keys {
		if idx := p.idxs[i]; idx >= 0 {
			fmt.Fprintf(&b, "[%d]", idx)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(k)
	}
	if b.Len() == 0 {
		return "document"
	}
	return b.String()
}

func (p *jsonParser) push(key string, idx int) {
	p.keys = append(p.keys, key)
	p.idxs = append(p.idxs, idx)
}

func (p *jsonParser) pop() {
	p.keys = p.keys[:len(p.keys)-1]
	p.idxs = p.idxs[:len(p.idxs)-1]
}

// wrongType fails with "PATH: got KIND, want WANT" at the next value.
func (p *jsonParser) wrongType(want string) {
	off := p.peekOff()
	p.fail(off, "%s: got %s, want %s", p.path(), p.kindOf(), want)
}

func (p *jsonParser) fail(off int, format string, args ...any) {
	panic(jsonErr{off: off, msg: fmt.Sprintf(format, args...)})
}

func (p *jsonParser) ws() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// peek returns the next significant byte, failing at the end of the data.
func (p *jsonParser) peek() byte {
	p.ws()
	if p.i >= len(p.data) {
		p.failEOF(p.i)
	}
	return p.data[p.i]
}

func (p *jsonParser) expect(c byte) {
	if got := p.peek(); got != c {
		p.fail(p.i, "invalid character %s, want %q", describeByte(got), rune(c))
	}
	p.i++
}

func describeByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// kindOf names the JSON type of the value starting at the next byte.
func (p *jsonParser) kindOf() string {
	switch c := p.peek(); {
	case c == '"':
		return "string"
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	case c == '-' || c >= '0' && c <= '9':
		return "number"
	default:
		p.fail(p.i, "invalid character %s looking for beginning of value", describeByte(c))
	}
	return ""
}

// object parses an object, calling field for each key with the parser
// positioned at the value; field must consume the value.
func (p *jsonParser) object(field func(key string, keyOff int)) {
	if p.peek() != '{' {
		p.wrongType("object")
	}
	p.i++
	if p.peek() == '}' {
		p.i++
		return
	}
	for {
		if p.peek() != '"' {
			p.fail(p.i, "invalid character %s looking for beginning of object key string", describeByte(p.data[p.i]))
		}
		keyOff := p.i
		key, ok := p.knownKey()
		if !ok {
			key = p.str(strIntern)
		}
		p.expect(':')
		p.push(key, -1)
		field(key, keyOff)
		p.pop()
		switch c := p.peek(); c {
		case ',':
			p.i++
		case '}':
			p.i++
			return
		default:
			p.fail(p.i, "invalid character %s after object key:value pair", describeByte(c))
		}
	}
}

// array parses an array, calling elem for each element.
func (p *jsonParser) array(elem func(i int)) {
	if p.peek() != '[' {
		p.wrongType("array")
	}
	p.i++
	if p.peek() == ']' {
		p.i++
		return
	}
	for n := 0; ; n++ {
		p.push("", n)
		elem(n)
		p.pop()
		switch c := p.peek(); c {
		case ',':
			p.i++
		case ']':
			p.i++
			return
		default:
			p.fail(p.i, "invalid character %s after array element", describeByte(c))
		}
	}
}

// null consumes a null if one comes next.
func (p *jsonParser) null() bool {
	if p.peek() == 'n' {
		p.literal("null")
		return true
	}
	return false
}

func (p *jsonParser) literal(word string) {
	if !bytes.HasPrefix(p.data[p.i:], []byte(word)) {
		if len(p.data)-p.i < len(word) && bytes.HasPrefix([]byte(word), p.data[p.i:]) {
			p.failEOF(len(p.data))
		}
		p.fail(p.i, "invalid character %s in literal %s", describeByte(p.data[p.i]), word)
	}
	p.i += len(word)
}

// Where str puts the strings it parses: interned (the kinds, keys and
// other names that repeat, shared within the document), in the slab of
// the document's strings, or in the slab of parameter values. Parameter
// values go apart from the names because they live as long as the
// resources made from them, while a program that runs the graph lets go
// of the names (see engine.BuildOptions.Consume): a block of names is
// not kept for the sake of a value in it.
type strDest int

const (
	strIntern strDest = iota
	strDoc
	strValue
)

// str parses a string into dest.
func (p *jsonParser) str(dest strDest) string {
	b := p.strBytes()
	switch dest {
	case strIntern:
		slot := &p.recentStrs[recentSlot(b)]
		if *slot == string(b) {
			return *slot
		}
		s, ok := p.intern[string(b)]
		if !ok {
			s = string(b)
			p.intern[s] = s
		}
		*slot = s
		return s
	case strValue:
		return p.vals.str(b)
	}
	return p.alloc.str(b)
}

// recentSlot returns the slot of b in the parser's recent strings and
// values: from its length and its first and last bytes, which tell apart
// the few keys and values a document repeats.
func recentSlot(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	return (len(b) + int(b[0]) + 3*int(b[len(b)-1])) & 15
}

// strBytes parses a string and returns its bytes: a slice of the data,
// or of p.esc when the string has escapes, valid until the next call.
func (p *jsonParser) strBytes() []byte {
	start := p.i
	p.i++ // the opening quote
	ascii := true
	for j := p.i; j < len(p.data); j++ {
		c := p.data[j]
		switch {
		case c == '"':
			b := p.data[p.i:j]
			if !ascii {
				if k := invalidUTF8(b); k >= 0 {
					p.failUTF8(p.i + k)
				}
			}
			p.i = j + 1
			return b
		case c == '\\':
			return p.slowStr(start)
		case c < 0x20:
			p.fail(j, "invalid character %s in string literal", describeByte(c))
		case c >= 0x80:
			ascii = false
		}
	}
	p.failEOF(len(p.data))
	return nil
}

// invalidUTF8 returns the index of the first byte of b that is not part
// of valid UTF-8, or -1.
func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// failUTF8 fails at the byte at off, which is not valid UTF-8. Such a
// string is refused rather than repaired: replacing the byte (as
// encoding/json does, with U+FFFD) would silently name another file.
func (p *jsonParser) failUTF8(off int) {
	p.fail(off, "invalid UTF-8 byte 0x%02x in string literal", p.data[off])
}

// slowStr parses a string with escapes into p.esc.
func (p *jsonParser) slowStr(start int) []byte {
	b := p.esc[:0]
	j := start + 1
	for j < len(p.data) {
		c := p.data[j]
		switch {
		case c == '"':
			p.i = j + 1
			p.esc = b
			return b
		case c < 0x20:
			p.fail(j, "invalid character %s in string literal", describeByte(c))
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(p.data[j:])
			if r == utf8.RuneError && n == 1 {
				p.failUTF8(j)
			}
			b = append(b, p.data[j:j+n]...)
			j += n
			continue
		case c != '\\':
			b = append(b, c)
			j++
			continue
		}
		if j+1 >= len(p.data) {
			break
		}
		e := p.data[j+1]
		j += 2
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := p.hex4(j)
			if !ok {
				p.fail(j, "invalid \\u escape in string literal")
			}
			j += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(-1), false
				if j+6 <= len(p.data) && p.data[j] == '\\' && p.data[j+1] == 'u' {
					r2, ok = p.hex4(j + 2)
				}
				d := utf16.DecodeRune(r, r2)
				if !ok || d == utf8.RuneError {
					// A lone surrogate names no character: refused, not
					// replaced by U+FFFD.
					p.fail(j-6, "invalid \\u escape in string literal: lone surrogate %s", p.data[j-6:j])
				}
				r = d
				j += 6
			}
			b = utf8.AppendRune(b, r)
		default:
			p.fail(j-1, "invalid escape character %s in string literal", describeByte(e))
		}
	}
	p.failEOF(len(p.data))
	return nil
}

func (p *jsonParser) hex4(j int) (rune, bool) {
	if j+4 > len(p.data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.data[j:j+4]), 16, 32)
	return rune(n), err == nil
}

// number parses a number, checking the JSON grammar.
func (p *jsonParser) number() json.Number {
	d, start := p.data, p.i
	j := p.i
	if j < len(d) && d[j] == '-' {
		j++
	}
	digits := func() bool {
		k := j
		for j < len(d) && d[j] >= '0' && d[j] <= '9' {
			j++
		}
		return j > k
	}
	switch {
	case j < len(d) && d[j] == '0':
		j++
	case !digits():
		p.failNumber(j)
	}
	if j < len(d) && d[j] == '.' {
		j++
		if !digits() {
			p.failNumber(j)
		}
	}
	if j < len(d) && (d[j] == 'e' || d[j] == 'E') {
		j++
		if j < len(d) && (d[j] == '+' || d[j] == '-') {
			j++
		}
		if !digits() {
			p.failNumber(j)
		}
	}
	p.i = j
	return json.Number(d[start:j])
}

func (p *jsonParser) failNumber(j int) {
	if j >= len(p.data) {
		p.failEOF(j)
	}
	p.fail(j, "invalid character %s in numeric literal", describeByte(p.data[j]))
}

// value parses any JSON value; null gives nil.
func (p *jsonParser) value(depth int) any {
	if depth > maxJSONDepth {
		p.fail(p.i, "value nested too deeply")
	}
	switch c := p.peek(); {
	case c == '"':
		return p.str(strValue)
	case c == '{':
		m := map[string]any{}
		p.object(func(k string, _ int) { m[k] = p.value(depth + 1) })
		return m
	case c == '[':
		l := []any{}
		p.array(func(int) { l = append(l, p.value(depth+1)) })
		return l
	case c == 't':
		p.literal("true")
		return true
	case c == 'f':
		p.literal("false")
		return false
	case c == 'n':
		p.literal("null")
		return nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	default:
		p.fail(p.i, "invalid character %s looking for beginning of value", describeByte(c))
	}
	return nil
}
