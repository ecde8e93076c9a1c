package graph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Keys of a graph.yaml resource item that are not parameters. The
// underscore keeps pos and origin apart from parameters of the same name.
const (
	yamlPosKey    = "_pos"
	yamlOriginKey = "_origin"
)

// isYAMLSeparator reports whether line (without its newline) separates
// documents; rest is what follows "--- " on the same line.
func isYAMLSeparator(line []byte) (sep bool, rest []byte) {
	l := bytes.TrimRight(line, " \t\r")
	if bytes.Equal(l, []byte("---")) || bytes.Equal(l, []byte("...")) {
		return true, nil
	}
	if bytes.HasPrefix(l, []byte("--- ")) || bytes.HasPrefix(l, []byte("---\t")) {
		return true, l[4:]
	}
	return false, nil
}

// readLine appends the next line, without its newline, to dst; eof is
// set when the stream ended, and long when the line alone is longer than
// the largest document (the line is then left out).
func (d *Decoder) readLine(dst []byte) (line []byte, eof, long bool, err error) {
	l, eof, long, err := d.src.readLine(d.maxDoc)
	if !eof {
		d.line++
	}
	return append(dst, l...), eof, long, err
}

// isBlankYAML reports whether line holds nothing but space or a comment.
func isBlankYAML(line []byte) bool {
	t := bytes.TrimLeft(line, " \t\r")
	return len(t) == 0 || t[0] == '#'
}

// frameYAML reads the lines of one YAML document. Once the document is
// found larger than d.maxDoc, frameYAML returns big and no frame at once,
// and sets d.skipping: the next call, with skip, reads the rest of the
// document without keeping it.
func (d *Decoder) frameYAML(skip bool) (frame []byte, start int, eof, big bool, err error) {
	frame = d.buf[:0]
	defer func() { d.buf = frame[:0] }()
	start = d.line
	blank := !skip // the document skipped has begun
	if d.yamlRest != nil {
		// The document starts on the separator line that ended the
		// one before ("--- {graph: b}").
		frame = append(append(frame, d.yamlRest...), '\n')
		start, blank, d.yamlRest = d.yamlRestLine, false, nil
	}
	for {
		at, lineNo := len(frame), d.line
		var line []byte
		var long bool
		line, eof, long, err = d.readLine(frame)
		if err != nil {
			return nil, start, true, false, err
		}
		frame = line
		lineText := frame[at:]
		if sep, rest := isYAMLSeparator(lineText); sep && !long {
			frame = frame[:at]
			if !blank {
				if !isBlankYAML(rest) {
					d.yamlRest, d.yamlRestLine = bytes.Clone(rest), lineNo
				}
				return frame, start, eof, false, nil
			}
			frame = append(frame[:0], rest...)
			frame = append(frame, '\n')
			blank = isBlankYAML(rest)
			start = lineNo // the frame's first line is what follows the separator on its line
			if eof {
				return frame, start, eof, false, nil
			}
			continue
		}
		frame = append(frame, '\n')
		if blank && (long || !isBlankYAML(lineText)) {
			blank = false
		}
		if skip {
			frame = frame[:0]
		} else if long || len(frame) > d.maxDoc {
			d.skipping = !eof
			return frame[:0], start, eof, true, nil
		}
		if eof {
			if blank {
				frame = frame[:0]
			}
			return frame, start, eof, false, nil
		}
	}
}

func (d *Decoder) nextYAML() (*Document, error) {
	for {
		frame, start, eof, big, err := d.frameYAML(false)
		if err != nil {
			return nil, err
		}
		if big {
			return nil, d.tooLarge(d.pos(start, 1))
		}
		first := -1 // the first significant line, counted in the frame
		for i, l := range bytes.Split(frame, []byte{'\n'}) {
			if !isBlankYAML(l) {
				first = i
				break
			}
		}
		if first < 0 {
			if eof {
				return nil, io.EOF
			}
			continue
		}
		return decodeYAMLFrame(frame, d.pos(start, 1), d.pos(start+first, 1))
	}
}

