package golang

import (
	"context"
	"math"
	"runtime"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func call(t *testing.T, module, name string, args ...values.Value) (values.Value, error) {
	t.Helper()
	f, ok := funcs.Lookup(module, name)
	if !ok {
		t.Fatalf("%s.%s is not registered", module, name)
	}
	return f.Impl(context.Background(), &funcs.Call{Type: f.Sigs[0], Args: args, Env: &funcs.Env{}})
}

func strs(ss ...string) *values.List {
	l := values.NewList(types.Str)
	for _, s := range ss {
		l.V = append(l.V, values.Str(s))
	}
	return l
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"TrimSpace": "trim_space", "Itoa": "itoa", "QuoteToASCII": "quote_to_ascii",
		"IsNaN": "is_nan", "Log10": "log10", "ToValidUTF8": "to_valid_utf8",
		"NumCPU": "num_cpu", "GOROOT": "goroot", "Int63n": "int63n",
		"ExpFloat64": "exp_float64", "UserHomeDir": "user_home_dir", "EqualFold": "equal_fold",
	} {
		if got := SnakeCase(in); got != want {
			t.Errorf("SnakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWrapped(t *testing.T) {
	tests := []struct {
		module, name string
		args         []values.Value
		want         values.Value
	}{
		{"golang/strings", "compare", []values.Value{values.Str("a"), values.Str("b")}, values.Int(-1)},
		{"golang/strings", "last_index", []values.Value{values.Str("go gopher"), values.Str("go")}, values.Int(3)},
		{"golang/strings", "split_n", []values.Value{values.Str("a,b,c"), values.Str(","), values.Int(2)}, strs("a", "b,c")},
		{"golang/strings", "repeat", []values.Value{values.Str("ab"), values.Int(3)}, values.Str("ababab")},
		{"golang/strconv", "itoa", []values.Value{values.Int(-42)}, values.Str("-42")},
		{"golang/strconv", "atoi", []values.Value{values.Str("17")}, values.Int(17)},
		{"golang/strconv", "parse_float", []values.Value{values.Str("2.5"), values.Int(64)}, values.Float(2.5)},
		{"golang/strconv", "format_int", []values.Value{values.Int(255), values.Int(16)}, values.Str("ff")},
		{"golang/strconv", "quote", []values.Value{values.Str("a\"b")}, values.Str(`"a\"b"`)},
		{"golang/math", "sqrt", []values.Value{values.Float(16)}, values.Float(4)},
		{"golang/math", "max", []values.Value{values.Float(1), values.Float(2)}, values.Float(2)},
		{"golang/math", "is_nan", []values.Value{values.Float(math.NaN())}, values.Bool(true)},
		{"golang/math", "pow10", []values.Value{values.Int(3)}, values.Float(1000)},
		{"golang/html", "escape_string", []values.Value{values.Str("<a&b>")}, values.Str("&lt;a&amp;b&gt;")},
		{"golang/path", "join", []values.Value{strs("a", "b/", "../c")}, values.Str("a/c")},
		{"golang/path", "match", []values.Value{values.Str("*.go"), values.Str("x.go")}, values.Bool(true)},
		{"golang/filepath", "base", []values.Value{values.Str("/x/y.txt")}, values.Str("y.txt")},
		{"golang/filepath", "rel", []values.Value{values.Str("/a"), values.Str("/a/b/c")}, values.Str("b/c")},
		{"golang/runtime", "version", nil, values.Str(runtime.Version())},
	}
	for _, tc := range tests {
		got, err := call(t, tc.module, tc.name, tc.args...)
		if err != nil {
			t.Errorf("%s.%s: %v", tc.module, tc.name, err)
			continue
		}
		if !values.Equal(got, tc.want) {
			t.Errorf("%s.%s(%v) = %s, want %s", tc.module, tc.name, tc.args, got, tc.want)
		}
	}
}

func TestWrappedErrors(t *testing.T) {
	tests := []struct {
		module, name string
		args         []values.Value
	}{
		{"golang/strconv", "atoi", []values.Value{values.Str("x")}},
		{"golang/strconv", "parse_bool", []values.Value{values.Str("maybe")}},
		{"golang/strconv", "unquote", []values.Value{values.Str(`"open`)}},
		{"golang/strings", "repeat", []values.Value{values.Str("x"), values.Int(-1)}},
		{"golang/path", "match", []values.Value{values.Str("["), values.Str("x")}},
	}
	for _, tc := range tests {
		_, err := call(t, tc.module, tc.name, tc.args...)
		if err == nil || !funcs.IsCatchable(err) {
			t.Errorf("%s.%s(%v): got error %v, want a catchable one", tc.module, tc.name, tc.args, err)
		}
	}
}

// TestSignatures checks that every golang/* function has one concrete
// signature, so it is also callable from templates.
func TestSignatures(t *testing.T) {
	n := 0
	for _, f := range funcs.All() {
		if len(f.Module) < 7 || f.Module[:7] != "golang/" {
			continue
		}
		n++
		if len(f.Sigs) != 1 || !f.Sigs[0].IsConcrete() {
			t.Errorf("%s: signatures %v", f.FullName(), f.Sigs)
		}
	}
	if n < 100 {
		t.Errorf("only %d golang/* functions registered", n)
	}
}

func TestWrapRejects(t *testing.T) {
	for _, fn := range []any{42, func(rune) string { return "" }, func() {}, func() (int, int) { return 0, 0 }} {
		if _, err := Wrap("golang/x", "y", fn); err == nil {
			t.Errorf("Wrap(%T) succeeded", fn)
		}
	}
}

// BenchmarkWrapped measures a call through the reflection wrapper.
func BenchmarkWrapped(b *testing.B) {
	f, _ := funcs.Lookup("golang/strings", "last_index")
	c := &funcs.Call{Type: f.Sigs[0], Args: []values.Value{values.Str("go gopher"), values.Str("go")}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Impl(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
}
