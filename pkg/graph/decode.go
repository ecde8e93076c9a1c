package graph

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
)

// A Decoder reads graph documents from a stream. The first significant byte
// decides the syntax of the whole stream: '{' means JSON (one document per
// line, or pretty-printed documents whose first line starts with '{' in
// column 1), anything else means upstream mgmt's graph.yaml, single or
// separated by "---" lines (a "..." line also ends a document).
//
// The decoder frames documents itself before parsing them, so a bad
// document costs only itself: Next returns its error and the following call
// carries on with the next document. A JSON document is first parsed as
// the line it starts on; if it runs past that line, framing counts
// brackets outside strings, and a line starting with '{' while a document
// is still open ends that document as truncated. YAML framing splits on
// separator lines.
type Decoder struct {
	src  *source
	name string
	mode int

	line int    // line of the next unread byte, from 1
	col  int    // bytes already read on that line
	buf  []byte // YAML frame

	// splitMin is the size of a resources array from which it is
	// decoded in two halves (resourcesSplit); 0 is defaultSplitMin.
	splitMin int
}

const (
	modeUnknown = iota
	modeJSON
	modeYAML
)

// NewDecoder returns a decoder reading r; name is used in positions
// (FILE:LINE:COL), typically the file name or "-".
func NewDecoder(r io.Reader, name string) *Decoder {
	return &Decoder{src: newSource(r), name: name, line: 1}
}

// Next returns the next document of the stream. At the end of the stream it
// returns io.EOF. A document that cannot be decoded gives a nil document and
// a *PosError (or ErrorList) naming its position; calling Next again goes on
// with the following document. Any other error is a read error of the
// underlying reader and is returned again by every later call.
func (d *Decoder) Next() (doc *Document, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, &PosError{Pos: d.pos(d.line, 0).String(), Msg: fmt.Sprintf("cannot decode document: %v", r)}
		}
	}()
	if d.mode == modeUnknown {
		c, err := d.detect()
		if err != nil {
			return nil, err
		}
		d.mode = modeYAML
		if c == '{' {
			d.mode = modeJSON
		}
	}
	defer d.src.release()
	if d.mode == modeJSON {
		return d.nextJSON()
	}
	return d.nextYAML()
}

// ReadAll decodes every document of r. It stops at the first error.
func ReadAll(r io.Reader, name string) ([]*Document, error) {
	d := NewDecoder(r, name)
	var out []*Document
	for {
		doc, err := d.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, doc)
	}
}

func (d *Decoder) pos(line, col int) Position { return Position{File: d.name, Line: line, Col: col} }

// fill makes sure some bytes are buffered and returns them.
func (d *Decoder) fill() ([]byte, error) { return d.src.fill() }

// detect consumes blank and comment lines and returns the first
// significant byte of the stream. The indentation of the line holding it
// stays unread.
func (d *Decoder) detect() (byte, error) {
	for {
		b, err := d.fill()
		if err != nil {
			return 0, err
		}
		lineStart := 0
		for i, c := range b {
			switch c {
			case '\n':
				d.line++
				lineStart = i + 1
			case ' ', '\t', '\r':
			case '#':
				d.src.discard(i)
				d.skipLine()
				goto next
			default:
				d.src.discard(lineStart)
				return c, nil
			}
		}
		if lineStart == 0 {
			lineStart = len(b)
		}
		d.src.discard(lineStart)
	next:
	}
}

// skipSpace consumes white space and returns the next byte without
// consuming it.
func (d *Decoder) skipSpace() (byte, error) {
	for {
		b, err := d.fill()
		if err != nil {
			return 0, err
		}
		for i, c := range b {
			switch c {
			case '\n':
				d.line++
				d.col = 0
			case ' ', '\t', '\r':
				d.col++
			default:
				d.src.discard(i)
				return c, nil
			}
		}
		d.src.discard(len(b))
	}
}

// skipLine consumes the rest of the current line, newline included.
func (d *Decoder) skipLine() {
	for {
		b, err := d.fill()
		if err != nil {
			return
		}
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			d.src.discard(i + 1)
			d.line++
			d.col = 0
			return
		}
		d.src.discard(len(b))
	}
}