var yamlLineRE = regexp.MustCompile(`line (\d+): `)

// yamlError turns a yaml.v3 error into a positioned error, with the line
// counted in the whole stream.
func yamlError(err error, start Position) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n  ")
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	p := Position{File: start.File, Line: start.Line}
	if m := yamlLineRE.FindStringSubmatchIndex(msg); m != nil && m[0] == 0 {
		n, _ := strconv.Atoi(msg[m[2]:m[3]])
		p.Line = start.Line + n - 1
		msg = msg[m[1]:]
	}
	return &PosError{Pos: p.String(), Msg: msg}
}

// decodeYAMLFrame parses one graph.yaml document whose first line is at
// start and first significant line at at.
func decodeYAMLFrame(frame []byte, start, at Position) (*Document, error) {
	if k := invalidUTF8(frame); k >= 0 {
		// yaml.v3 refuses it too, but at the line where its read buffer
		// starts: name the byte.
		line := bytes.Count(frame[:k], []byte{'\n'})
		col := k - (bytes.LastIndexByte(frame[:k], '\n') + 1) + 1
		p := Position{File: start.File, Line: start.Line + line, Col: col}
		return nil, &PosError{Pos: p.String(), Msg: fmt.Sprintf("invalid UTF-8 byte 0x%02x", frame[k])}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(frame, &root); err != nil {
		return nil, yamlError(err, start)
	}
	c := &yconv{file: start.File, shift: start.Line - 1, seen: map[*yaml.Node]bool{}}
	c.shiftLines(&root)
	n := &root
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	doc := c.document(n)
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	doc.At = at
	doc.Warnings = c.warns
	if err := doc.finish(at); err != nil {
		return nil, err
	}
	return doc, nil
}

// yconv converts a yaml.Node tree to a Document, collecting errors.
type yconv struct {
	file   string
	shift  int
	seen   map[*yaml.Node]bool
	errs   ErrorList
	warns  []string // see Document.Warnings
	size   int      // nodes in the tree, each counted once
	nodes  int      // nodes visited converting values, aliases expanded
	tooBig bool
}

func (c *yconv) shiftLines(n *yaml.Node) {
	if n == nil || c.seen[n] {
		return
	}
	c.seen[n] = true
	c.size++
	n.Line += c.shift
	for _, k := range n.Content {
		c.shiftLines(k)
	}
	c.shiftLines(n.Alias)
}

func (c *yconv) at(n *yaml.Node) Position {
	return Position{File: c.file, Line: n.Line, Col: n.Column}
}

func (c *yconv) errorf(n *yaml.Node, format string, args ...any) {
	c.errs.Add(c.at(n).String(), format, args...)
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func yamlKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "sequence"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return "string"
		case "!!int":
			return "integer"
		case "!!float":
			return "float"
		case "!!bool":
			return "boolean"
		case "!!null":
			return "null"
		}
		return n.ShortTag()
	}
	return "alias"
}

// str reads a string scalar; any non-null scalar is accepted as its text.
func (c *yconv) str(n *yaml.Node, what string) string {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		c.errorf(n, "%s: got %s, want string", what, yamlKind(n))
		return ""
	}
	return n.Value
}

func (c *yconv) mapping(n *yaml.Node, what string) bool {
	if n.Kind != yaml.MappingNode {
		c.errorf(n, "%s: got %s, want mapping", what, yamlKind(n))
		return false
	}
	return true
}

