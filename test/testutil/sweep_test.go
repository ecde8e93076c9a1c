package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestSweepTools: the build of a test process that has ended is removed,
// the one of a live process stays.
func TestSweepTools(t *testing.T) {
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	mk := func(pid int) string {
		d, err := os.MkdirTemp("", toolsPrefix)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		if err := os.WriteFile(filepath.Join(d, ownerFile), []byte(strconv.Itoa(pid)), 0o600); err != nil {
			t.Fatal(err)
		}
		return d
	}
	gone, kept := mk(ended.Process.Pid), mk(os.Getpid())
	sweepTools()
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("the build of an ended process is still there: %v", err)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("the build of this process was removed: %v", err)
	}
}
