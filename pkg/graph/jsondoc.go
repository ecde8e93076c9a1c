package graph

// The document's own fields: the keys it knows, resources, metaparameters,
// edges and references, read by the jsonParser of jsondec.go.

import (
	"bytes"
	"math"
	"strconv"
)

// knownKey reads an object key of the document format without hashing or
// allocating: the switch compares bytes and returns a constant.
func (p *jsonParser) knownKey() (string, bool) {
	end := bytes.IndexByte(p.data[p.i+1:], '"')
	if end < 0 || end > 12 {
		return "", false
	}
	raw := p.data[p.i+1 : p.i+1+end]
	var k string
	switch string(raw) {
	case "kind":
		k = "kind"
	case "name":
		k = "name"
	case "from":
		k = "from"
	case "to":
		k = "to"
	case "params":
		k = "params"
	case "meta":
		k = "meta"
	case "pos":
		k = "pos"
	case "origin":
		k = "origin"
	case "notify":
		k = "notify"
	case "send":
		k = "send"
	case "recv":
		k = "recv"
	case "resources":
		k = "resources"
	case "edges":
		k = "edges"
	default:
		return "", false
	}
	p.i += end + 2
	return k, true
}

// param parses a parameter value. Short strings, which repeat a lot
// ("exists", "0644"), are shared within the document, boxed once; the
// first maxSharedValues of them only, so that a document of unique values
// does not grow a table of them.
func (p *jsonParser) param() any {
	if p.peek() != '"' {
		return p.value(1)
	}
	start := p.i
	end := bytes.IndexByte(p.data[start+1:], '"')
	if end < 0 || end > 64 {
		return p.str(strValue)
	}
	// A value shared is the text of its raw bytes, without escapes (a
	// string such as "a\\" ends at its first quote and has one): it
	// matches only a string without them, whose first quote ends it.
	raw := p.data[start+1 : start+1+end]
	slot := &p.recentValues[recentSlot(raw)]
	if slot.v != nil && slot.s == string(raw) {
		p.i = start + end + 2
		return slot.v
	}
	if v, ok := p.values[string(raw)]; ok {
		p.i = start + end + 2
		slot.s, slot.v = v.(string), v
		return v
	}
	s := p.str(strValue)
	if p.i == start+end+2 && len(p.values) < maxSharedValues && bytes.IndexByte(raw, '\\') < 0 { // raw is s
		var v any = s
		p.values[s] = v
		slot.s, slot.v = s, v
		return v
	}
	return s
}

const maxSharedValues = 4096

// Typed fields.

func (p *jsonParser) stringField(dest strDest) string {
	if p.peek() != '"' {
		if p.null() {
			return ""
		}
		p.wrongType("string")
	}
	return p.str(dest)
}

func (p *jsonParser) boolField() bool {
	switch p.peek() {
	case 't':
		p.literal("true")
		return true
	case 'f':
		p.literal("false")
		return false
	case 'n':
		p.literal("null")
		return false
	}
	p.wrongType("boolean")
	return false
}

// intField parses an integer within [lo, hi].
func (p *jsonParser) intField(lo, hi float64) int64 {
	if p.null() {
		return 0
	}
	off := p.i
	if k := p.kindOf(); k != "number" {
		p.wrongType("integer")
	}
	n := p.number()
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil || float64(i) < lo || float64(i) > hi {
		p.fail(off, "%s: got %s, want an integer from %.0f to %.0f", p.path(), n, lo, hi)
	}
	return i
}

func (p *jsonParser) uintField() uint64 {
	if p.null() {
		return 0
	}
	off := p.i
	if k := p.kindOf(); k != "number" {
		p.wrongType("integer")
	}
	n := p.number()
	u, err := strconv.ParseUint(string(n), 10, 64)
	if err != nil {
		p.fail(off, "%s: got %s, want a non-negative integer", p.path(), n)
	}
	return u
}

func (p *jsonParser) floatField() float64 {
	off := p.i
	if k := p.kindOf(); k != "number" {
		p.wrongType("number")
	}
	f, err := strconv.ParseFloat(string(p.number()), 64)
	if err != nil {
		p.fail(off, "%s: number out of range", p.path())
	}
	return f
}

func (p *jsonParser) stringList() []string {
	if p.null() {
		return nil
	}
	out := []string{}
	p.array(func(int) { out = append(out, p.stringField(strDoc)) })
	return out
}

// Document structure.

func (p *jsonParser) unknown(key string, off int) {
	p.pop()
	path := ""
	if len(p.keys) > 0 {
		path = p.path() + ": "
	}
	p.fail(off, "%sunknown field %q", path, key)
}

