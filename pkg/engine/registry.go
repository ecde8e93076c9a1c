package engine

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

var (
	registryMu sync.RWMutex
	registry   = map[string]func() Res{}
	// protos holds a resource of each kind as its function returns it,
	// never changed: NewResource calls its Default, which returns a new
	// one.
	protos = map[string]Res{}
)

// RegisterResource makes a resource kind available to the engine and
// publishes its parameter schema (from the `lang` struct tags) in the
// pkg/graph registry, where the compilers read it. It panics on a duplicate
// kind or a parameter of a type mcl cannot express: both are programming
// errors found at start-up.
func RegisterResource(kind string, fn func() Res) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if strings.Contains(kind, "[") {
		// A vertex's key is kind[name]: its kind ends at its first '['.
		panic(fmt.Sprintf("engine: resource kind %q has a '['", kind))
	}
	if _, dup := registry[kind]; dup {
		panic(fmt.Sprintf("engine: resource kind %q registered twice", kind))
	}
	registry[kind] = fn
	protos[kind] = fn()
	// The schema is made on the kind's first look-up (see
	// graph.RegisterKindFunc); TestKindSchemas makes every kind's.
	graph.RegisterKindFunc(kind, func() *graph.KindSchema {
		s, err := schemaOf(kind, fn())
		if err != nil {
			panic(fmt.Sprintf("engine: resource kind %q: %v", kind, err))
		}
		return s
	})
}

// NewResource returns a new resource of kind, holding its defaults, with
// its kind set.
func NewResource(kind string) (Res, error) {
	registryMu.RLock()
	proto, ok := protos[kind]
	registryMu.RUnlock()
	if !ok {
		return nil, errors.New(graph.UnknownKind(kind, RegisteredKinds()))
	}
	r := proto.Default()
	r.SetKind(kind)
	return r, nil
}

