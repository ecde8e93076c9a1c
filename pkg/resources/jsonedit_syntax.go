package resources

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// A jsonEdit is one parsed edit of json:edit: set the value at path, or
// delete it.
type jsonEdit struct {
	path  []string
	del   bool
	value json.RawMessage // the value to set, decoded afresh at each use
}

// parseJSONEdit parses one edit:
//
//	edit  = path ws "=" ws VALUE | "del" ws "(" ws path ws ")"
//	path  = "." step { step }      (the first step may not be bracketed
//	step  = IDENT | "." IDENT | "[" STRING "]" | ".[" STRING "]"  without its dot)
//
// where IDENT is [A-Za-z_][A-Za-z0-9_]*, STRING a non-empty JSON string
// and VALUE exactly one JSON value. Errors give the column (from 1).
func parseJSONEdit(s string) (jsonEdit, error) {
	p := &editParser{s: s}
	var e jsonEdit
	p.space()
	if strings.HasPrefix(p.s[p.i:], "del") {
		p.i += 3
		p.space()
		if err := p.expect('('); err != nil {
			return e, err
		}
		p.space()
		path, err := p.path()
		if err != nil {
			return e, err
		}
		p.space()
		if err := p.expect(')'); err != nil {
			return e, err
		}
		p.space()
		if p.i < len(p.s) {
			return e, p.errorf("unexpected %q after del(...)", p.s[p.i:])
		}
		return jsonEdit{path: path, del: true}, nil
	}
	path, err := p.path()
	if err != nil {
		return e, err
	}
	p.space()
	if err := p.expect('='); err != nil {
		return e, err
	}
	p.space()
	value, err := p.value()
	if err != nil {
		return e, err
	}
	return jsonEdit{path: path, value: value}, nil
}

// An editParser reads one edit.
type editParser struct {
	s string
	i int
}

func (p *editParser) errorf(format string, v ...any) error {
	return fmt.Errorf("column %d: %s", p.i+1, fmt.Sprintf(format, v...))
}

func (p *editParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *editParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *editParser) expect(c byte) error {
	if p.peek() != c {
		if p.i >= len(p.s) {
			return p.errorf("want %q, got the end", c)
		}
		return p.errorf("want %q, got %q", c, p.s[p.i])
	}
	p.i++
	return nil
}

// path reads a path of at least one step.
func (p *editParser) path() ([]string, error) {
	if p.peek() != '.' {
		return nil, p.errorf("want a path starting with '.'")
	}
	var out []string
	for first := true; ; first = false {
		dot := p.peek() == '.'
		if dot {
			p.i++
		} else if first || p.peek() != '[' {
			break
		}
		var k string
		var err error
		switch c := p.peek(); {
		case c == '[':
			k, err = p.bracket()
		case isIdentStart(c):
			k = p.ident()
		case dot:
			return nil, p.errorf("want a name or [\"key\"] after '.'")
		}
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func (p *editParser) ident() string {
	start := p.i
	for p.i < len(p.s) && (isIdentStart(p.s[p.i]) || p.s[p.i] >= '0' && p.s[p.i] <= '9') {
		p.i++
	}
	return p.s[start:p.i]
}

// bracket reads ["key"].
func (p *editParser) bracket() (string, error) {
	p.i++ // [
	p.space()
	if p.peek() != '"' {
		return "", p.errorf("want a JSON string after '['")
	}
	start := p.i
	for p.i++; p.i < len(p.s) && p.s[p.i] != '"'; p.i++ {
		if p.s[p.i] == '\\' {
			p.i++
		}
	}
	if p.i >= len(p.s) {
		return "", p.errorf("unterminated string")
	}
	p.i++
	var k string
	if err := json.Unmarshal([]byte(p.s[start:p.i]), &k); err != nil {
		p.i = start
		return "", p.errorf("bad JSON string: %v", err)
	}
	if k == "" {
		p.i = start
		return "", p.errorf("empty key")
	}
	p.space()
	return k, p.expect(']')
}

// value reads exactly one JSON value, up to the end of the edit.
func (p *editParser) value() (json.RawMessage, error) {
	rest := p.s[p.i:]
	dec := json.NewDecoder(strings.NewReader(rest))
	dec.UseNumber()
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		if err == io.EOF {
			return nil, p.errorf("want a JSON value after '='")
		}
		return nil, p.errorf("bad JSON value: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		p.i += int(dec.InputOffset())
		return nil, p.errorf("want exactly one JSON value")
	}
	return raw, nil
}

// apply applies the edit to doc. Setting creates missing objects along the
// path; deleting a path that is not there does nothing; going through a
// value that is not an object is an error.
func (e jsonEdit) apply(doc map[string]any) error {
	m := doc
	for i, k := range e.path[:len(e.path)-1] {
		v, ok := m[k]
		if !ok {
			if e.del {
				return nil
			}
			n := map[string]any{}
			m[k] = n
			m = n
			continue
		}
		n, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is %s, not an object", formatJSONPath(e.path[:i+1]), jsonKindName(v))
		}
		m = n
	}
	last := e.path[len(e.path)-1]
	if e.del {
		delete(m, last)
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(e.value))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	m[last] = v
	return nil
}

// formatJSONPath writes a path back in the edit syntax.
func formatJSONPath(path []string) string {
	var b strings.Builder
	for _, k := range path {
		if k != "" && isIdentStart(k[0]) && strings.IndexFunc(k, func(r rune) bool {
			return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) < 0 {
			b.WriteString("." + k)
			continue
		}
		q, _ := json.Marshal(k)
		b.WriteString(".[" + string(q) + "]")
	}
	return b.String()
}