func (c *yconv) document(n *yaml.Node) *Document {
	doc := &Document{Mgmt: Version}
	n = deref(n)
	if n == nil || !c.mapping(n, "document") {
		return doc
	}
	collected := map[string]bool{}
	defer func() { c.collectExported(doc.Resources, collected) }()
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		switch key := k.Value; key {
		case "mgmt":
			doc.Mgmt = c.str(v, key)
		case "graph":
			doc.Graph = c.str(v, key)
		case "seq":
			if err := v.Decode(&doc.Seq); err != nil {
				c.errorf(v, "seq: got %s, want integer", yamlKind(v))
			}
		case "source":
			doc.Source = c.str(v, key)
		case "comment", "remote":
		case "resources":
			doc.Resources = c.resources(v)
		case "edges":
			doc.Edges = c.edges(v)
		case "collect":
			collected = c.collectKinds(v)
		case "error":
			doc.Error = c.errorDoc(v)
		default:
			c.errorf(k, "unknown field %q", key)
		}
	}
	return doc
}

func (c *yconv) errorDoc(n *yaml.Node) *Error {
	e := &Error{}
	if !c.mapping(n, "error") {
		return e
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "message":
			e.Message = c.str(v, "error.message")
		case "pos":
			e.Pos = c.str(v, "error.pos")
		default:
			c.errorf(k, "error: unknown field %q", k.Value)
		}
	}
	return e
}

func (c *yconv) resources(n *yaml.Node) []*Resource {
	if n.ShortTag() == "!!null" {
		return nil
	}
	if !c.mapping(n, "resources") {
		return nil
	}
	var out []*Resource
	for i := 0; i+1 < len(n.Content); i += 2 {
		kind := c.str(n.Content[i], "resource kind")
		list := deref(n.Content[i+1])
		if list.ShortTag() == "!!null" {
			continue
		}
		if list.Kind != yaml.SequenceNode {
			c.errorf(list, "resources.%s: got %s, want sequence", kind, yamlKind(list))
			continue
		}
		for _, item := range list.Content {
			if r := c.resource(kind, deref(item)); r != nil {
				out = append(out, r)
			}
		}
	}
	return out
}

func (c *yconv) resource(kind string, n *yaml.Node) *Resource {
	if !c.mapping(n, "resources."+kind+" item") {
		return nil
	}
	r := &Resource{Kind: kind, At: c.at(n)}
	hasName := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		switch key := c.str(k, "parameter name"); key {
		case "name":
			r.Name, hasName = c.str(v, kind+" name"), true
		case "meta":
			r.Meta = c.meta(v)
		case yamlPosKey:
			r.Pos = c.str(v, yamlPosKey)
		case yamlOriginKey:
			r.Origin = c.str(v, yamlOriginKey)
		default:
			if s, ok := LookupKind(kind); ok {
				if instead, retired := s.Retired[key]; retired {
					c.warns = append(c.warns, fmt.Sprintf("%s: %s: parameter %q is retired and left out (%s)",
						c.at(k), kind, key, instead))
					continue
				}
			}
			val, ok := c.value(v, 0)
			if !ok {
				continue
			}
			if val == nil {
				continue
			}
			if r.Params == nil {
				r.Params = map[string]any{}
			}
			r.Params[key] = val
		}
	}
	if !hasName {
		c.errorf(n, "%s resource without a name", kind)
	}
	return r
}

// value converts a parameter value. Numbers become json.Number, null
// becomes nil (the parameter is absent).
func (c *yconv) value(n *yaml.Node, depth int) (any, bool) {
	n = deref(n)
	if c.tooBig {
		return nil, false // already reported
	}
	c.nodes++
	// Aliases may repeat a subtree many times ("billion laughs"): the
	// expanded values may hold at most a few times the document's nodes.
	if depth > 100 || c.nodes > 4*c.size+10_000 {
		c.errorf(n, "value nested too deeply or too large")
		c.tooBig = true
		return nil, false
	}
	switch n.Kind {
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			v, ok := c.value(e, depth+1)
			if !ok {
				return nil, false
			}
			if v == nil {
				c.errorf(e, "null in a list")
				return nil, false
			}
			out = append(out, v)
		}
		return out, true
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := c.str(n.Content[i], "map key")
			v, ok := c.value(n.Content[i+1], depth+1)
			if !ok {
				return nil, false
			}
			if v == nil {
				c.errorf(n.Content[i+1], "null map value")
				return nil, false
			}
			out[k] = v
		}
		return out, true
	case yaml.ScalarNode:
		return c.scalar(n)
	}
	c.errorf(n, "unsupported YAML value")
	return nil, false
}

