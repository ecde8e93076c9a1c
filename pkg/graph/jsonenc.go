package graph

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
)

// appendJSON appends doc, canonical already, as encoding/json would write
// it (without HTML escaping), but without reflection: graphs of a hundred
// thousand resources are written several times faster. Values of other
// types than the ones decoding produces go through encoding/json.
func appendJSON(b []byte, doc *Document) ([]byte, error) {
	b = append(b, `{"mgmt":`...)
	b = appendStr(b, doc.Mgmt)
	b = append(b, `,"graph":`...)
	b = appendStr(b, doc.Graph)
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, doc.Seq, 10)
	if doc.Source != "" {
		b = append(b, `,"source":`...)
		b = appendStr(b, doc.Source)
	}
	var err error
	if len(doc.Resources) > 0 {
		b = append(b, `,"resources":[`...)
		for i, r := range doc.Resources {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendResource(b, r); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	if len(doc.Edges) > 0 {
		b = append(b, `,"edges":[`...)
		for i, e := range doc.Edges {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendEdge(b, e)
		}
		b = append(b, ']')
	}
	if doc.Error != nil {
		b = append(b, `,"error":{"message":`...)
		b = appendStr(b, doc.Error.Message)
		if doc.Error.Pos != "" {
			b = append(b, `,"pos":`...)
			b = appendStr(b, doc.Error.Pos)
		}
		b = append(b, '}')
	}
	return append(b, '}', '\n'), nil
}

func appendResource(b []byte, r *Resource) ([]byte, error) {
	b = append(b, `{"kind":`...)
	b = appendStr(b, r.Kind)
	b = append(b, `,"name":`...)
	b = appendStr(b, r.Name)
	var err error
	if len(r.Params) > 0 {
		b = append(b, `,"params":`...)
		if b, err = appendValue(b, r.Params); err != nil {
			return nil, err
		}
	}
	if r.Meta != nil {
		b = append(b, `,"meta":`...)
		if b, err = appendMarshal(b, r.Meta); err != nil {
			return nil, err
		}
	}
	if r.Pos != "" {
		b = append(b, `,"pos":`...)
		b = appendStr(b, r.Pos)
	}
	if r.Origin != "" {
		b = append(b, `,"origin":`...)
		b = appendStr(b, r.Origin)
	}
	return append(b, '}'), nil
}

func appendRef(b []byte, r Ref) []byte {
	b = append(b, `{"kind":`...)
	b = appendStr(b, r.Kind)
	b = append(b, `,"name":`...)
	b = appendStr(b, r.Name)
	return append(b, '}')
}

func appendEdge(b []byte, e *Edge) []byte {
	b = append(b, `{"from":`...)
	b = appendRef(b, e.From)
	b = append(b, `,"to":`...)
	b = appendRef(b, e.To)
	if e.Notify {
		b = append(b, `,"notify":true`...)
	}
	if e.Send != "" {
		b = append(b, `,"send":`...)
		b = appendStr(b, e.Send)
	}
	if e.Recv != "" {
		b = append(b, `,"recv":`...)
		b = appendStr(b, e.Recv)
	}
	return append(b, '}')
}

// appendValue appends a parameter value.
func appendValue(b []byte, v any) ([]byte, error) {
	var err error
	switch v := v.(type) {
	case string:
		return appendStr(b, v), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case json.Number:
		if isJSONNumber(string(v)) {
			return append(b, v...), nil
		}
	case []any:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		if v == nil {
			return append(b, "null"...), nil
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendStr(b, k)
			b = append(b, ':')
			if b, err = appendValue(b, v[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	return appendMarshal(b, v)
}

// appendMarshal appends v as encoding/json writes it without HTML
// escaping.
func appendMarshal(b []byte, v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})...), nil
}

// appendStr appends a JSON string; strings of printable ASCII without
// quotes or backslashes, nearly all of them, need no escaping.
func appendStr(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			out, _ := appendMarshal(b, s)
			return out
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
