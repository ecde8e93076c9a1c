package library

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// val converts Go test data to an mcl value.
func val(x any) values.Value {
	switch y := x.(type) {
	case values.Value:
		return y
	case string:
		return values.Str(y)
	case int:
		return values.Int(y)
	case float64:
		return values.Float(y)
	case bool:
		return values.Bool(y)
	case []string:
		l := values.NewList(types.Str)
		for _, s := range y {
			l.V = append(l.V, values.Str(s))
		}
		return l
	case []int:
		l := values.NewList(types.Int)
		for _, i := range y {
			l.V = append(l.V, values.Int(i))
		}
		return l
	case map[string]int:
		m := values.NewMap(types.NewMap(types.Str, types.Int))
		for k, v := range y {
			m.Set(values.Str(k), values.Int(v))
		}
		return m
	}
	panic(fmt.Sprintf("val: %T", x))
}

// callCase is one call of a library function: the module and name, the
// call site's signature when the function is polymorphic (else its own),
// the arguments, and either the printed result or the error expected
// ("catchable" for a catchable one, "error" for any).
type callCase struct {
	fn   string
	sig  string
	args []any
	want string
}

func (cc callCase) run(t *testing.T, env *funcs.Env) {
	t.Helper()
	module, name := "", cc.fn
	if i := strings.LastIndex(cc.fn, "."); i >= 0 {
		module, name = cc.fn[:i], cc.fn[i+1:]
	}
	f, ok := funcs.Lookup(module, name)
	if !ok {
		t.Errorf("%s is not registered", cc.fn)
		return
	}
	var sig *types.Type
	switch {
	case cc.sig != "":
		sig = types.MustParse(cc.sig)
	case len(f.Sigs) == 1:
		sig = f.Sigs[0]
	default:
		t.Errorf("%s: give the signature", cc.fn)
		return
	}
	args := make([]values.Value, len(cc.args))
	for i, a := range cc.args {
		args[i] = val(a)
	}
	impl := f.Impl
	if f.Build != nil {
		var err error
		if impl, err = f.Build(sig); err != nil {
			t.Errorf("%s: build: %v", cc.fn, err)
			return
		}
	}
	got, err := impl(context.Background(), &funcs.Call{Type: sig, Args: args, Env: env})
	switch {
	case cc.want == "catchable":
		if !funcs.IsCatchable(err) {
			t.Errorf("%s%v: got %v, %v; want a catchable error", cc.fn, cc.args, got, err)
		}
	case cc.want == "error":
		if err == nil {
			t.Errorf("%s%v: got %v; want an error", cc.fn, cc.args, got)
		}
	case err != nil:
		t.Errorf("%s%v: %v", cc.fn, cc.args, err)
	case got.String() != cc.want:
		t.Errorf("%s%v = %s, want %s", cc.fn, cc.args, got, cc.want)
	case !types.Equal(got.Type(), sig.Out):
		t.Errorf("%s%v: result type %s, want %s", cc.fn, cc.args, got.Type(), sig.Out)
	}
}

