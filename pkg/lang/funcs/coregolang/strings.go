package coregolang

import (
	"context"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func str(v values.Value) string { return string(v.(values.Str)) }

func strs(v values.Value) []string {
	l := v.(*values.List)
	out := make([]string, len(l.V))
	for i, e := range l.V {
		out[i] = str(e)
	}
	return out
}

func reg1(name string, fn func(string) string) {
	funcs.Register("golang/strings", name, "func(s str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(fn(str(a[0]))), nil
	}, GoDoc(fn))
}

func reg2b(name string, fn func(string, string) bool) {
	funcs.Register("golang/strings", name, "func(s str, t str) bool", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Bool(fn(str(a[0]), str(a[1]))), nil
	}, GoDoc(fn))
}

func reg2s(name string, fn func(string, string) string) {
	funcs.Register("golang/strings", name, "func(s str, t str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(fn(str(a[0]), str(a[1]))), nil
	}, GoDoc(fn))
}

func init() {
	reg1("trim_space", strings.TrimSpace)
	reg1("to_upper", strings.ToUpper)
	reg1("to_lower", strings.ToLower)
	reg2b("contains", strings.Contains)
	reg2b("has_prefix", strings.HasPrefix)
	reg2b("has_suffix", strings.HasSuffix)
	reg2b("equal_fold", strings.EqualFold)
	reg2s("trim", strings.Trim)
	reg2s("trim_prefix", strings.TrimPrefix)
	reg2s("trim_suffix", strings.TrimSuffix)
	reg2s("trim_left", strings.TrimLeft)
	reg2s("trim_right", strings.TrimRight)
	funcs.Register("golang/strings", "join", "func(elems []str, sep str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(strings.Join(strs(a[0]), str(a[1]))), nil
	}, GoDoc(strings.Join))
	funcs.Register("golang/strings", "split", "func(s str, sep str) []str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return strList(strings.Split(str(a[0]), str(a[1]))), nil
	}, GoDoc(strings.Split))
	funcs.Register("golang/strings", "fields", "func(s str) []str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return strList(strings.Fields(str(a[0]))), nil
	}, GoDoc(strings.Fields))
	funcs.Register("golang/strings", "replace_all", "func(s str, old str, new str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(strings.ReplaceAll(str(a[0]), str(a[1]), str(a[2]))), nil
	}, GoDoc(strings.ReplaceAll))
	funcs.Register("golang/strings", "repeat", "func(s str, count int) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		n := int(a[1].(values.Int))
		if n < 0 || n*len(str(a[0])) > 1<<24 {
			return nil, funcs.Catchablef("repeat count %d out of range", n)
		}
		return values.Str(strings.Repeat(str(a[0]), n)), nil
	}, GoDoc(strings.Repeat))
	funcs.Register("golang/strings", "index", "func(s str, substr str) int", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Int(strings.Index(str(a[0]), str(a[1]))), nil
	}, GoDoc(strings.Index))
	funcs.Register("golang/strings", "count", "func(s str, substr str) int", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Int(strings.Count(str(a[0]), str(a[1]))), nil
	}, GoDoc(strings.Count))
}

func strList(ss []string) *values.List {
	l := &values.List{T: strListType, V: make([]values.Value, len(ss))}
	for i, s := range ss {
		l.V[i] = values.Str(s)
	}
	return l
}
