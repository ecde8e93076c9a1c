// Package golang holds the mcl modules "golang/<pkg>" that wrap functions
// of Go's standard library (html, math, math/rand as golang/rand, os,
// os/exec as golang/exec, path, path/filepath as golang/filepath, runtime,
// strconv, strings) under snake_case names: golang/strings.trim_space,
// golang/strconv.itoa, golang/math.is_nan. (golang.template and the first
// golang/strings functions live in coregolang; this package adds only the
// names not registered there.)
//
// Each wrapped Go function is described by reflection: parameters and
// results of type bool, string, int, int64, float64, []byte (as str) or
// []string map to mcl types, a variadic ...string parameter becomes a []str
// parameter, and a trailing error result becomes a catchable mcl error.
// Functions with effects on the system (os.Remove, os.Chdir, ...) are left
// out, as are those whose types have no mcl equivalent.
package golang

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"unicode"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"

	// The core package registers golang.template and a few golang/strings
	// functions; importing it runs its init first, so register can skip
	// the names it already has. Its GoDoc documents every wrapper.
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs/coregolang"
)

var errorType = reflect.TypeOf((*error)(nil)).Elem()

// goFunc is one standard library function to wrap: its Go name (turned
// into snake_case), the function itself and whether it is pure.
type goFunc struct {
	name string
	fn   any
	pure bool
}

// register wraps every function of fs into module golang/<pkg>.
func register(pkg string, fs []goFunc) {
	for _, g := range fs {
		if _, dup := funcs.Lookup("golang/"+pkg, SnakeCase(g.name)); dup {
			continue
		}
		f, err := Wrap("golang/"+pkg, SnakeCase(g.name), g.fn)
		if err != nil {
			panic(fmt.Sprintf("golang/%s.%s: %v", pkg, g.name, err))
		}
		f.Pure = g.pure
		coregolang.GoDoc(g.fn)(f)
		funcs.RegisterFunc(f)
	}
}

// mclType returns the mcl type of a Go parameter or result type.
func mclType(t reflect.Type) (*types.Type, bool) {
	switch t.Kind() {
	case reflect.Bool:
		return types.Bool, true
	case reflect.String:
		return types.Str, true
	case reflect.Int, reflect.Int64:
		return types.Int, true
	case reflect.Float64:
		return types.Float, true
	case reflect.Slice:
		switch t.Elem().Kind() {
		case reflect.Uint8:
			return types.Str, true
		case reflect.String:
			return types.NewList(types.Str), true
		}
	}
	return nil, false
}

// Wrap describes the Go function fn as an mcl function module.name. It
// fails when a parameter or result has no mcl type.
func Wrap(module, name string, fn any) (*funcs.Func, error) {
	rv := reflect.ValueOf(fn)
	rt := rv.Type()
	if rt.Kind() != reflect.Func {
		return nil, fmt.Errorf("not a function")
	}
	params := make([]types.Field, rt.NumIn())
	for i := range params {
		t, ok := mclType(rt.In(i))
		if !ok {
			return nil, fmt.Errorf("parameter %d: unsupported type %s", i+1, rt.In(i))
		}
		params[i] = types.Field{Name: fmt.Sprintf("a%d", i+1), Type: t}
	}
	nout := rt.NumOut()
	withErr := nout == 2 && rt.Out(1) == errorType
	if nout != 1 && !withErr {
		return nil, fmt.Errorf("must return one value, or a value and an error")
	}
	out, ok := mclType(rt.Out(0))
	if !ok {
		return nil, fmt.Errorf("unsupported result type %s", rt.Out(0))
	}
	sig := types.NewFunc(params, out)
	impl := func(ctx context.Context, c *funcs.Call) (values.Value, error) {
		in := make([]reflect.Value, len(c.Args))
		for i, a := range c.Args {
			in[i] = toReflect(a, rt.In(i))
		}
		var res []reflect.Value
		if rt.IsVariadic() {
			res = rv.CallSlice(in)
		} else {
			res = rv.Call(in)
		}
		if withErr && !res[1].IsNil() {
			return nil, funcs.Catchablef("%s.%s: %v", module, name, res[1].Interface())
		}
		return fromReflect(res[0]), nil
	}
	return &funcs.Func{Module: module, Name: name, Sigs: []*types.Type{sig}, Impl: impl}, nil
}

func toReflect(v values.Value, t reflect.Type) reflect.Value {
	switch x := v.(type) {
	case values.Bool:
		return reflect.ValueOf(bool(x))
	case values.Str:
		if t.Kind() == reflect.Slice {
			return reflect.ValueOf([]byte(x))
		}
		return reflect.ValueOf(string(x))
	case values.Int:
		return reflect.ValueOf(int64(x)).Convert(t)
	case values.Float:
		return reflect.ValueOf(float64(x))
	case *values.List:
		ss := make([]string, len(x.V))
		for i, e := range x.V {
			ss[i] = string(e.(values.Str))
		}
		return reflect.ValueOf(ss)
	}
	return reflect.Zero(t)
}

func fromReflect(rv reflect.Value) values.Value {
	switch rv.Kind() {
	case reflect.Bool:
		return values.Bool(rv.Bool())
	case reflect.String:
		return values.Str(rv.String())
	case reflect.Int, reflect.Int64:
		return values.Int(rv.Int())
	case reflect.Float64:
		return values.Float(rv.Float())
	case reflect.Slice:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return values.Str(rv.Bytes())
		}
		l := values.NewList(types.Str)
		l.V = make([]values.Value, rv.Len())
		for i := range l.V {
			l.V[i] = values.Str(rv.Index(i).String())
		}
		return l
	}
	return nil
}

// acronyms are the words kept whole when converting a Go name.
var acronyms = []string{"ASCII", "NaN", "UTF8", "URL", "HTML", "GOROOT", "CPU"}

// SnakeCase converts a Go identifier to the snake_case name of its mcl
// wrapper: TrimSpace -> trim_space, QuoteToASCII -> quote_to_ascii,
// IsNaN -> is_nan, Log10 -> log10.
func SnakeCase(name string) string {
	var words []string
	rs := []rune(name)
	start := 0
	for i := 0; i < len(rs); i++ {
		if w := acronymAt(rs, i); w != "" {
			if start < i {
				words = append(words, string(rs[start:i]))
			}
			words = append(words, w)
			i += len(w) - 1
			start = i + 1
			continue
		}
		if i > start && unicode.IsUpper(rs[i]) {
			words = append(words, string(rs[start:i]))
			start = i
		}
	}
	if start < len(rs) {
		words = append(words, string(rs[start:]))
	}
	return strings.ToLower(strings.Join(words, "_"))
}

// acronymAt returns the acronym starting at rs[i] when it is a whole word.
func acronymAt(rs []rune, i int) string {
	rest := string(rs[i:])
	for _, a := range acronyms {
		if strings.HasPrefix(rest, a) {
			end := i + len(a)
			if end == len(rs) || unicode.IsUpper(rs[end]) || unicode.IsDigit(rs[end]) {
				return a
			}
		}
	}
	return ""
}

var (
	errNegative = fmt.Errorf("negative count")
	errTooLong  = fmt.Errorf("result too long")
)