// TestPureModules calls the pure functions of every module through the
// registry, as the compiler does.
func TestPureModules(t *testing.T) {
	cases := []callCase{
		{"convert.format_bool", "", []any{true}, `"true"`},
		{"convert.int_to_str", "", []any{-12}, `"-12"`},
		{"convert.parse_bool", "", []any{"false"}, `false`},
		{"convert.parse_bool", "", []any{"nope"}, "catchable"},
		{"convert.str_to_float", "", []any{"2.5"}, `2.5`},
		{"convert.str_to_float", "", []any{"x"}, "catchable"},
		{"convert.str_to_int", "", []any{"42"}, `42`},
		{"convert.str_to_int", "", []any{"4.2"}, "catchable"},
		{"convert.to_float", "", []any{3}, `3.0`},
		{"convert.to_int", "", []any{3.9}, `3`},
		{"convert.to_int", "", []any{-3.9}, `-3`},

		{"encoding.base64_encode", "", []any{"hello"}, `"aGVsbG8="`},
		{"encoding.base64_decode", "", []any{"aGVsbG8="}, `"hello"`},
		{"encoding.base64_decode", "", []any{"!!"}, "catchable"},
		{"encoding.decode_json", "func(data str) map{str: int}", []any{`{"a": 1, "b": 2}`}, `{"a" => 1, "b" => 2}`},
		{"encoding.decode_json", "func(data str, t str) []str", []any{`["x", "y"]`, "[]str"}, `["x", "y"]`},
		{"encoding.decode_json", "func(data str) struct{a int; b str}", []any{`{"a": 1, "b": "x"}`}, `struct{a => 1, b => "x"}`},
		{"encoding.decode_json", "func(data str) []int", []any{`[1, "2"]`}, "catchable"},
		{"encoding.decode_json", "func(data str) []int", []any{`[1,`}, "catchable"},
		{"encoding.decode_json_flexible", "func(data str) map{int: str}", []any{`{"4": "a", "7": "b"}`}, `{4 => "a", 7 => "b"}`},

		{"list.concat", "func(a []int, b []int, c []int) []int", []any{[]int{1}, []int{}, []int{2, 3}}, `[1, 2, 3]`},
		{"list.lookup", "func(l []str, i int) str", []any{[]string{"a", "b"}, 1}, `"b"`},
		{"list.lookup", "func(l []str, i int) str", []any{[]string{"a", "b"}, 2}, "catchable"},
		{"list.lookup", "func(l []str, i int) str", []any{[]string{"a", "b"}, -1}, "catchable"},

		{"map.keys", "func(m map{str: int}) []str", []any{map[string]int{"b": 2, "a": 1}}, `["a", "b"]`},
		{"map.values", "func(m map{str: int}) []int", []any{map[string]int{"b": 2, "a": 1}}, `[1, 2]`},
		{"map.lookup", "func(m map{str: int}, k str) int", []any{map[string]int{"a": 1}, "a"}, `1`},
		{"map.lookup", "func(m map{str: int}, k str) int", []any{map[string]int{"a": 1}, "z"}, "catchable"},

		{"math.fortytwo", "func() int", nil, `42`},
		{"math.fortytwo", "func() float", nil, `42.0`},
		{"math.minus1", "", []any{5}, `4`},
		{"math.mod", "func(a int, b int) int", []any{7, 3}, `1`},
		{"math.mod", "func(a int, b int) int", []any{-7, 3}, `-1`},
		{"math.mod", "func(a int, b int) int", []any{7, 0}, "catchable"},
		{"math.mod", "func(a float, b float) float", []any{7.5, 2.0}, `1.5`},
		{"math.pow", "", []any{2.0, 10.0}, `1024.0`},
		{"math.sqrt", "", []any{2.25}, `1.5`},

		{"strings.contains", "", []any{"seafood", "foo"}, `true`},
		{"strings.has_prefix", "", []any{"golang", "go"}, `true`},
		{"strings.has_suffix", "", []any{"golang", "go"}, `false`},
		{"strings.join_nonempty", "", []any{[]string{"a", "", "b", ""}, "-"}, `"a-b"`},
		{"strings.left_pad", "", []any{"7", "0", 3}, `"007"`},
		{"strings.right_pad", "", []any{"ab", ".", 4}, `"ab.."`},
		{"strings.left_pad", "", []any{"long", "0", 2}, `"long"`},
		{"strings.replace_all", "", []any{"a-b-c", "-", "+"}, `"a+b+c"`},
		{"strings.split", "", []any{"a,b,c", ","}, `["a", "b", "c"]`},
		{"strings.substr", "", []any{"hello", 1, 3}, `"el"`},
		{"strings.to_lower", "", []any{"MiXeD"}, `"mixed"`},
		{"strings.to_upper", "", []any{"MiXeD"}, `"MIXED"`},
		{"strings.trim_space", "", []any{"  x \n"}, `"x"`},
		{"golang/strings.trim_space", "", []any{"\tx\n"}, `"x"`},
		{"golang/strings.join", "", []any{[]string{"a", "b"}, ","}, `"a,b"`},

		{"net.cidr_to_ip", "", []any{"192.168.1.5/24"}, `"192.168.1.5"`},
		{"net.cidr_to_mask", "", []any{"192.168.1.5/24"}, `"255.255.255.0"`},
		{"net.cidr_to_prefix", "", []any{"192.168.1.5/24"}, `"24"`},
		{"net.cidr_to_network", "", []any{"192.168.1.5/24"}, `"192.168.1.0"`},
		{"net.cidr_to_ip", "", []any{"nonsense"}, "catchable"},
		{"net.ip_in_cidr", "", []any{"10.0.0.7", "10.0.0.0/8"}, `true`},
		{"net.ip_in_cidr", "", []any{"11.0.0.7", "10.0.0.0/8"}, `false`},
		{"net.is_mac", "", []any{"01:23:45:67:89:ab"}, `true`},
		{"net.is_mac", "", []any{"hello"}, `false`},
		{"net.macfmt", "", []any{"01-23-45-67-89-AB"}, `"01:23:45:67:89:ab"`},
		{"net.oldmacfmt", "", []any{"01:23:45:67:89:ab"}, `"01-23-45-67-89-ab"`},
		{"net.split_hostport", "", []any{"example.com:80"}, `struct{host => "example.com", port => "80"}`},
		{"net.url_parser", "", []any{"https://example.com/a?b=c"}, `struct{scheme => "https", host => "example.com", path => "/a", raw_query => "b=c"}`},

		{"datetime.print", "", []any{0}, `"Thu Jan  1 00:00:00 UTC 1970"`},
		{"datetime.hour", "", []any{3600 * 5}, `5`},
		{"datetime.weekday", "", []any{0}, `"thursday"`},
		{"datetime.format", "", []any{86400, "2006-01-02"}, `"1970-01-02"`},

		{"example.answer", "", nil, `42`},
		{"example.plus", "", []any{"a", "b"}, `"a+b"`},
		{"example.int2str", "", []any{7}, `"7"`},
		{"example.str2int", "", []any{"7"}, `7`},
		{"example/nested.hello", "", nil, `"Hello!"`},

		{"os.parse_distro_uid", "", []any{"fedora39-x86_64"}, `struct{distro => "fedora", version => "39", arch => "x86_64"}`},
		{"regexp.match", "", []any{"^[a-z]+$", "abc"}, `true`},
		{"random1", "", []any{-1}, "error"},
	}
	t.Setenv("TZ", "UTC")
	env := &funcs.Env{Hostname: "h1", Getenv: os.LookupEnv}
	for _, cc := range cases {
		cc.run(t, env)
	}
}