func (p *jsonParser) document(doc *Document) {
	p.object(func(key string, off int) {
		switch key {
		case "mgmt":
			doc.Mgmt = p.stringField(strDoc)
		case "graph":
			doc.Graph = p.stringField(strDoc)
		case "seq":
			doc.Seq = p.intField(math.MinInt64, math.MaxInt64)
		case "source":
			doc.Source = p.stringField(strDoc)
		case "resources":
			if !p.null() && !p.resourcesSplit(doc) {
				p.array(func(int) { doc.Resources = append(doc.Resources, p.resource()) })
			}
		case "edges":
			if !p.null() {
				p.array(func(int) { doc.Edges = append(doc.Edges, p.edge()) })
			}
		case "error":
			if !p.null() {
				doc.Error = p.errorDoc()
			}
		default:
			p.unknown(key, off)
		}
	})
}

func (p *jsonParser) errorDoc() *Error {
	e := &Error{}
	p.object(func(key string, off int) {
		switch key {
		case "message":
			e.Message = p.stringField(strDoc)
		case "pos":
			e.Pos = p.stringField(strDoc)
		default:
			p.unknown(key, off)
		}
	})
	return e
}

func (p *jsonParser) resource() *Resource {
	if p.null() {
		return nil
	}
	r := p.alloc.resource()
	off := p.peekOff()
	p.object(func(key string, off int) {
		switch key {
		case "kind":
			r.Kind = p.stringField(strIntern)
		case "name":
			r.Name = p.stringField(strDoc)
		case "params":
			if p.null() {
				return
			}
			r.Params = map[string]any{}
			// The keys are interned (object), and a null value leaves
			// its parameter out, undefined; of a key given twice, the
			// last value holds, as in encoding/json.
			p.object(func(k string, _ int) {
				if v := p.param(); v != nil {
					r.Params[k] = v
				} else {
					delete(r.Params, k)
				}
			})
		case "meta":
			r.Meta = p.meta()
		case "pos":
			r.Pos = p.stringField(strDoc)
		case "origin":
			r.Origin = p.stringField(strIntern)
		default:
			p.unknown(key, off)
		}
	})
	r.At = p.pos(off)
	return r
}

func (p *jsonParser) peekOff() int {
	p.ws()
	return p.i
}

func (p *jsonParser) meta() *Meta {
	if p.null() {
		return nil
	}
	m := &Meta{}
	p.object(func(key string, off int) {
		switch key {
		case "noop":
			m.Noop = p.boolField()
		case "retry":
			m.Retry = int16(p.intField(math.MinInt16, math.MaxInt16))
		case "retryreset":
			m.RetryReset = p.boolField()
		case "delay":
			m.Delay = p.uintField()
		case "timeout":
			m.Timeout = p.uintField()
		case "poll":
			m.Poll = int32(p.intField(math.MinInt32, math.MaxInt32))
		case "limit":
			if !p.null() {
				v := p.floatField()
				m.Limit = &v
			}
		case "burst":
			m.Burst = int(p.intField(math.MinInt32, math.MaxInt32))
		case "reset":
			m.Reset = p.boolField()
		case "sema":
			m.Sema = p.stringList()
		case "rewatch":
			m.Rewatch = p.boolField()
		case "realize":
			m.Realize = p.boolField()
		case "dollar":
			m.Dollar = p.boolField()
		case "hidden":
			m.Hidden = p.boolField()
		case "export":
			m.Export = p.stringList()
		case "reverse":
			m.Reverse = p.boolField()
		case "autoedge":
			if !p.null() {
				v := p.boolField()
				m.AutoEdge = &v
			}
		case "autogroup":
			if !p.null() {
				v := p.boolField()
				m.AutoGroup = &v
			}
		default:
			p.pop()
			p.fail(off, "%s: unknown metaparameter %q", p.path(), key)
		}
	})
	return m
}

func (p *jsonParser) ref() Ref {
	var r Ref
	p.object(func(key string, off int) {
		switch key {
		case "kind":
			r.Kind = p.stringField(strIntern)
		case "name":
			r.Name = p.stringField(strDoc)
		default:
			p.unknown(key, off)
		}
	})
	return r
}

func (p *jsonParser) edge() *Edge {
	if p.null() {
		return nil
	}
	e := p.alloc.edge()
	off := p.peekOff()
	p.object(func(key string, off int) {
		switch key {
		case "from":
			e.From = p.ref()
		case "to":
			e.To = p.ref()
		case "notify":
			e.Notify = p.boolField()
		case "send":
			e.Send = p.stringField(strIntern)
		case "recv":
			e.Recv = p.stringField(strIntern)
		default:
			p.unknown(key, off)
		}
	})
	e.At = p.pos(off)
	return e
}
