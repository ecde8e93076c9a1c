package eval

import (
	"math"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// A ptype is a Puppet data type: a name and its evaluated parameters
// (numbers, strings, regexps, types, hashes of types, defaultValue). An
// alias keeps its name and resolves to its definition when first used.
type ptype struct {
	name   string
	params []any
	alias  *typeAlias
}

// A typeAlias is `type Name = Definition`, resolved lazily so that
// aliases may refer to each other.
type typeAlias struct {
	name     string
	def      syntax.Node
	resolved *ptype
	busy     bool
}

// coreTypes are the data types the native engine knows; the value says
// whether instance checks are supported.
var coreTypes = map[string]bool{
	"Any": true, "Undef": true, "NotUndef": true, "Optional": true, "Variant": true,
	"String": true, "Integer": true, "Float": true, "Numeric": true, "Boolean": true,
	"Array": true, "Hash": true, "Tuple": true, "Struct": true, "Enum": true, "Pattern": true,
	"Regexp": true, "Scalar": true, "ScalarData": true, "Data": true, "RichData": true,
	"Collection": true, "Iterable": true, "Default": true, "Type": true, "Sensitive": true,
	"Resource": true, "Class": true, "CatalogEntry": true, "Callable": true, "Deferred": true,
	"Timestamp": false, "Timespan": false, "SemVer": false, "SemVerRange": false, "Binary": false,
	"Object": false, "Init": false, "Runtime": false, "Error": false, "Iterator": false, "URI": false,
}

func (t *ptype) String() string {
	if t.alias != nil {
		return t.alias.name
	}
	if len(t.params) == 0 {
		return t.name
	}
	parts := make([]string, len(t.params))
	for i, p := range t.params {
		parts[i] = quoted(p)
	}
	return t.name + "[" + strings.Join(parts, ", ") + "]"
}

// resolveType returns the definition of an alias (or t itself).
func (e *evaluator) resolveType(p syntax.Pos, t *ptype) *ptype {
	for depth := 0; t.alias != nil; depth++ {
		a := t.alias
		if a.resolved == nil {
			if a.busy || depth > 100 {
				panic(syntax.Unsupported(p, "recursive type alias "+a.name))
			}
			a.busy = true
			v := e.expr(e.top, a.def)
			a.busy = false
			rt, ok := v.(*ptype)
			if !ok {
				e.fail(p, "type alias %s is not a type", a.name)
			}
			a.resolved = rt
		}
		t = a.resolved
	}
	return t
}

// dataType evaluates a capitalized name with its parameters as a data
// type: a core type, an alias from the manifests or a module's types/
// directory, or a resource type (File, Class, Mymod::Thing).
func (e *evaluator) dataType(s *scope, x *syntax.TypeRef) *ptype {
	name := x.Type
	var params []any
	for _, n := range x.Titles {
		params = append(params, e.expr(s, n))
	}
	if name == "Enum" {
		// Puppet flattens the keys of Enum[...]: Enum[$list] takes the
		// list's strings
		params = flattenAll(params)
	}
	if _, ok := coreTypes[name]; ok {
		return &ptype{name: name, params: params}
	}
	if a := e.typeAlias(name); a != nil {
		if len(params) > 0 {
			e.fail(x.P, "type alias %s takes no parameters", name)
		}
		return &ptype{name: name, alias: a}
	}
	if e.isResourceType(strings.ToLower(name)) {
		return &ptype{name: catalog.CapitalizeType(name), params: params}
	}
	panic(syntax.Unsupported(x.P, "the data type "+name))
}

// isResourceType reports whether a lower-case name is a resource type:
// a core or module type, or a defined type.
func (e *evaluator) isResourceType(lower string) bool {
	if e.defines[lower] != nil || e.knownType(lower) {
		return true
	}
	e.loadModule(lower)
	return e.defines[lower] != nil
}

// typeAlias finds the alias Name: defined in the manifests, or in
// <module>/types/<rest>.pp.
func (e *evaluator) typeAlias(name string) *typeAlias {
	key := strings.ToLower(name)
	if a := e.aliases[key]; a != nil {
		return a
	}
	e.loadModuleFile(key, "types")
	return e.aliases[key]
}

// isInstance reports whether v is an instance of type t.
func (e *evaluator) isInstance(p syntax.Pos, v any, t *ptype) bool {
	t = e.resolveType(p, t)
	ps := t.params
	switch t.name {
	case "Any":
		return true
	case "Undef":
		return v == nil
	case "Default":
		_, ok := v.(defaultValue)
		return ok
	case "NotUndef":
		return v != nil && (len(ps) == 0 || e.isInstance(p, v, e.typeParam(p, ps[0])))
	case "Optional":
		return v == nil || len(ps) == 0 || e.isInstance(p, v, e.typeParam(p, ps[0]))
	case "Variant":
		for _, sub := range ps {
			if e.isInstance(p, v, e.typeParam(p, sub)) {
				return true
			}
		}
		return false
	case "String":
		s, ok := v.(string)
		return ok && inRange(p, e, int64(utf8.RuneCountInString(s)), ps, 0)
	case "Integer":
		i, ok := v.(int64)
		return ok && inRange(p, e, i, ps, math.MinInt64)
	case "Float":
		f, ok := v.(float64)
		return ok && floatRange(f, ps)
	case "Numeric":
		f, ok := numeric(v)
		return ok && floatRange(f, ps)
	case "Boolean":
		_, ok := v.(bool)
		return ok
	case "Regexp":
		_, ok := v.(*regexp.Regexp)
		return ok
	case "Enum":
		return e.enumMatch(v, ps)
	case "Pattern":
		return e.patternMatch(p, v, ps)
	case "Scalar":
		switch v.(type) {
		case string, int64, float64, bool, *regexp.Regexp:
			return true
		}
		return false
	case "ScalarData":
		switch v.(type) {
		case string, int64, float64, bool:
			return true
		}
		return false
	case "Data", "RichData":
		return isData(v, t.name == "RichData")
	case "Array", "Tuple", "Collection", "Iterable":
		return e.collectionInstance(p, v, t)
	case "Hash", "Struct":
		return e.hashInstance(p, v, t)
	case "Type":
		pt, ok := v.(*ptype)
		return ok && (len(ps) == 0 || e.assignable(p, e.typeParam(p, ps[0]), pt))
	case "Sensitive":
		_, ok := v.(sensitive)
		return ok
	case "Deferred":
		_, ok := v.(*deferred)
		return ok
	case "Callable":
		_, ok := v.(*lambdaValue)
		return ok
	case "CatalogEntry", "Resource", "Class":
		return e.refInstance(v, t)
	}
	if coreTypes[t.name] || strings.Contains(t.name, "::") || t.name != "" && e.isResourceType(strings.ToLower(t.name)) {
		if _, core := coreTypes[t.name]; !core {
			return e.refInstance(v, &ptype{name: "Resource", params: append([]any{t.name}, ps...)})
		}
	}
	panic(syntax.Unsupported(p, "instances of the data type "+t.name))
}

// typeParam returns a type parameter as a type; a string stands for
// Enum[string] (Optional['x']).
func (e *evaluator) typeParam(p syntax.Pos, v any) *ptype {
	switch x := v.(type) {
	case *ptype:
		return x
	case string:
		return &ptype{name: "Enum", params: []any{x}}
	}
	e.fail(p, "a type parameter must be a type, got %s", typeName(v))
	return nil
}

// inRange checks n against optional [min, max] parameters (default or
// missing: unbounded).
func inRange(p syntax.Pos, e *evaluator, n int64, ps []any, lo int64) bool {
	min, max := lo, int64(math.MaxInt64)
	if len(ps) > 0 {
		if x, ok := ps[0].(int64); ok {
			min = x
		}
	}
	if len(ps) > 1 {
		if x, ok := ps[1].(int64); ok {
			max = x
		}
	}
	return n >= min && n <= max
}

func floatRange(f float64, ps []any) bool {
	min, max := math.Inf(-1), math.Inf(1)
	if len(ps) > 0 {
		if x, ok := numeric(ps[0]); ok {
			min = x
		}
	}
	if len(ps) > 1 {
		if x, ok := numeric(ps[1]); ok {
			max = x
		}
	}
	return f >= min && f <= max
}

func (e *evaluator) enumMatch(v any, ps []any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	fold := false
	if len(ps) > 0 {
		if b, ok := ps[len(ps)-1].(bool); ok {
			fold, ps = b, ps[:len(ps)-1]
		}
	}
	for _, o := range ps {
		if os, ok := o.(string); ok && (os == s || fold && strings.EqualFold(os, s)) {
			return true
		}
	}
	return false
}

func (e *evaluator) patternMatch(p syntax.Pos, v any, ps []any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	if len(ps) == 0 {
		return true
	}
	for _, o := range ps {
		var re *regexp.Regexp
		switch x := o.(type) {
		case *regexp.Regexp:
			re = x
		case string:
			re = e.regexp(p, x)
		case *ptype:
			if x.name == "Regexp" && len(x.params) == 1 {
				if r, ok := x.params[0].(*regexp.Regexp); ok {
					re = r
				}
			}
		}
		if re == nil {
			panic(syntax.Unsupported(p, "a Pattern parameter of type "+typeName(o)))
		}
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

func isData(v any, rich bool) bool {
	switch x := v.(type) {
	case nil, string, int64, float64, bool:
		return true
	case []any:
		for _, el := range x {
			if !isData(el, rich) {
				return false
			}
		}
		return true
	case *hash:
		for _, k := range x.keys {
			if !isData(x.m[k], rich) {
				return false
			}
		}
		return true
	case *regexp.Regexp, *ptype, defaultValue, sensitive, *deferred, ref:
		return rich
	}
	return false
}

// collectionInstance checks Array[T, min, max], Tuple[T..., min, max],
// Collection[min, max] and Iterable[T].
func (e *evaluator) collectionInstance(p syntax.Pos, v any, t *ptype) bool {
	ps := t.params
	switch t.name {
	case "Collection":
		switch x := v.(type) {
		case []any:
			return inRange(p, e, int64(len(x)), ps, 0)
		case *hash:
			return inRange(p, e, int64(len(x.keys)), ps, 0)
		}
		return false
	case "Iterable":
		switch v.(type) {
		case []any, *hash, string, int64:
		default:
			return false
		}
		if len(ps) > 0 {
			panic(syntax.Unsupported(p, "Iterable with an element type"))
		}
		return true
	}
	arr, ok := v.([]any)
	if !ok {
		return false
	}
	if t.name == "Tuple" {
		var types []*ptype
		var bounds []any
		for _, x := range ps {
			if pt, ok := x.(*ptype); ok {
				types = append(types, pt)
			} else {
				bounds = append(bounds, x)
			}
		}
		if len(bounds) > 0 && !inRange(p, e, int64(len(arr)), bounds, 0) || len(bounds) == 0 && len(arr) != len(types) {
			return false
		}
		for i, el := range arr {
			if len(types) > 0 && !e.isInstance(p, el, types[min(i, len(types)-1)]) {
				return false
			}
		}
		return true
	}
	var elem *ptype
	bounds := ps
	if len(ps) > 0 {
		if pt, ok := ps[0].(*ptype); ok {
			elem, bounds = pt, ps[1:]
		}
	}
	if !inRange(p, e, int64(len(arr)), bounds, 0) {
		return false
	}
	if elem != nil {
		for _, el := range arr {
			if !e.isInstance(p, el, elem) {
				return false
			}
		}
	}
	return true
}

// hashInstance checks Hash[K, V, min, max] and Struct[{key => T}].
func (e *evaluator) hashInstance(p syntax.Pos, v any, t *ptype) bool {
	h, ok := v.(*hash)
	if !ok {
		return false
	}
	ps := t.params
	if t.name == "Struct" {
		if len(ps) != 1 {
			return len(ps) == 0
		}
		spec, ok := ps[0].(*hash)
		if !ok {
			e.fail(p, "Struct expects a Hash of member types")
		}
		return e.structInstance(p, h, spec)
	}
	var kt, vt *ptype
	bounds := ps
	if len(ps) >= 2 {
		k, ok1 := ps[0].(*ptype)
		vv, ok2 := ps[1].(*ptype)
		if ok1 && ok2 {
			kt, vt, bounds = k, vv, ps[2:]
		}
	}
	if !inRange(p, e, int64(len(h.keys)), bounds, 0) {
		return false
	}
	for _, k := range h.keys {
		if kt != nil && (!e.isInstance(p, k, kt) || !e.isInstance(p, h.m[k], vt)) {
			return false
		}
	}
	return true
}

// structInstance checks a hash against Struct members: keys are strings
// or Optional['key'] (may be missing) / NotUndef['key'].
func (e *evaluator) structInstance(p syntax.Pos, h *hash, spec *hash) bool {
	seen := map[string]bool{}
	for _, sk := range spec.keys {
		name, optional := sk, false
		// member keys of Optional['x'] were stringified: see structKey
		if strings.HasPrefix(sk, "\x00opt:") {
			name, optional = strings.TrimPrefix(sk, "\x00opt:"), true
		}
		seen[name] = true
		mt, ok := spec.m[sk].(*ptype)
		if !ok {
			e.fail(p, "Struct member %s: want a type", name)
		}
		v, has := h.m[name]
		if !has {
			if optional || e.isInstance(p, nil, mt) {
				continue
			}
			return false
		}
		if !e.isInstance(p, v, mt) {
			return false
		}
	}
	for _, k := range h.keys {
		if !seen[k] {
			return false
		}
	}
	return true
}

// refInstance checks a resource reference against Resource[Type, title],
// Class[name] or a resource type used as a type (File['/x']).
func (e *evaluator) refInstance(v any, t *ptype) bool {
	r, ok := v.(ref)
	if !ok {
		return false
	}
	ps := t.params
	switch t.name {
	case "CatalogEntry":
		return true
	case "Class":
		return r.Type == "Class" && (len(ps) == 0 || strings.EqualFold(toString(ps[0]), r.Title))
	}
	if len(ps) == 0 {
		return true
	}
	if !strings.EqualFold(toString(ps[0]), r.Type) {
		return false
	}
	return len(ps) < 2 || toString(ps[1]) == r.Title
}

// assignable reports whether every instance of sub is an instance of t,
// for the cases manifests use (Type[Integer] and the like).
func (e *evaluator) assignable(p syntax.Pos, t, sub *ptype) bool {
	t, sub = e.resolveType(p, t), e.resolveType(p, sub)
	if t.name == "Any" || t.String() == sub.String() {
		return true
	}
	if len(t.params) == 0 && t.name == sub.name {
		return true
	}
	switch t.name {
	case "Variant":
		for _, x := range t.params {
			if e.assignable(p, e.typeParam(p, x), sub) {
				return true
			}
		}
		return false
	case "Optional":
		return sub.name == "Undef" || len(t.params) > 0 && e.assignable(p, e.typeParam(p, t.params[0]), sub)
	case "Numeric":
		return sub.name == "Integer" || sub.name == "Float"
	case "Scalar":
		return sub.name == "String" || sub.name == "Integer" || sub.name == "Float" || sub.name == "Numeric" || sub.name == "Boolean" || sub.name == "Regexp"
	}
	panic(syntax.Unsupported(p, "checking whether "+sub.String()+" is a "+t.String()))
}
