// Package coregolang holds the mcl modules "golang" (template) and
// "golang/strings" (wrappers of Go's strings package).
package coregolang

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"text/template"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func init() {
	funcs.RegisterMulti("golang", "template", []string{"func(template str) str", "func(template str, vars ?1) str"}, runTemplate, funcs.Doc(`Executes a Go text/template, with an optional value as its data ("{{ .name }}" for a struct or map field).`, `golang.template("hello {{ .name }}", struct{name => "world",})`))
	funcs.RegisterMulti("", "template", []string{"func(template str) str", "func(template str, vars ?1) str"}, runTemplate, funcs.Doc(`golang.template under its older top-level name, which upstream mgmt's examples still use.`, `template("hello {{ . }}", "world")`))
}

// ToTemplate converts a value for text/template: structs become maps
// holding each field under its name and its capitalized name (so both
// {{ .name }} and {{ .Name }} work).
func ToTemplate(v values.Value) any {
	switch x := v.(type) {
	case *values.Struct:
		m := make(map[string]any, 2*len(x.V))
		for i, f := range x.T.Fields {
			g := ToTemplate(x.V[i])
			m[f.Name] = g
			m[strings.ToUpper(f.Name[:1])+f.Name[1:]] = g
		}
		return m
	case *values.List:
		out := make([]any, len(x.V))
		for i, e := range x.V {
			out[i] = ToTemplate(e)
		}
		return out
	case *values.Map:
		return templateMap(x)
	}
	return values.ToGo(v)
}

// templateMap converts a map to a Go map whose key and value types follow
// the mcl ones where they are scalars (map{int: str} is map[int64]string),
// so that index finds an int key given as a template constant (text/template
// converts 2 to int64 for such a map) and a missing key gives the zero value
// of the value type. Other values become any; other keys (structs), which Go
// cannot hash as maps, are written as their mcl literal.
func templateMap(x *values.Map) any {
	kt, vt := goScalar(x.T.Key), goScalar(x.T.Val)
	scalarKeys := kt != nil
	if !scalarKeys {
		kt = reflect.TypeFor[string]()
	}
	if vt == nil {
		vt = reflect.TypeFor[any]()
	}
	m := reflect.MakeMapWithSize(reflect.MapOf(kt, vt), len(x.Keys))
	for i, k := range x.Keys {
		var key any = k.String()
		if scalarKeys {
			key = values.ToGo(k)
		}
		m.SetMapIndex(goValue(key, kt), goValue(ToTemplate(x.Vals[i]), vt))
	}
	return m.Interface()
}

// goScalar returns the Go type of a scalar mcl type, nil for the others.
func goScalar(t *types.Type) reflect.Type {
	switch t.Prune().Kind {
	case types.KindBool:
		return reflect.TypeFor[bool]()
	case types.KindStr:
		return reflect.TypeFor[string]()
	case types.KindInt:
		return reflect.TypeFor[int64]()
	case types.KindFloat:
		return reflect.TypeFor[float64]()
	}
	return nil
}

// goValue returns v as a reflect.Value of type t (the zero value for nil).
func goValue(v any, t reflect.Type) reflect.Value {
	if v == nil {
		return reflect.Zero(t)
	}
	return reflect.ValueOf(v).Convert(t)
}

// templateBuiltins are the functions text/template defines itself; a
// FuncMap entry of the same name would replace them.
var templateBuiltins = map[string]bool{
	"and": true, "call": true, "html": true, "index": true, "slice": true, "js": true, "len": true,
	"not": true, "or": true, "print": true, "printf": true, "println": true, "urlquery": true,
	"eq": true, "ge": true, "gt": true, "le": true, "lt": true, "ne": true,
}

// templateFuncs makes the functions with one concrete signature callable
// from templates, under the names upstream gives them: a module function
// as module_name, slashes also turned into underscores
// (golang/strings.join is golang_strings_join), a top-level one with an
// underscore in front (concat is _concat). Each is also reachable by its
// bare name (int2str) when no other such function has that name and
// text/template has no function of that name; an ambiguous bare name is
// a function failing with an error that lists the full names to use.
func templateFuncs(ctx context.Context, env *funcs.Env) template.FuncMap {
	fm := template.FuncMap{}
	bare := map[string][]string{}
	for _, f := range funcs.All() {
		if len(f.Sigs) != 1 || f.Impl == nil || !f.Sigs[0].IsConcrete() {
			continue
		}
		name := "_" + f.Name
		if f.Module != "" {
			name = strings.ReplaceAll(f.Module, "/", "_") + "_" + f.Name
		}
		fm[name] = templateFunc(ctx, env, f, name)
		if !templateBuiltins[f.Name] {
			bare[f.Name] = append(bare[f.Name], name)
		}
	}
	for short, full := range bare {
		if _, taken := fm[short]; taken {
			continue
		}
		if len(full) == 1 {
			fm[short] = fm[full[0]]
			continue
		}
		msg := fmt.Sprintf("%s is ambiguous: use one of %s", short, strings.Join(full, ", "))
		fm[short] = func(...any) (any, error) { return nil, errors.New(msg) }
	}
	return fm
}

// templateFunc wraps the function f, of one concrete signature, for a
// template: arguments are converted to mcl values of the signature's
// types, and the result back to what templates handle.
func templateFunc(ctx context.Context, env *funcs.Env, f *funcs.Func, name string) func(args ...any) (any, error) {
	sig := f.Sigs[0]
	return func(args ...any) (any, error) {
		if len(args) != len(sig.Fields) {
			return nil, fmt.Errorf("%s takes %d arguments, got %d", name, len(sig.Fields), len(args))
		}
		vs := make([]values.Value, len(args))
		for i, a := range args {
			if n, ok := a.(int); ok {
				a = int64(n)
			}
			v, err := values.FromGo(a, sig.Fields[i].Type)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", name, err)
			}
			vs[i] = v
		}
		out, err := f.Impl(ctx, &funcs.Call{Type: sig, Args: vs, Env: env})
		if err != nil {
			return nil, err
		}
		return ToTemplate(out), nil
	}
}

func runTemplate(ctx context.Context, c *funcs.Call) (values.Value, error) {
	t, err := template.New("template").Option("missingkey=error").Funcs(templateFuncs(ctx, c.Env)).Parse(string(c.Args[0].(values.Str)))
	if err != nil {
		return nil, fmt.Errorf("template: %v", err)
	}
	var data any
	if len(c.Args) == 2 {
		data = ToTemplate(c.Args[1])
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("template: %v", err)
	}
	return values.Str(b.String()), nil
}

var strListType = types.NewList(types.Str)
