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

	// yamlRest is what followed the separator ("--- ") that ended the
	// last YAML document, on line yamlRestLine: the first line of the
	// next one.
	yamlRest     []byte
	yamlRestLine int

	// skipping is set when the last document was found too large before
	// its end: the next call reads the rest first, for JSON from scan.
	skipping bool
	scan     jsonScan

	// splitMin is the size of a resources array from which it is
	// decoded in two halves (resourcesSplit); 0 is defaultSplitMin.
	splitMin int

	maxDoc int // the largest document kept, in bytes (SetMaxDocument)
}

// DefaultMaxDocument is the size of the largest document a Decoder
// decodes unless told otherwise (SetMaxDocument): 256 MiB, some 1.7
// million files of one line each, 17 times the largest graph the project
// measures itself on.
const DefaultMaxDocument = 256 << 20

// SetMaxDocument sets the size in bytes of the largest document d decodes
// (n > 0). Next returns an error at the start of a larger one as soon as
// it has read n bytes of it, and the next call reads the rest without
// keeping it before it goes on with the next document: a producer gone
// wrong cannot make the reader hold an endless document, and its error is
// seen while it writes.
func (d *Decoder) SetMaxDocument(n int) {
	if n > 0 {
		d.maxDoc = n
	}
}

// tooLarge is the error of a document larger than d.maxDoc starting at
// start.
func (d *Decoder) tooLarge(start Position) error {
	return &PosError{Pos: start.String(), Msg: fmt.Sprintf("document larger than %s (--max-document-mib): skipped to its end", sizeString(d.maxDoc))}
}

// sizeString prints n bytes in MiB when it is a whole number of them.
func sizeString(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

const (
	modeUnknown = iota
	modeJSON
	modeYAML
)

// NewDecoder returns a decoder reading r; name is used in positions
// (FILE:LINE:COL), typically the file name or "-".
func NewDecoder(r io.Reader, name string) *Decoder {
	return &Decoder{src: newSource(r), name: name, line: 1, maxDoc: DefaultMaxDocument}
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
	if d.skipping {
		d.skipping = false
		if err := d.skip(); err != nil {
			return nil, err
		}
	}
	if d.mode == modeJSON {
		return d.nextJSON()
	}
	return d.nextYAML()
}

// skip reads the rest of a document found too large.
func (d *Decoder) skip() error {
	var err error
	if d.mode == modeJSON {
		_, _, _, err = d.frameJSON(true)
	} else {
		_, _, _, _, err = d.frameYAML(true)
	}
	return err
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
// stays unread, however the reads cut the stream.
func (d *Decoder) detect() (byte, error) {
	j := 0 // bytes of the unread data looked at
	for {
		data := d.src.unread()
		for ; j < len(data); j++ {
			switch c := data[j]; c {
			case '\n':
				d.line++
				d.src.discard(j + 1)
				data, j = d.src.unread(), -1
			case ' ', '\t', '\r':
			case '#':
				d.src.discard(j)
				d.skipLine()
				data, j = d.src.unread(), -1
			default:
				return c, nil
			}
		}
		if j > d.maxDoc {
			d.src.discard(j)
			return 0, d.tooLarge(d.pos(d.line, 1))
		}
		if err := d.src.more(); err != nil {
			return 0, err
		}
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

// jsonScan is the state of frameJSON between two bytes: the depth of
// brackets, and whether the byte is in a string, after a backslash in one,
// or first on its line.
type jsonScan struct {
	depth                 int
	inStr, esc, lineStart bool
}

// frameJSON reads one JSON document: from a '{' to its matching '}'. It
// returns the frame, a slice of the source's buffer valid until the next
// read, and whether it is complete. Once the document is found larger
// than d.maxDoc, frameJSON returns big and no frame at once, and sets
// d.skipping: the next call, with skip, reads the rest of the document
// (from d.scan) without keeping it.
func (d *Decoder) frameJSON(skip bool) (frame []byte, complete, big bool, err error) {
	st := &d.scan
	if !skip {
		*st = jsonScan{}
	}
	j := 0
	for {
		data := d.src.unread()
		for ; j < len(data); j++ {
			c := data[j]
			if st.lineStart {
				st.lineStart = false
				if c == '{' && st.depth > 0 {
					d.src.discard(j)
					return d.framed(data[:j], false, skip)
				}
			}
			if st.inStr {
				switch {
				case st.esc:
					st.esc = false
				case c == '\\':
					st.esc = true
				case c == '"':
					st.inStr = false
				case c == '\n':
					st.inStr = false
					d.line++
					d.col = 0
					st.lineStart = true
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
				st.inStr = true
			case '{', '[':
				st.depth++
			case '}', ']':
				st.depth--
				if st.depth <= 0 {
					d.src.discard(j + 1)
					d.advanceCol(data[:j+1])
					return d.framed(data[:j+1], true, skip)
				}
			case '\n':
				d.line++
				d.col = 0
				st.lineStart = true
			}
		}
		if skip || len(data) > d.maxDoc {
			// What is read of a document too large is let go; the
			// scan and the line go on.
			d.src.discard(len(data))
			d.advanceCol(data)
			if !skip {
				d.skipping = true
				return nil, false, true, nil
			}
			data, j = nil, 0
		}
		if err := d.src.more(); err != nil {
			d.src.discard(len(data))
			if err == io.EOF {
				err = nil
			}
			frame, complete, big, _ := d.framed(data, false, skip)
			return frame, complete, big, err
		}
	}
}

// framed returns what frameJSON returns for the frame it read: nothing when
// it skipped, big when the frame is larger than d.maxDoc.
func (d *Decoder) framed(frame []byte, complete, skip bool) ([]byte, bool, bool, error) {
	switch {
	case skip:
		return nil, complete, false, nil
	case len(frame) > d.maxDoc:
		return nil, complete, true, nil
	}
	return frame, complete, false, nil
}

// advanceCol sets d.col after reading b, which starts at column d.col and
// whose newlines d.line counts already.
func (d *Decoder) advanceCol(b []byte) {
	if nl := bytes.LastIndexByte(b, '\n'); nl >= 0 {
		d.col = len(b) - 1 - nl
	} else {
		d.col += len(b)
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
	// Fast path, for JSON lines: parse the line as the document, unless
	// it is longer than the largest document.
	line, nl, err := d.peekLine()
	if err != nil && err != io.EOF {
		return nil, err
	}
	if len(line) > d.maxDoc {
		// peekLine stopped there
	} else if doc, eof, err := tryDecodeJSON(line, start, d.splitMin); !eof {
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
	frame, complete, big, err := d.frameJSON(false)
	if err != nil {
		return nil, err
	}
	if big {
		return nil, d.tooLarge(start)
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
// consuming it; nl tells whether a newline follows. It stops looking once
// it has more than d.maxDoc bytes.
func (d *Decoder) peekLine() (line []byte, nl bool, err error) {
	j := 0
	for {
		data := d.src.unread()
		if i := bytes.IndexByte(data[j:], '\n'); i >= 0 {
			return data[:j+i], true, nil
		}
		j = len(data)
		if j > d.maxDoc {
			return data, false, nil
		}
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
