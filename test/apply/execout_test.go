package apply

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// peakRSS returns the peak resident memory of process pid so far, in KiB
// (VmHWM: the high-water mark of its own memory, not counting what it
// inherited from its parent before exec, as the rusage of a child does).
func peakRSS(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// TestExecHugeOutput: a command printing 512 MiB leaves mgmt-apply's peak
// resident memory under 100 MB (it keeps the last MiB of the output).
func TestExecHugeOutput(t *testing.T) {
	p := startApply(t, "--tmp-prefix")
	p.Write(gdoc(1, []res{ex("big", "head -c 536870912 /dev/zero", nil)}))
	p.WaitLines(`exec\[big\]: changed: the command printed 536870912 bytes: only the last 1048576 of stdout and stderr are kept`, 1)
	peak := peakRSS(t, p.Pid())
	p.Terminate()
	t.Logf("peak RSS %d KiB", peak)
	if peak > 100*1000*1000/1024 {
		t.Fatalf("peak RSS %d KiB, want under 100 MB", peak)
	}
}