func (c *yconv) scalar(n *yaml.Node) (any, bool) {
	switch n.ShortTag() {
	case "!!null":
		return nil, true
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			c.errorf(n, "bad boolean %q", n.Value)
			return nil, false
		}
		return b, true
	case "!!int", "!!float":
		// A number already in JSON syntax keeps its text, so that JSON
		// and YAML carry the same json.Number.
		if isJSONNumber(n.Value) {
			return json.Number(n.Value), true
		}
	}
	switch n.ShortTag() {
	case "!!int":
		if i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			return json.Number(strconv.FormatInt(i, 10)), true
		}
		var i int64
		if err := n.Decode(&i); err == nil {
			return json.Number(strconv.FormatInt(i, 10)), true
		}
		var u uint64
		if err := n.Decode(&u); err == nil {
			return json.Number(strconv.FormatUint(u, 10)), true
		}
		c.errorf(n, "integer %s out of range", n.Value)
		return nil, false
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			c.errorf(n, "float %s cannot be represented", n.Value)
			return nil, false
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), true
	}
	return n.Value, true
}

// isJSONNumber reports whether s is a number in JSON syntax.
func isJSONNumber(s string) bool {
	i := 0
	digits := func() bool {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(s)
}

// metaFields maps the yaml names of Meta's fields to their index.
var metaFields = func() map[string]int {
	m := map[string]int{}
	t := reflect.TypeOf(Meta{})
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		m[name] = i
	}
	return m
}()

func (c *yconv) meta(n *yaml.Node) *Meta {
	if n.ShortTag() == "!!null" {
		return nil
	}
	m := &Meta{}
	if !c.mapping(n, "meta") {
		return m
	}
	mv := reflect.ValueOf(m).Elem()
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		idx, ok := metaFields[k.Value]
		if !ok {
			c.errorf(k, "meta: unknown metaparameter %q", k.Value)
			continue
		}
		f := mv.Field(idx)
		if err := v.Decode(f.Addr().Interface()); err != nil {
			c.errorf(v, "meta.%s: got %s, want %s", k.Value, yamlKind(v), jsonKind(f.Type()))
		}
	}
	if m.Limit != nil && math.IsInf(*m.Limit, 1) {
		m.Limit = nil // upstream writes the default, no limit, as .inf
	}
	return m
}

func (c *yconv) ref(n *yaml.Node, what string) Ref {
	n = deref(n)
	var r Ref
	if !c.mapping(n, what) {
		return r
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "kind":
			r.Kind = c.str(v, what+".kind")
		case "name":
			r.Name = c.str(v, what+".name")
		default:
			c.errorf(k, "%s: unknown field %q", what, k.Value)
		}
	}
	return r
}

func (c *yconv) edges(n *yaml.Node) []*Edge {
	if n.ShortTag() == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		c.errorf(n, "edges: got %s, want sequence", yamlKind(n))
		return nil
	}
	var out []*Edge
	for _, item := range n.Content {
		item = deref(item)
		if !c.mapping(item, "edge") {
			continue
		}
		e := &Edge{At: c.at(item)}
		for i := 0; i+1 < len(item.Content); i += 2 {
			k, v := item.Content[i], deref(item.Content[i+1])
			switch k.Value {
			case "name":
			case "from":
				e.From = c.ref(v, "edge from")
			case "to":
				e.To = c.ref(v, "edge to")
			case "notify":
				if err := v.Decode(&e.Notify); err != nil {
					c.errorf(v, "edge notify: got %s, want boolean", yamlKind(v))
				}
			case "send":
				e.Send = c.str(v, "edge send")
			case "recv":
				e.Recv = c.str(v, "edge recv")
			default:
				c.errorf(k, "edge: unknown field %q", k.Value)
			}
		}
		out = append(out, e)
	}
	return out
}
