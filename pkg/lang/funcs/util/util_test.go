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
	a, b := "00:11:22:33:44:55", "aa:bb:cc:dd:ee:ff"
	tests := []struct {
		macs []string
		m    *values.Map
		want string
		err  bool
	}{
		{[]string{a}, strMap(a, "web1", b, "web2"), "web1", false},
		{[]string{a, b}, strMap("00:11:22:33:44:56", "web1", b, "web2"), "web2", false},
		{[]string{a, b}, strMap(a, "web1", b, "web1"), "web1", false},
		{[]string{"AA:BB:CC:DD:EE:FF"}, strMap(b, "web2"), "web2", false},
		{[]string{a}, strMap("00:11:22:33:44:56", "web1"), "", false},
		{[]string{a}, strMap(a, ""), "", false},
		{nil, strMap(a, "web1"), "", false},
		{[]string{a, b}, strMap(a, "web1", b, "web2"), "", true},
	}
	for _, tc := range tests {
		v, err := Map(tc.m, tc.macs)
		if tc.err {
			if !funcs.IsCatchable(err) {
				t.Errorf("%v in %s: got %v, %v; want a catchable error", tc.macs, tc.m, v, err)
			}
			continue
		}
		if err != nil || string(v.(values.Str)) != tc.want {
			t.Errorf("%v in %s = %v, %v; want %q", tc.macs, tc.m, v, err, tc.want)
		}
	}
}

// TestHostnameMapperHere maps the real interfaces of this host.
func TestHostnameMapperHere(t *testing.T) {
	macs, err := LocalMACs()
	if err != nil {
		t.Fatal(err)
	}
	f, _ := funcs.Lookup("util", "hostname_mapper")
	call := func(m *values.Map) (values.Value, error) {
		return f.Impl(context.Background(), &funcs.Call{Type: f.Sigs[0], Args: []values.Value{m}})
	}
	if v, err := call(strMap("fe:ff:ff:ff:ff:fe", "nobody")); err != nil || v != values.Str("") {
		t.Fatalf("an unknown address: got %v, %v, want \"\"", v, err)
	}
	if len(macs) == 0 {
		t.Log("no interface with a MAC address here: only the empty result is checked")
		return
	}
	if v, err := call(strMap(macs[0], "here")); err != nil || v != values.Str("here") {
		t.Fatalf("%s: got %v, %v, want \"here\"", macs[0], v, err)
	}
}
