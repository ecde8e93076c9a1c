package refdoc

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
)

//go:embed kinddoc.json
var kindDocJSON []byte

// Embedded returns the kind docs the generator last wrote (kinddoc.json).
func Embedded() (map[string]*KindDoc, error) {
	var m map[string]*KindDoc
	if err := json.Unmarshal(kindDocJSON, &m); err != nil {
		return nil, fmt.Errorf("kinddoc.json: %v", err)
	}
	return m, nil
}

// A Param is one parameter of a kind, or one value it sends.
type Param struct {
	Name    string
	Type    string // mcl type
	Default string // mcl literal of the default, "" when unset (optional)
	Doc     string // doc comment of its field
	Collect string // "name", "local" or "" (see graph.CollectRules)
}

// A Kind is the reference of one resource kind.
type Kind struct {
	Name      string
	Type      string // Go type, for the reader who wants the source
	Doc       string // the type's doc comment
	Watching  string // the Watch method's doc comment
	Edges     string // the AutoEdges method's doc comment
	Params    []Param
	Sends     []Param
	Retired   []Param // parameters graph.yaml may still carry; Doc says what replaces them
	Recv      bool
	Refresh   bool // acts on refresh notifications
	Group     bool // may be grouped (autogroup)
	Reverse   bool // supports Meta:reverse
	Autoedges bool // takes part in automatic edges
	Refused   bool // never collected
}

// Kinds returns the reference of every registered kind, built from the
// registries (types, defaults, traits, collect rules) and docs (the kind
// docs parsed from the source: Embedded for the tools, ParseKinds for the
// generator). A kind without docs gets empty texts; Problems reports them.
func Kinds(docs map[string]*KindDoc) ([]*Kind, error) {
	var out []*Kind
	for _, name := range graph.Kinds() {
		s, _ := graph.LookupKind(name)
		r, err := engine.NewResource(name)
		if err != nil {
			continue // registered with pkg/graph only: nothing runs it
		}
		d := docs[name]
		if d == nil {
			d = &KindDoc{}
		}
		k := &Kind{Name: name, Type: d.Type, Recv: s.Recv, Refused: s.Collect.Refused}
		k.Doc = untype(strings.TrimSpace(d.Doc), typeName(d.Type))
		k.Watching = untype(strings.TrimSpace(d.Watch), "Watch")
		k.Edges = untype(strings.TrimSpace(d.AutoEdges), "AutoEdges")
		k.Refresh = embedsRefreshable(r)
		_, k.Group = r.(engine.Groupable)
		_, k.Reverse = r.(engine.Reversible)
		_, k.Autoedges = r.(engine.Edgeable)
		defaults := defaultValues(r)
		for _, p := range sortedKeys(s.Params) {
			c := ""
			if contains(s.Collect.Name, p) {
				c = "name"
			} else if contains(s.Collect.Local, p) {
				c = "local"
			}
			k.Params = append(k.Params, Param{Name: p, Type: s.Params[p], Default: defaults[p], Doc: d.Params[p], Collect: c})
		}
		for _, p := range sortedKeys(s.Sends) {
			k.Sends = append(k.Sends, Param{Name: p, Type: s.Sends[p], Doc: d.Sends[p]})
		}
		for _, p := range sortedKeys(s.Retired) {
			k.Retired = append(k.Retired, Param{Name: p, Doc: s.Retired[p]})
		}
		out = append(out, k)
	}
	return out, nil
}

