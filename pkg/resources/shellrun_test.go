package resources

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

func TestRunShellOutputAndStatus(t *testing.T) {
	out, err := RunShell(t.Context(), "echo one; echo two >&2; echo three; exit 3")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("got %v, want exit status 3", err)
	}
	if string(out) != "one\ntwo\nthree\n" {
		t.Fatalf("output %q", out)
	}
	t.Setenv("MGMT_SHELLRUN_A", "a")
	t.Setenv("MGMT_SHELLRUN_B", "b")
	out, err = RunShell(t.Context(), "echo ${MGMT_SHELLRUN_A-unset} ${MGMT_SHELLRUN_B-unset} $(cut -d' ' -f6 /proc/$$/stat) $$", "MGMT_SHELLRUN_B")
	f := strings.Fields(string(out))
	if err != nil || len(f) != 4 || f[0] != "a" || f[1] != "unset" || f[2] != f[3] {
		t.Fatalf("environment and session: %q, %v; want a, unset, and the shell leading its own session", out, err)
	}
}

// TestRunShellCancelKillsGroup cancels a command that has a child: both
// end, and RunShell returns.
func TestRunShellCancelKillsGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := RunShell(ctx, "sleep 600 & echo $! > "+pidFile+".tmp; mv "+pidFile+".tmp "+pidFile+"; wait")
		done <- err
	}()
	deadline := time.After(30 * time.Second)
	for {
		if _, err := os.Stat(pidFile); err == nil {
			break
		}
		select {
		case <-w.Events:
		case <-deadline:
			cancel()
			t.Fatal("the command did not start")
		}
	}
	b, _ := os.ReadFile(pidFile)
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a cancelled command reported success")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("RunShell did not return after cancel")
	}
	// the child ends (gone, or a zombie until init reaps it)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for end := time.After(30 * time.Second); ; {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(child) + "/stat")
		if f := strings.Fields(string(st)); err != nil || len(f) > 2 && f[2] == "Z" {
			return
		}
		select {
		case <-tick.C:
		case <-end:
			t.Fatalf("the command's child %d still runs after the cancel", child)
		}
	}
}
