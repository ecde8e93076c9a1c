package sys

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/internal/fswatch"
	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func TestHostnameFromEnv(t *testing.T) {
	var got []values.Value
	c := &funcs.Call{Type: types.MustParse("func() str"), Env: &funcs.Env{Hostname: "h1.override.invalid"}}
	if err := hostname(context.Background(), c, func(v values.Value) { got = append(got, v) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != values.Str("h1.override.invalid") {
		t.Fatalf("got %v", got)
	}
}

// hostRoot returns an environment whose root is a new directory with an
// empty etc/ and proc linked to the real /proc: the kernel's sysctl is
// this host's, /etc/hostname the test's own.
func hostRoot(t *testing.T) *funcs.Env {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/proc", filepath.Join(dir, "proc")); err != nil {
		t.Fatal(err)
	}
	return &funcs.Env{Root: dir}
}

// TestHostnameJoins: when the stream returns, the goroutines it started
// (the sysctl poll and the file watch) have ended too: their descriptors
// are closed and the file watch is released, at once.
func TestHostnameJoins(t *testing.T) {
	w, err := fswatch.Default()
	if err != nil {
		t.Fatal(err)
	}
	run := func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		c := &funcs.Call{Type: types.MustParse("func() str"), Env: hostRoot(t)}
		// The first value cancels the stream from inside it.
		if err := hostname(ctx, c, func(values.Value) { cancel() }); err != nil {
			t.Fatal(err)
		}
	}
	run()
	fds, watches := openFDs(t), w.WatchCount()
	for i := 0; i < 20; i++ {
		run()
		if n := openFDs(t); n != fds {
			t.Fatalf("run %d: %d open descriptors after the stream returned, %d before", i, n, fds)
		}
		if n := w.WatchCount(); n != watches {
			t.Fatalf("run %d: %d directories watched after the stream returned, %d before", i, n, watches)
		}
	}
}

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}

// TestHostnameWatch checks that the stream re-reads the hostname when the
// watched file changes: each write produces one more emission.
func TestHostnameWatch(t *testing.T) {
	env := hostRoot(t)
	want, _ := os.Hostname()
	env.Hostname = want // the compiler passes the kernel's hostname by default: still watched
	ch := make(chan values.Value, 10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	c := &funcs.Call{Type: types.MustParse("func() str"), Env: env}
	go func() { done <- hostname(ctx, c, func(v values.Value) { ch <- v }) }()
	for i := 0; i < 2; i++ {
		select {
		case v := <-ch:
			if v != values.Str(want) {
				t.Fatalf("got %s, want %q", v, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no emission %d", i)
		}
		if err := os.WriteFile(env.HostPath(hostnameFile), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestHostnameSethostname changes the hostname for real: the test binary
// runs itself again in a new UTS namespace (unshare -u, as root), where
// the child changes the hostname and waits for the stream to report it.
func TestHostnameSethostname(t *testing.T) {
	if os.Getenv("MGMT_TEST_UTS_CHILD") == "1" {
		utsChild(t)
		return
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil || os.Geteuid() != 0 {
		testneed.Missing(t, "needs root and unshare")
	}
	if err := exec.Command(unshare, "-u", "true").Run(); err != nil {
		testneed.Missing(t, "cannot make a UTS namespace: %v", err)
	}
	cmd := exec.Command(unshare, "-u", os.Args[0], "-test.run", "^TestHostnameSethostname$", "-test.v")
	cmd.Env = append(os.Environ(), "MGMT_TEST_UTS_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func utsChild(t *testing.T) {
	ch := make(chan values.Value, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// only the sysctl reports this change
	c := &funcs.Call{Type: types.MustParse("func() str"), Env: hostRoot(t)}
	go hostname(ctx, c, func(v values.Value) { ch <- v })
	before, _ := os.Hostname()
	want := func(w string) {
		t.Helper()
		deadline := time.After(5 * time.Second)
		for {
			select {
			case v := <-ch:
				if v == values.Str(w) {
					return
				}
			case <-deadline:
				t.Fatalf("timed out waiting for %q", w)
			}
		}
	}
	want(before)
	for _, h := range []string{"mgmt-uts-test-1", "mgmt-uts-test-2"} {
		if err := syscall.Sethostname([]byte(h)); err != nil {
			t.Fatal(err)
		}
		want(h)
	}
}
