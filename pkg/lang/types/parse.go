package types

import (
	"fmt"
	"strings"
)

// Parse reads a type in mcl syntax. Variables ?N are fresh per call, the
// same N naming the same variable.
func Parse(s string) (*Type, error) {
	return ParseWith(s, map[string]*Type{})
}

// MustParse is Parse for signatures written in Go source; it panics on error.
func MustParse(s string) *Type {
	t, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return t
}

// ParseWith is Parse sharing the variables of vars (name "?N" -> variable)
// across calls.
func ParseWith(s string, vars map[string]*Type) (*Type, error) {
	p := &typeParser{s: s, vars: vars}
	t, err := p.parse()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("type %q: unexpected %q at offset %d", s, p.s[p.i:], p.i)
	}
	return t, nil
}

type typeParser struct {
	s     string
	i     int
	depth int
	vars  map[string]*Type
}

func (p *typeParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *typeParser) errf(format string, args ...any) error {
	return fmt.Errorf("type %q: %s at offset %d", p.s, fmt.Sprintf(format, args...), p.i)
}

func (p *typeParser) eat(tok string) bool {
	p.space()
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}

func (p *typeParser) expect(tok string) error {
	if !p.eat(tok) {
		return p.errf("expected %q", tok)
	}
	return nil
}

func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func (p *typeParser) word() string {
	p.space()
	j := p.i
	for j < len(p.s) && isIdentByte(p.s[j]) {
		j++
	}
	w := p.s[p.i:j]
	p.i = j
	return w
}

func (p *typeParser) parse() (*Type, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > MaxDepth {
		return nil, p.errf("type nested too deeply (more than %d levels)", MaxDepth)
	}
	p.space()
	if p.eat("[]") {
		e, err := p.parse()
		if err != nil {
			return nil, err
		}
		return NewList(e), nil
	}
	if p.eat("?") {
		start := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		name := "?" + p.s[start:p.i]
		if v, ok := p.vars[name]; ok {
			return v, nil
		}
		v := NewVar()
		if name != "?" {
			p.vars[name] = v
		}
		return v, nil
	}
	start := p.i
	w := p.word()
	switch w {
	case "bool":
		return Bool, nil
	case "str":
		return Str, nil
	case "int":
		return Int, nil
	case "float":
		return Float, nil
	case "variant":
		return Variant, nil
	case "map":
		return p.parseMap()
	case "struct":
		return p.parseStruct()
	case "func":
		return p.parseFunc()
	}
	p.i = start
	if w == "" {
		return nil, p.errf("expected a type")
	}
	return nil, p.errf("unknown type %q", w)
}

func (p *typeParser) parseMap() (*Type, error) {
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
	if err := p.expect("}"); err != nil {
		return nil, err
	}
	return NewMap(k, v), nil
}

func (p *typeParser) parseStruct() (*Type, error) {
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	var fs []Field
	seen := map[string]bool{}
	for !p.eat("}") {
		if len(fs) > 0 {
			if err := p.expect(";"); err != nil {
				return nil, err
			}
			if p.eat("}") { // trailing separator
				break
			}
		}
		name := p.word()
		if name == "" {
			return nil, p.errf("expected a field name")
		}
		if seen[name] {
			return nil, p.errf("duplicate field %q", name)
		}
		seen[name] = true
		t, err := p.parse()
		if err != nil {
			return nil, err
		}
		fs = append(fs, Field{Name: name, Type: t})
	}
	return NewStruct(fs...), nil
}

func (p *typeParser) parseFunc() (*Type, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var fs []Field
	for !p.eat(")") {
		if len(fs) > 0 {
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
		// A parameter is "T" or "name T": try a name first.
		save := p.i
		name := p.word()
		if name != "" {
			p.space()
			if p.i < len(p.s) && p.s[p.i] != ',' && p.s[p.i] != ')' && p.s[p.i] != '{' && p.s[p.i] != '(' {
				t, err := p.parse()
				if err != nil {
					return nil, err
				}
				fs = append(fs, Field{Name: name, Type: t})
				continue
			}
		}
		p.i = save
		t, err := p.parse()
		if err != nil {
			return nil, err
		}
		fs = append(fs, Field{Type: t})
	}
	p.space()
	if p.i >= len(p.s) || p.s[p.i] == ',' || p.s[p.i] == ')' || p.s[p.i] == ';' || p.s[p.i] == '}' {
		return nil, p.errf("expected the function's return type")
	}
	out, err := p.parse()
	if err != nil {
		return nil, err
	}
	return NewFunc(fs, out), nil
}