// embedsRefreshable reports whether the kind embeds traits.Refreshable,
// the mark of a kind that acts on refresh notifications. (The engine
// hands every resource its refreshes; the mark says which kinds use them.
// The embedded field hides the promoted method, so a type assertion on
// engine.Refreshable cannot tell.)
func embedsRefreshable(r engine.Res) bool {
	t := reflect.TypeOf(r)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	f, ok := t.FieldByName("Refreshable")
	return ok && f.Anonymous && f.Type == reflect.TypeOf(traits.Refreshable{})
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// typeName returns the type of "pkg/resources.FileRes".
func typeName(typ string) string {
	if i := strings.LastIndexByte(typ, '.'); i >= 0 {
		return typ[i+1:]
	}
	return typ
}

// untype turns a Go doc comment's opening "FileRes manages ..." into
// "Manages ...": the reader knows the kind, not the Go type (or method).
func untype(doc, typ string) string {
	rest, ok := strings.CutPrefix(doc, typ+" ")
	if !ok || rest == "" {
		return doc
	}
	if r, ok := strings.CutPrefix(rest, "is "); ok && r != "" {
		rest = r // "PippetRes is one Puppet resource" -> "One Puppet resource"
	}
	return strings.ToUpper(rest[:1]) + rest[1:]
}

// defaultValues returns the mcl literal of each parameter of the kind's
// default resource ("" for an unset optional parameter).
func defaultValues(r engine.Res) map[string]string {
	v := reflect.ValueOf(r)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	fields, _ := engine.ParamFields(v.Type())
	out := map[string]string{}
	for i := range fields {
		out[fields[i].Name] = literal(fields[i].Value(v))
	}
	return out
}

// literal writes v in mcl syntax; a nil pointer is "".
func literal(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return ""
		}
		return literal(v.Elem())
	case reflect.String:
		return strconv.Quote(v.String())
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		s := strconv.FormatFloat(v.Float(), 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	case reflect.Slice:
		var parts []string
		for i := 0; i < v.Len(); i++ {
			parts = append(parts, literal(v.Index(i)))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case reflect.Map:
		var parts []string
		for _, k := range v.MapKeys() {
			parts = append(parts, literal(k)+" => "+literal(v.MapIndex(k)))
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v.Interface())
}

// A Function is the reference of one mcl function.
type Function struct {
	Name    string // full name: "strings.to_upper", or "len"
	Module  string // "" for a builtin
	Sigs    []string
	Doc     string
	Example string
	Stream  bool // emits new values over time
}

// Functions returns the reference of every registered function a program
// can call (names starting with "_" are the compiler's own).
func Functions() []*Function {
	var out []*Function
	for _, f := range funcs.All() {
		if strings.HasPrefix(f.Name, "_") {
			continue
		}
		fn := &Function{Name: f.FullName(), Module: f.Module, Doc: f.Doc, Example: f.Example, Stream: f.Stream != nil}
		for _, s := range f.Sigs {
			fn.Sigs = append(fn.Sigs, s.String())
		}
		if f.Infer != nil && f.Shape != "" {
			fn.Sigs = []string{f.Shape}
		}
		out = append(out, fn)
	}
	return out
}

// Problems lists what the reference lacks: a kind or function without a
// description, a parameter or sent value without a doc comment, a kind
// whose Watch (or, when it takes part in automatic edges, AutoEdges)
// method has no doc comment, a function without an example or signature.
func Problems(kinds []*Kind, fns []*Function) []string {
	var out []string
	for _, k := range kinds {
		where := "kind " + k.Name
		if k.Type != "" {
			where += " (" + k.Type + ")"
		}
		if k.Doc == "" {
			out = append(out, where+": the type has no doc comment")
		}
		if k.Watching == "" {
			out = append(out, where+": its Watch method has no doc comment (say how it notices drift)")
		}
		if k.Autoedges && k.Edges == "" {
			out = append(out, where+": its AutoEdges method has no doc comment")
		}
		for _, p := range k.Params {
			if p.Doc == "" {
				out = append(out, where+": parameter "+p.Name+" has no doc comment")
			}
		}
		for _, p := range k.Sends {
			if p.Doc == "" {
				out = append(out, where+": sent value "+p.Name+" has no doc comment")
			}
		}
	}
	for _, f := range fns {
		if f.Doc == "" || f.Example == "" {
			out = append(out, "function "+f.Name+": no Doc or Example (funcs.Doc at its registration)")
		}
		if len(f.Sigs) == 0 {
			out = append(out, "function "+f.Name+": typed by Infer without a Shape (funcs.Shape at its registration)")
		}
	}
	return out
}
