package value

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// FuzzRead writes arbitrary bytes as a stored value and reads them with
// each type: the result is a value of that type, ready unless the file is
// blank, or an error; never a panic.
func FuzzRead(f *testing.F) {
	for _, s := range []string{`"text"`, `42`, `2.5e-07`, `true`, `1.0`, `[1, 2]`, `{"a": 1}`, `null`, `"unterminated`, ``} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	outs := []*types.Type{}
	for _, s := range []string{"str", "int", "float", "bool", "[]int", "map{str: int}"} {
		outs = append(outs, types.MustParse("struct{value "+s+"; ready bool}"))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "k")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, out := range outs {
			v, err := Read(p, out)
			if err != nil {
				continue
			}
			s := v.(*values.Struct)
			ready := len(bytes.TrimSpace(b)) > 0
			if !types.Equal(s.V[0].Type(), out.Fields[0].Type) || s.V[1] != values.Bool(ready) {
				t.Fatalf("%q read as %s: %s", b, out, v)
			}
		}
	})
}
