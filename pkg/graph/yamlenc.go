package graph

// Writing a Document as YAML, in the same shape decodeYAMLFrame reads.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// encodeYAML writes doc in the graph.yaml form, between a "---" line and a
// "..." line so that a streaming reader sees the end of each document.
func encodeYAML(w io.Writer, doc *Document) error {
	root := &yaml.Node{Kind: yaml.MappingNode}
	add := func(k string, v *yaml.Node) { root.Content = append(root.Content, ystr(k), v) }
	add("mgmt", ystr(doc.Mgmt))
	add("graph", ystr(doc.Graph))
	add("seq", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(doc.Seq, 10)})
	if doc.Source != "" {
		add("source", ystr(doc.Source))
	}
	if doc.Error != nil {
		e := ymap("message", ystr(doc.Error.Message))
		if doc.Error.Pos != "" {
			e.Content = append(e.Content, ystr("pos"), ystr(doc.Error.Pos))
		}
		add("error", e)
	}
	if len(doc.Resources) > 0 {
		add("resources", yamlResources(doc.Resources))
	}
	if len(doc.Edges) > 0 {
		list := &yaml.Node{Kind: yaml.SequenceNode}
		for _, e := range doc.Edges {
			list.Content = append(list.Content, yamlEdge(e))
		}
		add("edges", list)
	}
	var buf bytes.Buffer
	buf.WriteString("---\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return err
	}
	enc.Close()
	buf.WriteString("...\n")
	_, err := w.Write(buf.Bytes())
	return err
}

// ystr returns a string scalar. Multi-line strings get a style chosen
// here: yaml.v3 picks the literal style for them but writes some of them
// wrongly (one newline short when there is nothing else, a wrong
// indentation indicator when a line starts with a space or the first line
// is empty, a tab read back as indentation), so the literal style is used
// only where it is known to round-trip, and double quotes otherwise.
func ystr(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.IndexByte(s, '\n') >= 0 {
		n.Style = yaml.DoubleQuotedStyle
		if literalSafe(s) {
			n.Style = yaml.LiteralStyle
		}
	}
	return n
}

// ykey returns a string scalar used as a mapping key: never a literal
// block, which would make it a complex key.
func ykey(s string) *yaml.Node {
	n := ystr(s)
	if n.Style == yaml.LiteralStyle {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// literalSafe reports whether the multi-line string s can be written as a
// YAML literal block: it neither starts with a newline nor consists of
// newlines only, no line starts with a space, and it holds no character
// other than newline that YAML would escape, fold or take for
// indentation.
func literalSafe(s string) bool {
	if s[0] == '\n' || strings.Trim(s, "\n") == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '\n':
			if i+1 < len(s) && s[i+1] == ' ' {
				return false
			}
		case r == ' ' && i == 0:
			return false
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0, r == 0x2028, r == 0x2029, r == 0xfeff, r == utf8.RuneError:
			return false
		}
	}
	return true
}

func ymap(kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Content = append(n.Content, ystr(kv[i].(string)), kv[i+1].(*yaml.Node))
	}
	return n
}

func yamlRef(r Ref) *yaml.Node {
	n := ymap("kind", ystr(r.Kind), "name", ystr(r.Name))
	n.Style = yaml.FlowStyle
	return n
}

func yamlEdge(e *Edge) *yaml.Node {
	n := ymap("name", ystr(e.From.String()+" -> "+e.To.String()), "from", yamlRef(e.From), "to", yamlRef(e.To))
	if e.Notify {
		n.Content = append(n.Content, ystr("notify"), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
	}
	if e.Send != "" {
		n.Content = append(n.Content, ystr("send"), ystr(e.Send))
	}
	if e.Recv != "" {
		n.Content = append(n.Content, ystr("recv"), ystr(e.Recv))
	}
	return n
}

// yamlResources groups sorted resources by kind.
func yamlResources(res []*Resource) *yaml.Node {
	out := &yaml.Node{Kind: yaml.MappingNode}
	var list *yaml.Node
	last := ""
	for _, r := range res {
		if list == nil || r.Kind != last {
			list = &yaml.Node{Kind: yaml.SequenceNode}
			out.Content = append(out.Content, ykey(r.Kind), list)
			last = r.Kind
		}
		item := ymap("name", ystr(r.Name))
		for _, k := range sortedKeys(r.Params) {
			item.Content = append(item.Content, ykey(k), yamlValue(r.Params[k]))
		}
		if r.Meta != nil {
			var mn yaml.Node
			if err := mn.Encode(r.Meta); err == nil && len(mn.Content) > 0 {
				item.Content = append(item.Content, ystr("meta"), &mn)
			}
		}
		if r.Pos != "" {
			item.Content = append(item.Content, ystr(yamlPosKey), ystr(r.Pos))
		}
		if r.Origin != "" {
			item.Content = append(item.Content, ystr(yamlOriginKey), ystr(r.Origin))
		}
		list.Content = append(list.Content, item)
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// yamlValue converts a parameter value to a YAML node.
func yamlValue(v any) *yaml.Node {
	switch v := v.(type) {
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	case string:
		return ystr(v)
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v)}
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(string(v), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(v)}
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for _, e := range v {
			n.Content = append(n.Content, yamlValue(e))
		}
		return n
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode}
		for _, k := range sortedKeys(v) {
			n.Content = append(n.Content, ykey(k), yamlValue(v[k]))
		}
		return n
	}
	// Other Go values (from producers building documents in memory) go
	// through JSON, which is what the wire format carries anyway.
	b, err := json.Marshal(v)
	if err != nil {
		return ystr(fmt.Sprint(v))
	}
	var back any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&back) != nil {
		return ystr(string(b))
	}
	return yamlValue(back)
}
