package apply

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestFirstCollectionLate: the collector's first collection comes at a heap
// of 10 MiB, so a run of mgmt-apply on a graph of 1,000 files, cold and
// then warm, makes none (the runtime's trace of its collections lists
// none), where a smallest heap of 2 MiB or 4 MiB made four or one.
func TestFirstCollectionLate(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(`{"mgmt":"graph/v1","graph":"gc","seq":1,"resources":[`)
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"kind":"file","name":%q,"params":{"state":"exists","content":"file %d\n","mode":"0644"}}`, filepath.Join(dir, fmt.Sprint("f", i)), i)
	}
	b.WriteString("]}\n")
	for _, run := range []string{"cold", "warm"} {
		cmd := exec.Command(testutil.Bin(t, "mgmt-apply"), "--tmp-prefix", "--converged-timeout", "0")
		cmd.Stdin = strings.NewReader(b.String())
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		// The tool's own policy: GOGC in the environment replaces it.
		cmd.Env = append(withoutEnv(os.Environ(), "GOGC"), "GODEBUG=gctrace=1")
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s run: %v\n%s", run, err, stderr.String())
		}
		for _, line := range strings.Split(stderr.String(), "\n") {
			if strings.HasPrefix(line, "gc ") {
				t.Errorf("%s run of 1,000 files collected: %s", run, line)
			}
		}
	}
	if got, err := os.ReadFile(filepath.Join(dir, "f999")); err != nil || string(got) != "file 999\n" {
		t.Fatalf("f999: %q %v", got, err)
	}
}

// withoutEnv returns env without the variable name.
func withoutEnv(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
