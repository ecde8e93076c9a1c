package mgmtapply

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestPprofLoopbackOnly: --pprof refuses an address other hosts could
// reach, before doing anything else.
func TestPprofLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:6060", "example.com:6060"} {
		var out, errb bytes.Buffer
		in := strings.NewReader(`{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[]}` + "\n")
		code := Run(context.Background(), []string{"--tmp-prefix", "--converged-timeout", "0", "--pprof", addr}, in, &out, &errb)
		if code != 1 || !strings.Contains(errb.String(), "want a loopback address") {
			t.Errorf("--pprof %s: exit %d, %q", addr, code, errb.String())
		}
	}
	var out, errb bytes.Buffer
	in := strings.NewReader(`{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[]}` + "\n")
	if code := Run(context.Background(), []string{"--tmp-prefix", "--converged-timeout", "0", "--pprof", "127.0.0.1:0"}, in, &out, &errb); code != 0 ||
		!strings.Contains(errb.String(), "profiling endpoints on http://127.0.0.1:") {
		t.Fatalf("--pprof 127.0.0.1:0: exit %d, %q", code, errb.String())
	}
}
