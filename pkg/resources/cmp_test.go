package resources

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// TestCmp checks, for every kind, that a resource equals its copy, differs
// from a variant with one parameter changed, and differs from another kind.
func TestCmp(t *testing.T) {
	one, two := int64(1), int64(2)
	for _, tc := range []struct {
		kind      string
		a, same   engine.Res
		different engine.Res
	}{
		{"file", &FileRes{Path: "/x", Mode: "0644"}, &FileRes{Path: "/x", Mode: "0644"}, &FileRes{Path: "/x", Mode: "0600"}},
		{"file", &FileRes{Rare: &FileRare{Fragments: []string{"/a"}}}, &FileRes{Rare: &FileRare{Fragments: []string{"/a"}}}, &FileRes{Rare: &FileRare{Fragments: []string{"/a", "/b"}}}},
		{"exec", &ExecRes{Cmd: "a", Args: []string{"x"}}, &ExecRes{Cmd: "a", Args: []string{"x"}}, &ExecRes{Cmd: "a", Args: []string{"y"}}},
		{"exec", &ExecRes{Cmd: "a", Timeout: 1}, &ExecRes{Cmd: "a", Timeout: 1}, &ExecRes{Cmd: "a", Timeout: 2}},
		{"noop", &NoopRes{Comment: "c"}, &NoopRes{Comment: "c"}, &NoopRes{}},
		{"print", &PrintRes{Msg: "m"}, &PrintRes{Msg: "m"}, &PrintRes{Msg: "n"}},
		{"msg", &MsgRes{Body: "b", Fields: map[string]string{"A": "1"}}, &MsgRes{Body: "b", Fields: map[string]string{"A": "1"}}, &MsgRes{Body: "b", Fields: map[string]string{"A": "2"}}},
		{"timer", &TimerRes{Interval: 3}, &TimerRes{Interval: 3}, &TimerRes{Interval: 4}},
		{"password", &PasswordRes{Length: 8}, &PasswordRes{Length: 8}, &PasswordRes{Length: 9}},
		{"value", &ValueRes{Key: "k", Int: &one}, &ValueRes{Key: "k", Int: &one}, &ValueRes{Key: "k", Int: &two}},
		{"value", &ValueRes{Key: "k"}, &ValueRes{Key: "k"}, &ValueRes{Key: "j"}},
		{"test", &TestRes{MapIntFloat: map[int64]float64{1: 2}}, &TestRes{MapIntFloat: map[int64]float64{1: 2}}, &TestRes{MapIntFloat: map[int64]float64{1: 3}}},
		{"line", &LineRes{File: "/f", State: "exists", Content: "a"}, &LineRes{File: "/f", State: "exists", Content: "a"}, &LineRes{File: "/f", State: "exists", Content: "a", Trim: true}},
		{"ssh:authorized_key", &SSHAuthorizedKeyRes{Options: []string{"no-pty"}}, &SSHAuthorizedKeyRes{Options: []string{"no-pty"}}, &SSHAuthorizedKeyRes{}},
		{"sysctl", &SysctlRes{Value: "1", Runtime: true}, &SysctlRes{Value: "1", Runtime: true}, &SysctlRes{Value: "1"}},
		{"json:edit", &JSONEditRes{Edits: []string{".a = 1"}}, &JSONEditRes{Edits: []string{".a = 1"}}, &JSONEditRes{Edits: []string{".a = 2"}}},
		{"tar", &TarRes{Inputs: nil}, &TarRes{Inputs: []string{}}, &TarRes{Inputs: []string{"/x"}}},
		{"gzip", &GzipRes{Input: strp("/a")}, &GzipRes{Input: strp("/a")}, &GzipRes{Input: strp("/b")}},
		{"exit", &ExitRes{Code: 3}, &ExitRes{Code: 3}, &ExitRes{Code: 4}},
	} {
		if err := tc.a.Cmp(tc.same); err != nil {
			t.Errorf("%s: equal resources differ: %v", tc.kind, err)
		}
		if tc.a.Cmp(tc.different) == nil {
			t.Errorf("%s: %+v and %+v compare equal", tc.kind, tc.a, tc.different)
		}
		other := &NoopRes{}
		if tc.kind == "noop" {
			other2 := &TestRes{}
			if tc.a.Cmp(other2) == nil {
				t.Errorf("noop equals test")
			}
			continue
		}
		if tc.a.Cmp(other) == nil {
			t.Errorf("%s equals a noop", tc.kind)
		}
	}
}

// TestDefaults checks that every kind is registered with a usable default.
func TestDefaults(t *testing.T) {
	for _, kind := range []string{"file", "exec", "noop", "test", "print", "msg", "timer", "password", "value",
		"line", "ssh:authorized_key", "sysctl", "json:edit", "tar", "gzip", "exit"} {
		r, err := engine.NewResource(kind)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if r.Kind() != kind {
			t.Errorf("%s: kind %q", kind, r.Kind())
		}
		if d := r.Default(); d == nil || d.Cmp(r) != nil {
			t.Errorf("%s: Default() differs from a new resource", kind)
		}
	}
}

// TestFileCmpEveryParam sets each parameter of a file in turn: Cmp must
// tell it from a file without it, so that a new graph changing only that
// parameter replaces the running resource.
func TestFileCmpEveryParam(t *testing.T) {
	base := &FileRes{Path: "/x"}
	typ := reflect.TypeOf(base).Elem()
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("lang"), ",")
		if tag == "" || tag == "-" || tag == "path" {
			continue
		}
		other := &FileRes{Path: "/x"}
		v := reflect.ValueOf(other).Elem().Field(i)
		switch f.Type.Kind() {
		case reflect.String:
			v.SetString("/other")
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Slice:
			v.Set(reflect.ValueOf([]string{"/other"}))
		case reflect.Pointer:
			e := reflect.New(f.Type.Elem())
			switch f.Type.Elem().Kind() {
			case reflect.String:
				e.Elem().SetString("other")
			case reflect.Bool:
				e.Elem().SetBool(false) // unset means true for the pointers to bools
			}
			v.Set(e)
		default:
			t.Fatalf("%s: field kind %s not covered by this test", tag, f.Type.Kind())
		}
		if base.Cmp(other) == nil {
			t.Errorf("Cmp does not tell a file with %s from one without", tag)
		}
	}
}
