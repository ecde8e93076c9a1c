package graph

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// An mclType is a parsed mcl type string, as KindSchema writes them: bool,
// str, int, float, variant, []T, map{K: V}, struct{a T; b U}. Function
// types parse but accept no value.
type mclType struct {
	kind   string // "bool", "str", "int", "float", "variant", "list", "map", "struct", "func"
	elem   *mclType
	key    *mclType
	fields []mclField
	text   string
}

type mclField struct {
	name string
	typ  *mclType
}

var typeCache sync.Map // string -> *mclType (nil when unparsable)

// parseMclType parses s, caching the result.
func parseMclType(s string) (*mclType, error) {
	if t, ok := typeCache.Load(s); ok {
		return t.(*mclType), nil
	}
	p := &typeParser{s: s}
	t, err := p.parse()
	if err == nil {
		p.space()
		if p.i != len(p.s) {
			err = fmt.Errorf("unexpected %q at offset %d", p.s[p.i:], p.i)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("bad mcl type %q: %v", s, err)
	}
	t.text = s
	typeCache.Store(s, t)
	return t, nil
}

type typeParser struct {
	s string
	i int
}

func (p *typeParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *typeParser) ident() string {
	p.space()
	j := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			p.i++
			continue
		}
		break
	}
	return p.s[j:p.i]
}

func (p *typeParser) expect(tok string) error {
	p.space()
	if !strings.HasPrefix(p.s[p.i:], tok) {
		return fmt.Errorf("expected %q at offset %d", tok, p.i)
	}
	p.i += len(tok)
	return nil
}

func (p *typeParser) parse() (*mclType, error) {
	p.space()
	if strings.HasPrefix(p.s[p.i:], "[]") {
		p.i += 2
		e, err := p.parse()
		if err != nil {
			return nil, err
		}
		return &mclType{kind: "list", elem: e}, nil
	}
	switch id := p.ident(); id {
	case "bool", "str", "int", "float", "variant":
		return &mclType{kind: id}, nil
	case "map":
		if err := p.expect("{"); err != nil {
			return nil, err
		}
		k, err := p.parse()
		if err != nil {
			return nil, err
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		v, err := p.parse()
		if err != nil {
			return nil, err
		}
		return &mclType{kind: "map", key: k, elem: v}, p.expect("}")
	case "struct":
		return p.parseStruct()
	case "func":
		depth := 0
		for ; p.i < len(p.s); p.i++ {
			switch p.s[p.i] {
			case '(', '{':
				depth++
			case ')', '}':
				depth--
			}
		}
		return &mclType{kind: "func"}, nil
	case "":
		return nil, fmt.Errorf("expected a type at offset %d", p.i)
	default:
		return nil, fmt.Errorf("unknown type %q", id)
	}
}

func (p *typeParser) parseStruct() (*mclType, error) {
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	t := &mclType{kind: "struct"}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return t, nil
		}
		name := p.ident()
		if name == "" {
			return nil, fmt.Errorf("expected a field name at offset %d", p.i)
		}
		ft, err := p.parse()
		if err != nil {
			return nil, err
		}
		t.fields = append(t.fields, mclField{name, ft})
		p.space()
		if p.i < len(p.s) && (p.s[p.i] == ';' || p.s[p.i] == ',') {
			p.i++
		}
	}
}

// String returns the mcl spelling of t.
func (t *mclType) String() string {
	if t.text != "" {
		return t.text
	}
	switch t.kind {
	case "list":
		return "[]" + t.elem.String()
	case "map":
		return "map{" + t.key.String() + ": " + t.elem.String() + "}"
	case "struct":
		parts := make([]string, len(t.fields))
		for i, f := range t.fields {
			parts[i] = f.name + " " + f.typ.String()
		}
		return "struct{" + strings.Join(parts, "; ") + "}"
	}
	return t.kind
}

// isInt reports whether a JSON number is an integer.
func isInt(n json.Number) bool {
	if strings.ContainsAny(string(n), ".eE") {
		f, err := n.Float64()
		return err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<63
	}
	return true
}

// accepts reports whether value v (a decoded JSON value, or a plain Go
// value of a producer that built the document in memory) has type t. An
// integer is accepted for a float.
func (t *mclType) accepts(v any) bool {
	switch t.kind {
	case "variant":
		return v != nil
	case "str":
		_, ok := v.(string)
		return ok
	case "bool":
		_, ok := v.(bool)
		return ok
	case "int":
		switch n := v.(type) {
		case json.Number:
			return isInt(n)
		case float64:
			return n == math.Trunc(n)
		}
		return isGoKind(v, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64)
	case "float":
		switch n := v.(type) {
		case json.Number:
			_, err := n.Float64()
			return err == nil
		}
		return isGoKind(v, reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16,
			reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64)
	case "list":
		l, ok := v.([]any)
		if !ok {
			return false
		}
		for _, e := range l {
			if !t.elem.accepts(e) {
				return false
			}
		}
		return true
	case "map":
		return t.acceptsMap(v)
	case "struct":
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for k, e := range m {
			f := t.field(k)
			if f == nil || !f.accepts(e) {
				return false
			}
		}
		return true
	}
	return false
}

func (t *mclType) acceptsMap(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for k, e := range m {
		switch t.key.kind {
		case "str", "variant":
		case "int":
			if _, err := strconv.ParseInt(k, 10, 64); err != nil {
				return false
			}
		case "float":
			if _, err := strconv.ParseFloat(k, 64); err != nil {
				return false
			}
		case "bool":
			if k != "true" && k != "false" {
				return false
			}
		default:
			return false
		}
		if !t.elem.accepts(e) {
			return false
		}
	}
	return true
}

func (t *mclType) field(name string) *mclType {
	for _, f := range t.fields {
		if f.name == name {
			return f.typ
		}
	}
	return nil
}

func isGoKind(v any, kinds ...reflect.Kind) bool {
	if v == nil {
		return false
	}
	k := reflect.TypeOf(v).Kind()
	for _, want := range kinds {
		if k == want {
			return true
		}
	}
	return false
}

// valueType names the mcl type of a decoded JSON value, for messages.
func valueType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return "str"
	case bool:
		return "bool"
	case json.Number:
		if isInt(v) && !strings.ContainsAny(string(v), ".eE") {
			return "int"
		}
		return "float"
	case float32, float64:
		return "float"
	case []any:
		if len(v) == 0 {
			return "[]?"
		}
		return "[]" + valueType(v[0])
	case map[string]any:
		if len(v) == 0 {
			return "map{str: ?}"
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, k+" "+valueType(v[k]))
		}
		return "struct{" + strings.Join(parts, "; ") + "}"
	}
	if isGoKind(v, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64) {
		return "int"
	}
	return fmt.Sprintf("%T", v)
}
