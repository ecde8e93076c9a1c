package fswatch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/nstest"
)

// TestLimits runs TestLimitsChild in a user namespace of its own, whose
// inotify limits it lowers without touching the machine's.
func TestLimits(t *testing.T) { nstest.Run(t, "TestLimitsChild") }

// wantLimit checks that err is a *LimitError naming limit, in its message
// too.
func wantLimit(t *testing.T, what string, err error, limit string) {
	t.Helper()
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != limit || !strings.Contains(err.Error(), limit) {
		t.Fatalf("%s: got %v, want a limit error naming %s", what, err, limit)
	}
}

// TestLimitsChild meets each limit for real: the watch limit when
// subscribing and when re-anchoring, the instance limit when making a
// watcher (and Default trying again once one is free), and the process's
// descriptor limit, which must not be taken for the instance limit.
func TestLimitsChild(t *testing.T) {
	if !nstest.Child(t) {
		return
	}
	dir := t.TempDir()
	w := newWatcher(t)
	nstest.SetLimit(t, "max_inotify_watches", 0)
	_, err := w.Subscribe(filepath.Join(dir, "f"), Options{})
	wantLimit(t, "subscribe at the watch limit", err, "fs.inotify.max_user_watches")

	nstest.SetLimit(t, "max_inotify_watches", 1000)
	s := subscribe(t, w, filepath.Join(dir, "a", "f"), Options{})
	w.mu.Lock()
	n := len(w.kid)
	w.mu.Unlock()
	nstest.SetLimit(t, "max_inotify_watches", n)
	expect(t, s, "mkdir at the watch limit", func() error { return os.Mkdir(filepath.Join(dir, "a"), 0o755) })
	wantLimit(t, "re-anchor at the watch limit", s.Err(), "fs.inotify.max_user_watches")

	nstest.SetLimit(t, "max_inotify_instances", 1) // w holds it
	_, err = New()
	wantLimit(t, "a second instance", err, "fs.inotify.max_user_instances")
	if _, err := Default(); err == nil {
		t.Fatal("Default made an instance beyond the limit")
	}
	nstest.SetLimit(t, "max_inotify_instances", 2)
	d, err := Default()
	if err != nil {
		t.Fatalf("Default after the limit was raised: %v", err)
	}
	defer d.Close()

	nstest.SetLimit(t, "max_inotify_instances", 100)
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	low := lim
	low.Cur = 64
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	var open []*os.File
	defer func() {
		for _, f := range open {
			f.Close()
		}
	}()
	for {
		f, err := os.Open(os.DevNull)
		if err != nil {
			break
		}
		open = append(open, f)
	}
	_, err = New()
	wantLimit(t, "out of descriptors", err, "RLIMIT_NOFILE (ulimit -n)")
}
