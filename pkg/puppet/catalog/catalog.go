// Package catalog holds a compiled Puppet catalog as plain data: its
// resources (type, title, kind, parameters, source position) and its
// containment edges. Both compilers of puppet-graph produce it: the native
// evaluator (pkg/puppet/eval) directly, and the real Puppet through its JSON
// rendering, which Decode reads. Decode accepts the formats Puppet tools
// write: `puppet catalog compile --render-as json` (catalog_format 2), the
// older `{"document_type":"Catalog","data":{...}}` wrapper, and PuppetDB's
// catalog exports (`certname`, `resources`/`edges` possibly wrapped in
// `{"data": [...]}`, edge endpoints as `{"type","title"}` objects).
package catalog

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mgmtpipe/mgmt/internal/bounded"
)

// Resource kinds as the catalog JSON names them.
const (
	KindCompilable = "compilable_type"
	KindDefined    = "defined_type"
	KindClass      = "class"
	KindUnknown    = "unknown"
)

// A Catalog is one node's compiled catalog.
type Catalog struct {
	Name      string
	Resources []*Resource
	Edges     []Edge // containment only: Source contains Target
	Classes   []string
}

// A Resource is one resource of a catalog. Params values are strings,
// json.Number or int64/float64, bools, []any and map[string]any; resource
// references are strings like "File[/tmp/x]".
type Resource struct {
	Type   string // capitalized per :: segment: File, Class, Foo::Bar
	Title  string
	Kind   string
	File   string
	Line   int
	Col    int // 0 when unknown (real Puppet does not report columns)
	Params map[string]any
	Tags   []string
	// Sensitive names the parameters whose values were Sensitive: Puppet
	// keeps them out of its logs and reports.
	Sensitive []string
}

// Ref returns the canonical reference Type[title].
func (r *Resource) Ref() string { return r.Type + "[" + r.Title + "]" }

// IsContainer reports whether r is a container in Puppet's sense: a stage,
// a class, a node or an instance of a defined type.
func (r *Resource) IsContainer() bool {
	if r.Type == "Stage" || r.Type == "Class" || r.Type == "Node" {
		return true
	}
	return r.Kind != "" && r.Kind != KindCompilable
}

// Pos returns the source position as file:line[:col], or "" when unknown.
func (r *Resource) Pos() string {
	if r.Line == 0 {
		return ""
	}
	f := r.File
	if f == "" {
		f = "<code>"
	}
	var buf [256]byte
	b := append(buf[:0], f...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(r.Line), 10)
	if r.Col > 0 {
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(r.Col), 10)
	}
	return string(b)
}

// An Edge is a containment edge between two resource references.
type Edge struct {
	Source, Target string
}

// CapitalizeType normalizes a type name the way Puppet does: every ::
// segment gets an upper-case first letter and a lower-case rest.
func CapitalizeType(t string) string {
	segs := strings.Split(t, "::")
	for i, s := range segs {
		if s == "" {
			continue
		}
		segs[i] = strings.ToUpper(s[:1]) + strings.ToLower(s[1:])
	}
	return strings.Join(segs, "::")
}

// ParseRef splits "Type[title]" into its type and title.
func ParseRef(s string) (typ, title string, ok bool) {
	i := strings.IndexByte(s, '[')
	if i <= 0 || !strings.HasSuffix(s, "]") {
		return "", "", false
	}
	return s[:i], s[i+1 : len(s)-1], true
}

// Lookup returns the resource with the given reference, comparing types
// case-insensitively and Class titles case-insensitively too.
func (c *Catalog) Lookup(ref string) *Resource {
	typ, title, ok := ParseRef(ref)
	if !ok {
		return nil
	}
	typ = CapitalizeType(typ)
	for _, r := range c.Resources {
		if r.Type != typ {
			continue
		}
		if r.Title == title || (typ == "Class" && strings.EqualFold(r.Title, title)) {
			return r
		}
	}
	return nil
}

// wire is the union of the JSON shapes Decode accepts.
type wire struct {
	DocumentType string          `json:"document_type"`
	Data         json.RawMessage `json:"data"`
	Name         string          `json:"name"`
	Certname     string          `json:"certname"`
	Resources    json.RawMessage `json:"resources"`
	Edges        json.RawMessage `json:"edges"`
	Classes      []string        `json:"classes"`
}

type wireRes struct {
	Type       string         `json:"type"`
	Title      any            `json:"title"`
	Kind       string         `json:"kind"`
	File       string         `json:"file"`
	Line       int            `json:"line"`
	Exported   bool           `json:"exported"`
	Tags       []string       `json:"tags"`
	Parameters map[string]any `json:"parameters"`
	Sensitive  []string       `json:"sensitive_parameters"`
}

type wireEdge struct {
	Source       any    `json:"source"`
	Target       any    `json:"target"`
	Relationship string `json:"relationship"`
}