// frameJSON reads one JSON document: from a '{' to its matching '}'. It
// returns the frame, a slice of the source's buffer valid until the next
// read, and whether it is complete.
func (d *Decoder) frameJSON() (frame []byte, complete bool, err error) {
	depth := 0
	inStr, esc, lineStart := false, false, false
	j := 0
	for {
		data := d.src.unread()
		for ; j < len(data); j++ {
			c := data[j]
			if lineStart {
				lineStart = false
				if c == '{' && depth > 0 {
					d.src.discard(j)
					return data[:j], false, nil
				}
			}
			if inStr {
				switch {
				case esc:
					esc = false
				case c == '\\':
					esc = true
				case c == '"':
					inStr = false
				case c == '\n':
					inStr = false
					d.line++
					d.col = 0
					lineStart = true
				}
				continue
			}
			switch c {
			case '"':
				// Jump to the closing quote when no escape or newline
				// comes before it; otherwise go byte by byte.
				if q := bytes.IndexByte(data[j+1:], '"'); q >= 0 {
					seg := data[j+1 : j+1+q]
					if bytes.IndexByte(seg, '\\') < 0 && bytes.IndexByte(seg, '\n') < 0 {
						j += q + 1
						continue
					}
				}
				inStr = true
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth <= 0 {
					d.src.discard(j + 1)
					if nl := bytes.LastIndexByte(data[:j+1], '\n'); nl >= 0 {
						d.col = j - nl
					} else {
						d.col += j + 1
					}
					return data[:j+1], true, nil
				}
			case '\n':
				d.line++
				d.col = 0
				lineStart = true
			}
		}
		if err := d.src.more(); err != nil {
			d.src.discard(len(data))
			if err == io.EOF {
				return data, false, nil
			}
			return data, false, err
		}
	}
}

func (d *Decoder) nextJSON() (*Document, error) {
	c, err := d.skipSpace()
	if err != nil {
		return nil, err
	}
	start := d.pos(d.line, d.col+1)
	if c != '{' {
		d.skipLine()
		return nil, &PosError{Pos: start.String(), Msg: fmt.Sprintf("expected '{' to start a JSON graph document, got %s", quoteByte(c))}
	}
	// Fast path, for JSON lines: parse the line as the document.
	line, nl, err := d.peekLine()
	if err != nil && err != io.EOF {
		return nil, err
	}
	if doc, eof, err := tryDecodeJSON(line, start, d.splitMin); !eof {
		d.src.discard(len(line))
		if nl {
			d.src.discard(1)
			d.line++
			d.col = 0
		}
		return doc, err
	}
	// The document goes on after the line (pretty-printed JSON) or ends
	// early: frame it by counting brackets.
	frame, complete, err := d.frameJSON()
	if err != nil && err != io.EOF {
		return nil, err
	}
	if !complete {
		end := posIn(frame, start, len(bytes.TrimRight(frame, " \t\r\n")))
		msg := msgTruncated
		if len(d.src.unread()) > 0 {
			// Not the end of the input: the frame stopped at a line
			// starting with '{'. Either a producer died in the middle
			// of a document and the next one starts, or a hand-written
			// document does not indent its lines.
			msg = fmt.Sprintf("%s: line %d starts with '{', which begins the next document; a document written over several lines must indent the lines inside it",
				msg, posIn(frame, start, len(frame)).Line)
		}
		return nil, &PosError{Pos: end.String(), Msg: msg}
	}
	doc, _, err := tryDecodeJSON(frame, start, d.splitMin)
	return doc, err
}

// peekLine returns the unread data up to the next newline, without
// consuming it; nl tells whether a newline follows.
func (d *Decoder) peekLine() (line []byte, nl bool, err error) {
	j := 0
	for {
		data := d.src.unread()
		if i := bytes.IndexByte(data[j:], '\n'); i >= 0 {
			return data[:j+i], true, nil
		}
		j = len(data)
		if err := d.src.more(); err != nil {
			return d.src.unread(), false, err
		}
	}
}

// posIn returns the position of byte off of frame, which starts at start.
func posIn(frame []byte, start Position, off int) Position {
	if off > len(frame) {
		off = len(frame)
	}
	if off < 0 {
		off = 0
	}
	p := start
	head := frame[:off]
	if n := bytes.Count(head, []byte{'\n'}); n > 0 {
		p.Line += n
		p.Col = off - bytes.LastIndexByte(head, '\n')
	} else {
		p.Col += off
	}
	return p
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fmt.Sprintf("integer (%s)", t.Kind())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fmt.Sprintf("non-negative integer (%s)", t.Kind())
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return t.String()
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// finish checks what every decoded document must satisfy and records
// positions: the mgmt tag, and no null resources or edges.
func (doc *Document) finish(start Position) error {
	doc.At = start
	if doc.Mgmt != Version {
		msg := fmt.Sprintf("unknown mgmt tag %q, want %q", doc.Mgmt, Version)
		if doc.Mgmt == "" {
			msg = fmt.Sprintf("missing mgmt tag, want \"mgmt\": %q", Version)
		}
		return &PosError{Pos: start.String(), Msg: msg}
	}
	var errs ErrorList
	for i, r := range doc.Resources {
		if r == nil {
			errs.Add(start.String(), "resources[%d]: got null, want object", i)
			continue
		}
		if !r.At.IsValid() {
			r.At = start
		}
		// A null parameter is left out by the decoders themselves.
	}
	for i, e := range doc.Edges {
		if e == nil {
			errs.Add(start.String(), "edges[%d]: got null, want object", i)
			continue
		}
		if !e.At.IsValid() {
			e.At = start
		}
	}
	return errs.Err()
}
