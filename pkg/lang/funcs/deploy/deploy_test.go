package deploy

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func TestBinaryPath(t *testing.T) {
	f, ok := funcs.Lookup("deploy", "binary_path")
	if !ok {
		t.Fatal("deploy.binary_path not registered")
	}
	v, err := f.Impl(context.Background(), &funcs.Call{Type: f.Sigs[0]})
	if err != nil {
		t.Fatal(err)
	}
	p := string(v.(values.Str))
	if !filepath.IsAbs(p) {
		t.Fatalf("%q is not absolute", p)
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode()&0o111 == 0 {
		t.Fatalf("%q is not an executable: %v", p, err)
	}
}
