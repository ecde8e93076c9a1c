package os

import (
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// FuzzParseDistroUID checks that any input parses into three parts that
// join back into it, or gives a catchable error; never a panic.
func FuzzParseDistroUID(f *testing.F) {
	for _, s := range []string{"fedora39-x86_64", "debian-12-aarch64", "ubuntu22.04-x86_64", "-", "a--b", "9-x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseDistroUID(s)
		if err != nil {
			if !funcs.IsCatchable(err) {
				t.Fatalf("%q: non-catchable error %v", s, err)
			}
			return
		}
		st := v.(*values.Struct)
		d, ver, arch := string(st.V[0].(values.Str)), string(st.V[1].(values.Str)), string(st.V[2].(values.Str))
		if s != d+ver+"-"+arch && s != d+"-"+ver+"-"+arch {
			t.Fatalf("%q parsed as %s", s, v)
		}
	})
}
