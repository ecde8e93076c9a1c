package apply

import (
	"bytes"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestExecHugeOutput: a command printing 512 MiB leaves mgmt-apply's peak
// resident memory under 100 MB (it keeps the last MiB of the output).
func TestExecHugeOutput(t *testing.T) {
	cmd := exec.Command(testutil.Bin(t, "mgmt-apply"), "--tmp-prefix", "--converged-timeout", "0")
	cmd.Stdin = strings.NewReader(gdoc(1, []res{ex("big", "head -c 536870912 /dev/zero", nil)}))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "exec[big]: changed: the command printed 536870912 bytes: only the last 1048576 of stdout and stderr are kept") {
		t.Fatalf("the command did not run, or its output was not cut:\n%s", stderr.String())
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB
	t.Logf("peak RSS %d KiB", peak)
	if peak > 100*1000*1000/1024 {
		t.Fatalf("peak RSS %d KiB, want under 100 MB", peak)
	}
}
