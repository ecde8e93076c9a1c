package util

import (
	"context"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func strMap(kv ...string) *values.Map {
	m := values.NewMap(types.NewMap(types.Str, types.Str))
	for i := 0; i < len(kv); i += 2 {
		m.Set(values.Str(kv[i]), values.Str(kv[i+1]))
	}
	return m
}

func TestHostnameMapper(t *testing.T) {
	f, _ := funcs.Lookup("util", "hostname_mapper")
	tests := []struct {
		host string
		m    *values.Map
		want string
		err  bool
	}{
		{"h1.example.com", strMap("h1.example.com", "full", "h1", "short", "", "default"), "full", false},
		{"h1.example.com", strMap("h1", "short", "", "default"), "short", false},
		{"h2", strMap("h1", "short", "", "default"), "default", false},
		{"h2", strMap("h1", "short"), "", true},
		{"h2", strMap(), "", true},
	}
	for _, tc := range tests {
		v, err := f.Impl(context.Background(), &funcs.Call{Type: f.Sigs[0], Args: []values.Value{tc.m}, Env: &funcs.Env{Hostname: tc.host}})
		if tc.err {
			if !funcs.IsCatchable(err) {
				t.Errorf("%s in %s: got %v, %v; want a catchable error", tc.host, tc.m, v, err)
			}
			continue
		}
		if err != nil || string(v.(values.Str)) != tc.want {
			t.Errorf("%s in %s = %v, %v; want %q", tc.host, tc.m, v, err, tc.want)
		}
	}
}
