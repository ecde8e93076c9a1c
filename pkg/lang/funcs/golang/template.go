// Package golang holds the mcl module "golang" (template, Go's
// text/template) and the modules "golang/<pkg>" that wrap functions of Go's
// standard library (html, math, math/rand, os, os/exec, path, path/filepath,
// runtime, strconv, strings) under snake_case names.
//
// # Templates
//
// golang.template(tmpl, vars) executes tmpl with vars as its data. The value
// is converted to plain Go data first: a struct becomes a map whose keys are
// the field names with their first letter upper-cased ({{ .Name }} for the
// field name, {{ .Raw_query }} for raw_query), a map with str keys a map
// keyed by those strings, lists slices. A missing key is an execution error.
// Every non-streaming library function with one concrete signature is
// callable from a template as <module>_<name>, with "/" in the module path
// replaced by "_" (golang_strings_join, net_url_parser, datetime_print);
// their results are converted the same way.
//
// # Standard library wrappers
//
// Each wrapped Go function is described by reflection: parameters and
// results of type bool, string, int, int64, float64, []byte (as str) or
// []string map to mcl types, a variadic ...string parameter becomes a []str
// parameter, and a trailing error result becomes a catchable mcl error.
package golang

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"text/template"
	"unicode"
	"unicode/utf8"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func init() {
	funcs.RegisterFunc(&funcs.Func{Module: "golang", Name: "template", Pure: true,
		Infer: inferTemplate,
		Impl:  runTemplate,
		Doc:   "execute a Go text/template with an optional value as its data",
	})
}

func inferTemplate(ic *funcs.InferCtx) error {
	if len(ic.Args) != 1 && len(ic.Args) != 2 {
		return fmt.Errorf("template takes 1 or 2 args, got %d", len(ic.Args))
	}
	if err := ic.Unify(ic.Args[0], types.Str); err != nil {
		return fmt.Errorf("template string: %v", err)
	}
	if err := ic.Unify(ic.Out, types.Str); err != nil {
		return err
	}
	if len(ic.Args) == 2 && !ic.Args[1].IsConcrete() {
		if ic.Final {
			return fmt.Errorf("the type of the template's vars is unknown; annotate the variable passed")
		}
		return funcs.ErrDefer
	}
	return nil
}

func runTemplate(ctx context.Context, c *funcs.Call) (values.Value, error) {
	var data any
	if len(c.Args) == 2 {
		data = ToTemplate(c.Args[1])
	}
	s, err := Execute(ctx, c.Env, string(c.Args[0].(values.Str)), data)
	if err != nil {
		return nil, err
	}
	return values.Str(s), nil
}

// Execute runs the template text with data, the library functions being
// available as <module>_<name>.
func Execute(ctx context.Context, env *funcs.Env, text string, data any) (string, error) {
	t, err := template.New("template").Option("missingkey=error").Funcs(funcMap(ctx, env)).Parse(text)
	if err != nil {
		return "", fmt.Errorf("template: parse error: %v", err)
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("template: execution error: %v", err)
	}
	return b.String(), nil
}

// ToTemplate converts v to the Go data a template sees: structs become
// maps keyed by their title-cased field names.
func ToTemplate(v values.Value) any {
	switch x := v.(type) {
	case *values.List:
		out := make([]any, len(x.V))
		for i, e := range x.V {
			out[i] = ToTemplate(e)
		}
		return out
	case *values.Map:
		if x.T.Key.Prune().Kind == types.KindStr {
			out := make(map[string]any, len(x.Keys))
			for i, k := range x.Keys {
				out[string(k.(values.Str))] = ToTemplate(x.Vals[i])
			}
			return out
		}
		out := make(map[any]any, len(x.Keys))
		for i, k := range x.Keys {
			out[ToTemplate(k)] = ToTemplate(x.Vals[i])
		}
		return out
	case *values.Struct:
		out := make(map[string]any, len(x.V))
		for i, f := range x.T.Fields {
			out[title(f.Name)] = ToTemplate(x.V[i])
		}
		return out
	}
	return values.ToGo(v)
}

func title(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// templateFunc is a library function callable from templates.
type templateFunc struct {
	f   *funcs.Func
	sig *types.Type
}

var (
	tfOnce sync.Once
	tfList map[string]templateFunc
)

// templateFuncs lists the library functions usable in templates: not
// streaming, one concrete signature. It is computed once, after every
// module has registered.
func templateFuncs() map[string]templateFunc {
	tfOnce.Do(func() {
		tfList = map[string]templateFunc{}
		for _, m := range funcs.Modules() {
			for _, name := range funcs.ModuleFuncs(m) {
				f, _ := funcs.Lookup(m, name)
				if f == nil || f.Stream != nil || len(f.Sigs) != 1 || !f.Sigs[0].IsConcrete() {
					continue
				}
				key := strings.ReplaceAll(m, "/", "_") + "_" + name
				tfList[key] = templateFunc{f: f, sig: f.Sigs[0]}
			}
		}
	})
	return tfList
}

func funcMap(ctx context.Context, env *funcs.Env) template.FuncMap {
	fm := template.FuncMap{}
	for name, tf := range templateFuncs() {
		fm[name] = func(args ...any) (any, error) { return tf.call(ctx, env, args) }
	}
	return fm
}

func (tf templateFunc) call(ctx context.Context, env *funcs.Env, args []any) (any, error) {
	params := tf.sig.Fields
	if len(args) != len(params) {
		return nil, fmt.Errorf("%s: got %d args, want %d", tf.f.FullName(), len(args), len(params))
	}
	vs := make([]values.Value, len(args))
	for i, a := range args {
		v, err := values.FromGo(deref(a), params[i].Type)
		if err != nil {
			return nil, fmt.Errorf("%s: arg %d: %v", tf.f.FullName(), i+1, err)
		}
		vs[i] = v
	}
	impl := tf.f.Impl
	if tf.f.Build != nil {
		var err error
		if impl, err = tf.f.Build(tf.sig); err != nil {
			return nil, err
		}
	}
	out, err := impl(ctx, &funcs.Call{Type: tf.sig, Args: vs, Env: env})
	if err != nil {
		return nil, err
	}
	return ToTemplate(out), nil
}

func deref(a any) any {
	if rv := reflect.ValueOf(a); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		return rv.Elem().Interface()
	}
	return a
}