// Decode reads one catalog in any of the accepted JSON formats. Exported
// resources are dropped: they are not part of this node's configuration.
func Decode(r io.Reader) (*Catalog, error) {
	data, err := bounded.ReadAll(r, "catalog")
	if err != nil {
		return nil, err
	}
	return decode(data, 0)
}

func decode(data []byte, depth int) (*Catalog, error) {
	var w wire
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&w); err != nil {
		return nil, fmt.Errorf("catalog: %v", jsonPos(data, err))
	}
	if len(w.Data) > 0 && len(w.Resources) == 0 && depth == 0 {
		return decode(w.Data, depth+1)
	}
	c := &Catalog{Name: w.Name, Classes: w.Classes}
	if c.Name == "" {
		c.Name = w.Certname
	}
	var rs []wireRes
	if err := unwrapList(w.Resources, &rs); err != nil {
		return nil, fmt.Errorf("catalog: resources: %v", err)
	}
	for i, wr := range rs {
		if wr.Type == "" {
			return nil, fmt.Errorf("catalog: resource %d has no type", i)
		}
		if wr.Exported {
			continue
		}
		c.Resources = append(c.Resources, &Resource{
			Type: CapitalizeType(wr.Type), Title: scalarString(wr.Title), Kind: wr.Kind,
			File: wr.File, Line: wr.Line, Params: normalize(wr.Parameters).(map[string]any),
			Tags: wr.Tags, Sensitive: wr.Sensitive,
		})
	}
	var es []wireEdge
	if err := unwrapList(w.Edges, &es); err != nil {
		return nil, fmt.Errorf("catalog: edges: %v", err)
	}
	for _, we := range es {
		if we.Relationship != "" && we.Relationship != "contains" {
			continue
		}
		s, t := endpoint(we.Source), endpoint(we.Target)
		if s == "" || t == "" {
			return nil, fmt.Errorf("catalog: edge with a bad endpoint: %v -> %v", we.Source, we.Target)
		}
		c.Edges = append(c.Edges, Edge{Source: s, Target: t})
	}
	c.fillKinds()
	return c, nil
}

// fillKinds guesses the kind of resources from catalogs that do not carry
// one (PuppetDB): a resource containing others that is not a stage is a
// component.
func (c *Catalog) fillKinds() {
	parents := map[string]bool{}
	for _, e := range c.Edges {
		parents[e.Source] = true
	}
	for _, r := range c.Resources {
		if r.Kind != "" {
			continue
		}
		switch {
		case r.Type == "Class" || r.Type == "Node":
			r.Kind = KindUnknown
		case r.Type != "Stage" && parents[r.Ref()]:
			r.Kind = KindDefined
		default:
			r.Kind = KindCompilable
		}
	}
}

func unwrapList(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '{' {
		var w struct {
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(raw, &w); err != nil {
			return err
		}
		raw = w.Data
		if len(raw) == 0 {
			return nil
		}
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	return d.Decode(v)
}

func endpoint(v any) string {
	switch x := v.(type) {
	case string:
		if t, ti, ok := ParseRef(x); ok {
			return CapitalizeType(t) + "[" + ti + "]"
		}
		return x
	case map[string]any:
		t, _ := x["type"].(string)
		if t == "" {
			return ""
		}
		return CapitalizeType(t) + "[" + scalarString(x["title"]) + "]"
	}
	return ""
}

func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// normalize turns json.Number into int64 or float64 so that values from
// both compilers compare equal.
func normalize(v any) any {
	switch x := v.(type) {
	case nil:
		return map[string]any{}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if e == nil {
				continue
			}
			out[k] = normalizeValue(e)
		}
		return out
	}
	return v
}

func normalizeValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if s, ok := binaryText(x); ok {
			return s
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeValue(e)
		}
		return out
	case json.Number:
		if i, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			return i
		}
		f, _ := strconv.ParseFloat(x.String(), 64)
		return f
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeValue(e)
		}
		return out
	}
	return v
}

// binaryText decodes rich data's Binary when it holds UTF-8 text: Puppet
// renders strings that Ruby holds as bytes that way (facts read from
// files), and they mean the same string.
func binaryText(m map[string]any) (string, bool) {
	if len(m) != 2 || m["__ptype"] != "Binary" {
		return "", false
	}
	enc, ok := m["__pvalue"].(string)
	if !ok {
		return "", false
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

// jsonPos adds the line and column to a JSON syntax error.
func jsonPos(data []byte, err error) error {
	se, ok := err.(*json.SyntaxError)
	if !ok {
		return err
	}
	line, col := 1, 1
	for _, b := range data[:min(int(se.Offset), len(data))] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Errorf("%d:%d: %v", line, col, err)
}

// SortedParamNames returns the parameter names of r in sorted order.
func (r *Resource) SortedParamNames() []string {
	out := make([]string, 0, len(r.Params))
	for k := range r.Params {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
