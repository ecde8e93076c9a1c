package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// parseYAML decodes YAML the way Ruby's Psych (YAML 1.1) resolves plain
// scalars: yes/no/on/off are booleans, 0755 is octal, 1e3 is a string.
// Hash keys keep their order. Timestamps and custom tags are refused.
func parseYAML(file string, b []byte) (any, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 {
		return nil, nil
	}
	return yamlAnchors{}.value(&doc, 0)
}

// yamlAnchors holds the values of the anchored nodes decoded so far: an
// alias shares its anchor's value, as Ruby's YAML does, instead of a copy
// of it for every alias, which nine lines of aliases of aliases make a
// billion values.
type yamlAnchors map[*yaml.Node]any

func (a yamlAnchors) value(n *yaml.Node, depth int) (any, error) {
	if v, ok := a[n]; ok {
		return v, nil
	}
	v, err := a.decode(n, depth)
	if err == nil && n.Anchor != "" {
		a[n] = v
	}
	return v, err
}

func (a yamlAnchors) decode(n *yaml.Node, depth int) (any, error) {
	if depth > 200 {
		return nil, fmt.Errorf("nested too deeply")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return a.value(n.Content[0], depth+1)
	case yaml.AliasNode:
		return a.value(n.Alias, depth+1)
	case yaml.SequenceNode:
		out := []any{}
		for _, c := range n.Content {
			v, err := a.value(c, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		h := newHash()
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Tag == "!!merge" {
				return nil, fmt.Errorf("line %d: merge keys (<<) are not supported", k.Line)
			}
			kv, err := a.value(k, depth+1)
			if err != nil {
				return nil, err
			}
			ks, ok := kv.(string)
			if !ok {
				return nil, fmt.Errorf("line %d: a hash key that is not a string (%s)", k.Line, typeName(kv))
			}
			vv, err := a.value(v, depth+1)
			if err != nil {
				return nil, err
			}
			h.set(ks, vv)
		}
		return h, nil
	case yaml.ScalarNode:
		return yamlScalar(n)
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node", n.Line)
}

var (
	yamlInt     = regexp.MustCompile(`^[-+]?(0|[1-9][0-9_,]*)$`)
	yamlOctal   = regexp.MustCompile(`^[-+]?0[0-7_,]+$`)
	yamlHex     = regexp.MustCompile(`^[-+]?0x[0-9a-fA-F_,]+$`)
	yamlBin     = regexp.MustCompile(`^[-+]?0b[01_,]+$`)
	yamlFloat   = regexp.MustCompile(`^[-+]?([0-9][0-9_,]*)?\.[0-9]*([eE][-+][0-9]+)?$`)
	yamlSexa    = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$`)
	yamlTime    = regexp.MustCompile(`^\d{4}-\d{1,2}-\d{1,2}`)
	yamlSpecial = regexp.MustCompile(`^[-+]?\.(inf|Inf|INF|nan|NaN|NAN)$`)
)

func yamlScalar(n *yaml.Node) (any, error) {
	v := n.Value
	switch n.Tag {
	case "!!str":
		if n.Style != 0 || !plainSpecial(v) {
			return v, nil
		}
	case "!!null", "!!bool", "!!int", "!!float", "!!timestamp", "":
	default:
		return nil, fmt.Errorf("line %d: the YAML tag %s is not supported", n.Line, n.Tag)
	}
	if n.Style != 0 {
		return v, nil
	}
	switch v {
	case "", "~", "null", "Null", "NULL":
		return nil, nil
	}
	switch strings.ToLower(v) {
	case "yes", "true", "on":
		return true, nil
	case "no", "false", "off":
		return false, nil
	}
	clean := strings.NewReplacer("_", "", ",", "").Replace(v)
	switch {
	case yamlInt.MatchString(v):
		return strconv.ParseInt(clean, 10, 64)
	case yamlOctal.MatchString(v):
		return strconv.ParseInt(clean, 8, 64)
	case yamlHex.MatchString(v):
		return strconv.ParseInt(strings.Replace(clean, "0x", "", 1), 16, 64)
	case yamlBin.MatchString(v):
		return strconv.ParseInt(strings.Replace(clean, "0b", "", 1), 2, 64)
	case yamlFloat.MatchString(v) && v != ".":
		return strconv.ParseFloat(clean, 64)
	case yamlSpecial.MatchString(v):
		if strings.Contains(strings.ToLower(v), "nan") {
			return math.NaN(), nil
		}
		if strings.HasPrefix(v, "-") {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case yamlSexa.MatchString(v), yamlTime.MatchString(v):
		return nil, fmt.Errorf("line %d: the YAML value %q (a base 60 number or a timestamp) is not supported", n.Line, v)
	}
	return v, nil
}

// plainSpecial reports whether a plain scalar yaml.v3 tagged !!str might
// resolve to something else under YAML 1.1.
func plainSpecial(v string) bool {
	return v == "" || strings.ContainsAny(v[:1], "-+.0123456789~ynoftYNOFT")
}

// parseJSON decodes JSON keeping the order of object keys.
func parseJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := jsonValue(d, 0)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err == nil {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

func jsonValue(d *json.Decoder, depth int) (any, error) {
	if depth > 200 {
		return nil, fmt.Errorf("nested too deeply")
	}
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch x := t.(type) {
	case json.Delim:
		switch x {
		case '{':
			h := newHash()
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				v, err := jsonValue(d, depth+1)
				if err != nil {
					return nil, err
				}
				h.set(kt.(string), v)
			}
			_, err := d.Token()
			return h, err
		case '[':
			out := []any{}
			for d.More() {
				v, err := jsonValue(d, depth+1)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			_, err := d.Token()
			return out, err
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, nil
		}
		return x.Float64()
	case string, bool, nil:
		return x, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", t)
}

// toJSONFn renders a value as Ruby's JSON.generate (to_json) or
// JSON.pretty_generate plus a newline (to_json_pretty).
func toJSONFn(x *fcall) any {
	x.arity(1, 3)
	v := x.args[0]
	if x.c.Name == "to_json_pretty" {
		if len(x.args) >= 2 && truthy(x.args[1]) {
			v = skipUndef(v)
		}
		if len(x.args) == 3 {
			x.unsupported("with options")
		}
		var b strings.Builder
		x.writeJSON(&b, v, "  ", 0)
		return b.String() + "\n"
	}
	if len(x.args) > 1 {
		x.unsupported("with options")
	}
	var b strings.Builder
	x.writeJSON(&b, v, "", 0)
	return b.String()
}

func skipUndef(v any) any {
	switch c := v.(type) {
	case []any:
		out := []any{}
		for _, el := range c {
			if el != nil {
				out = append(out, el)
			}
		}
		return out
	case *hash:
		out := newHash()
		for _, k := range c.keys {
			if c.m[k] != nil {
				out.set(k, c.m[k])
			}
		}
		return out
	}
	return v
}

func (x *fcall) writeJSON(b *strings.Builder, v any, indent string, depth int) {
	x.e.checkText(x.c.P, b.Len())
	nl := func(d int) {
		if indent != "" {
			b.WriteString("\n" + strings.Repeat(indent, d))
		}
	}
	switch c := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(c))
	case int64:
		b.WriteString(strconv.FormatInt(c, 10))
	case float64:
		if math.IsInf(c, 0) || math.IsNaN(c) {
			x.fail("%s(): %v not allowed in JSON", x.c.Name, c)
		}
		b.WriteString(formatFloat(c))
	case string:
		b.WriteString(rubyJSONString(c))
	case []any:
		if len(c) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[")
		for i, el := range c {
			if i > 0 {
				b.WriteString(",")
			}
			nl(depth + 1)
			x.writeJSON(b, el, indent, depth+1)
		}
		nl(depth)
		b.WriteString("]")
	case *hash:
		if len(c.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{")
		for i, k := range c.keys {
			if i > 0 {
				b.WriteString(",")
			}
			nl(depth + 1)
			b.WriteString(rubyJSONString(k))
			b.WriteString(":")
			if indent != "" {
				b.WriteString(" ")
			}
			x.writeJSON(b, c.m[k], indent, depth+1)
		}
		nl(depth)
		b.WriteString("}")
	default:
		x.unsupported("of " + typeName(v))
	}
}

// rubyJSONString quotes a string as Ruby's JSON generator does: only ",
// \ and control characters are escaped.
func rubyJSONString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func toYAMLFn(x *fcall) any {
	x.unsupported("(the YAML rendering of Ruby's Psych)")
	return nil
}

// parseDataFn implements parsejson and parseyaml, with an optional
// default for unparsable input.
func parseDataFn(x *fcall) any {
	x.arity(1, 2)
	src := x.str(0)
	var v any
	var err error
	if x.c.Name == "parsejson" {
		v, err = parseJSON([]byte(src))
	} else {
		v, err = parseYAML("parseyaml", []byte(src))
	}
	if err != nil {
		if len(x.args) == 2 {
			return x.args[1]
		}
		x.unsupported("of this input (" + err.Error() + ")")
	}
	return v
}