// RegisteredKinds returns the registered kinds in sorted order.
func RegisteredKinds() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]string, 0, len(registry))
	for k := range registry {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func schemaOf(kind string, r Res) (*graph.KindSchema, error) {
	params, err := LangFields(reflect.TypeOf(r))
	if err != nil {
		return nil, err
	}
	s := &graph.KindSchema{Kind: kind, Params: params}
	if s.Collect, err = collectRules(r, params); err != nil {
		return nil, err
	}
	if s.Adapt, err = adaptRules(r, params); err != nil {
		return nil, err
	}
	if sr, ok := r.(Sendable); ok {
		sends, err := LangFields(reflect.TypeOf(sr.Sends()))
		if err != nil {
			return nil, fmt.Errorf("sends: %v", err)
		}
		s.Sends = sends
	}
	_, s.Recv = r.(Recvable)
	if rr, ok := r.(Retiring); ok {
		s.Retired = rr.RetiredParams()
		for p := range s.Retired {
			if _, dup := params[p]; dup {
				return nil, fmt.Errorf("retired parameter %s is also a parameter", p)
			}
		}
	}
	if cr, ok := r.(Constants); ok {
		s.Consts = cr.Consts()
		for p, vals := range s.Consts {
			for name, v := range vals {
				if !constFits(params[p], v) {
					return nil, fmt.Errorf("constant %s.%s: %T does not fit a parameter of type %q", p, name, v, params[p])
				}
			}
		}
	}
	return s, nil
}

// collectRules reads what a collecting host accepts of the kind: the
// Collectable trait, and the `collect` tags of its parameters ("name": if
// set, must equal the name; "local": only the collecting host may set it).
func collectRules(r Res, params map[string]string) (graph.CollectRules, error) {
	var c graph.CollectRules
	if cr, ok := r.(Collectable); ok && !cr.Collectable() {
		c.Refused = true
	}
	fields, err := ParamFields(reflect.TypeOf(r))
	if err != nil {
		return c, err
	}
	for _, p := range fields {
		rule, ok := p.Field.Tag.Lookup("collect")
		if !ok {
			continue
		}
		switch rule {
		case "name":
			if params[p.Name] != "str" {
				return c, fmt.Errorf("field %s: collect:\"name\" needs a str parameter, not %s", p.Field.Name, params[p.Name])
			}
			c.Name = append(c.Name, p.Name)
		case "local":
			c.Local = append(c.Local, p.Name)
		default:
			return c, fmt.Errorf("field %s: collect tag %q: want \"name\" or \"local\"", p.Field.Name, rule)
		}
	}
	return c, nil
}

// adaptRules reads the `adapt` tags of the kind's str parameters: the
// values, in order, in which two declarations of one resource may differ
// and still merge, the later value winning (see graph.MergeDuplicate). A
// declaration without the parameter counts as the field's value in the
// kind's Default().
func adaptRules(r Res, params map[string]string) ([]graph.AdaptRule, error) {
	t := reflect.TypeOf(r)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	fields, err := ParamFields(t)
	if err != nil {
		return nil, err
	}
	var out []graph.AdaptRule
	def := reflect.Indirect(reflect.ValueOf(r.Default()))
	for _, p := range fields {
		vals, ok := p.Field.Tag.Lookup("adapt")
		if !ok {
			continue
		}
		if params[p.Name] != "str" || p.Field.Type.Kind() != reflect.String {
			return nil, fmt.Errorf("field %s: an adapt tag needs a str parameter", p.Field.Name)
		}
		if len(strings.Fields(vals)) < 2 {
			return nil, fmt.Errorf("field %s: adapt tag %q: want two values or more", p.Field.Name, vals)
		}
		if def.Type() != t {
			return nil, fmt.Errorf("an adapt tag needs Default to return a %s", t)
		}
		out = append(out, graph.AdaptRule{Param: p.Name, Values: strings.Fields(vals), Default: p.Value(def).String()})
	}
	return out, nil
}

// LangFields maps the parameters of a struct (or pointer to one), its
// `lang`-tagged fields and those of its inline fields (see ParamField),
// to their mcl types.
func LangFields(t reflect.Type) (map[string]string, error) {
	fields, err := ParamFields(t)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, p := range fields {
		mt, err := MclType(p.Field.Type)
		if err != nil {
			return nil, fmt.Errorf("field %s: %v", p.Field.Name, err)
		}
		out[p.Name] = mt
	}
	return out, nil
}

// MclType returns the mcl spelling of a Go type. Pointers mean "optional"
// and map to their element type; an empty interface is a variant (a
// value of any type, decoded from JSON as DecodeParams leaves it).
func MclType(t reflect.Type) (string, error) {
	switch t.Kind() {
	case reflect.Pointer:
		return MclType(t.Elem())
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return "variant", nil // a value of any type
		}
	case reflect.Bool:
		return "bool", nil
	case reflect.String:
		return "str", nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "int", nil
	case reflect.Float32, reflect.Float64:
		return "float", nil
	case reflect.Slice:
		e, err := MclType(t.Elem())
		if err != nil {
			return "", err
		}
		return "[]" + e, nil
	case reflect.Map:
		k, err := MclType(t.Key())
		if err != nil {
			return "", err
		}
		v, err := MclType(t.Elem())
		if err != nil {
			return "", err
		}
		return "map{" + k + ": " + v + "}", nil
	case reflect.Struct:
		fields, err := ParamFields(t)
		if err != nil {
			return "", err
		}
		parts := make([]string, 0, len(fields))
		for _, p := range fields {
			ft, err := MclType(p.Field.Type)
			if err != nil {
				return "", err
			}
			parts = append(parts, p.Name+" "+ft)
		}
		return "struct{" + strings.Join(parts, "; ") + "}", nil
	}
	return "", fmt.Errorf("type %s has no mcl equivalent", t)
}

// constFits reports whether a named value v suits a parameter of mcl type
// typ.
func constFits(typ string, v any) bool {
	switch v.(type) {
	case int64:
		return typ == "int"
	case string:
		return typ == "str"
	}
	return false
}
