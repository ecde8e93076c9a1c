// Package nstest runs one test function of the current test binary in a
// child process inside a new user namespace where it is root. Limits kept
// per user namespace, such as the inotify ones under /proc/sys/user, can be
// lowered there without touching the machine's, so tests of what happens
// at a kernel limit are safe to run beside any other test.
package nstest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/internal/testneed"
)

const envChild = "MGMT_NSTEST_CHILD"

// Child reports whether this process is the child that Run started for t.
// A test function meant for the child returns at once when it is not.
func Child(t testing.TB) bool { return os.Getenv(envChild) == t.Name() }

// Run runs the test function name in a child process in a new user
// namespace (uid and gid 0 inside map to the caller's), with env added to
// its environment, and fails t with the child's output when the child
// fails. Where user namespaces cannot be made it fails in CI (CI=true) and
// skips elsewhere.
func Run(t *testing.T, name string, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+name+"$", "-test.count=1", "-test.v", "-test.timeout=110s")
	cmd.Env = append(append(os.Environ(), envChild+"="+name), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		testneed.Missing(t, "cannot start a process in a new user namespace: %v", err)
	}
	err := cmd.Wait()
	if err != nil || !strings.Contains(out.String(), "--- PASS: "+name) {
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("%s in a user namespace: %v", name, err)
		}
		t.Fatalf("%s in a user namespace failed (%v):\n%s", name, err, out.String())
	}
}

// SetLimit writes v to /proc/sys/user/NAME (such as max_inotify_watches),
// the limit of the child's own user namespace.
func SetLimit(t testing.TB, name string, v int) {
	t.Helper()
	p := filepath.Join("/proc/sys/user", name)
	if err := os.WriteFile(p, []byte(strconv.Itoa(v)), 0o644); err != nil {
		t.Fatalf("setting %s: %v", p, err)
	}
}
