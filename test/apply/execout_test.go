package apply

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestExecHugeOutput: a command printing 512 MiB leaves mgmt-apply's peak
// resident memory under 100 MB (it keeps the last MiB of the output).
//
// The peak is the process's own high-water mark (VmHWM), read while it
// still runs: the ru_maxrss that wait4 reports would include the memory of
// this test binary, which the child shared before its exec.
func TestExecHugeOutput(t *testing.T) {
	p := startApply(t, "--tmp-prefix")
	p.Write(gdoc(1, []res{ex("big", "head -c 536870912 /dev/zero", nil)}))
	p.WaitLog("exec[big]: changed: the command printed 536870912 bytes: only the last 1048576 of stdout and stderr are kept", 0)
	peak, err := highWater(p.Pid())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("peak RSS %d KiB", peak)
	if peak > 100*1000*1000/1024 {
		t.Fatalf("peak RSS %d KiB, want under 100 MB", peak)
	}
}

// highWater returns the peak resident set size of a running process, in KiB.
func highWater(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}