// TestEnvFunctions covers the functions reading the environment given to
// the compiler.
func TestEnvFunctions(t *testing.T) {
	t.Setenv("MGMT_LIBRARY_TEST", "yes")
	env := &funcs.Env{Getenv: os.LookupEnv, Args: []string{"a", "b"}}
	for _, cc := range []callCase{
		{"sys.getenv", "", []any{"MGMT_LIBRARY_TEST"}, `"yes"`},
		{"sys.getenv", "", []any{"MGMT_LIBRARY_TEST_UNSET"}, "catchable"},
		{"sys.hasenv", "", []any{"MGMT_LIBRARY_TEST"}, `true`},
		{"sys.hasenv", "", []any{"MGMT_LIBRARY_TEST_UNSET"}, `false`},
		{"os.args", "", nil, `["a", "b"]`},
		{"os.expand_home", "", []any{"/abs"}, `"/abs"`},
	} {
		cc.run(t, env)
	}
	f, _ := funcs.Lookup("sys", "env")
	v, err := f.Impl(context.Background(), &funcs.Call{Type: f.Sigs[0], Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := v.(*values.Map).Lookup(values.Str("MGMT_LIBRARY_TEST")); !ok || got != values.Str("yes") {
		t.Errorf("sys.env lacks MGMT_LIBRARY_TEST: %s", v)
	}
}

// TestDeployFunctions reads files of a deploy with a nested module.
func TestDeployFunctions(t *testing.T) {
	root := t.TempDir()
	for p, s := range map[string]string{"files/a": "top", "mod1/files/b": "nested"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	top := &funcs.Env{ModuleDir: root, DeployRoot: root}
	mod := &funcs.Env{ModuleDir: filepath.Join(root, "mod1"), DeployRoot: root}
	for _, c := range []struct {
		env *funcs.Env
		cc  callCase
	}{
		{top, callCase{"deploy.readfile", "", []any{"/files/a"}, `"top"`}},
		{mod, callCase{"deploy.readfile", "", []any{"/files/b"}, `"nested"`}},
		{mod, callCase{"deploy.abspath", "", []any{"/files/b"}, `"/mod1/files/b"`}},
		{top, callCase{"deploy.abspath", "", []any{"/files/a"}, `"/files/a"`}},
		{mod, callCase{"deploy.readfileabs", "", []any{"/files/a"}, `"top"`}},
		{top, callCase{"deploy.file_exists", "", []any{"/files/a"}, `true`}},
		{top, callCase{"deploy.file_exists", "", []any{"/files/zz"}, `false`}},
		{top, callCase{"deploy.readfile", "", []any{"relative"}, "error"}},
		{top, callCase{"deploy.readfile", "", []any{"/../etc/passwd"}, "error"}},
	} {
		c.cc.run(t, c.env)
	}
}

// TestModuleList prints nothing but fails when a module has no function,
// which would make `import` of it succeed with nothing usable.
func TestModuleList(t *testing.T) {
	mods := funcs.Modules()
	if !sort.StringsAreSorted(mods) {
		t.Errorf("modules not sorted: %v", mods)
	}
	for _, m := range mods {
		if len(funcs.ModuleFuncs(m)) == 0 {
			t.Errorf("module %s has no functions", m)
		}
	}
}
