package cluster

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// kvDoc returns a graph setting the world's string k to v.
func kvDoc(seq int, k, v string) string {
	return fmt.Sprintf(`{"mgmt":"graph/v1","graph":"kv","seq":%d,"resources":[`+
		`{"kind":"kv","name":%q,"params":{"value":%q}}]}`+"\n", seq, k, v)
}

// worldChild returns the pid of the mgmt-cluster world-client child of
// the process pid, or 0.
func worldChild(pid int) int {
	// The kernel lists the children of each thread.
	var b []byte
	ts, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range ts {
		c, _ := os.ReadFile(f)
		b = append(append(b, ' '), c...)
	}
	for _, f := range strings.Fields(string(b)) {
		cpid, _ := strconv.Atoi(f)
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", cpid))
		if strings.Contains(string(cmd), "world-client") {
			return cpid
		}
	}
	return 0
}

// TestWorldClientKilled runs mgmt-apply on a world, kills the child that
// holds its connection (SIGKILL), and checks that mgmt-apply logs it,
// starts a new one and goes on enforcing through it; that the child
// ignores SIGHUP (a service's reload signals all its processes); then
// that the child ends with mgmt-apply.
func TestWorldClientKilled(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts an etcd member")
	}
	m := newHost(t, "m", "http")
	m.start()
	m.waitLog("running as member m", joinTimeout)
	apply := testutil.Start(t, "mgmt-apply", "--prefix", t.TempDir(), "--seeds", m.client, "--hostname", "h1")
	apply.Write(kvDoc(1, "k", "one"))
	get := func(want string) func() error {
		return func() error {
			if r := ctl(t, "", "get", "--seeds", m.client, "strings/k"); r.Stdout != want+"\n" {
				return fmt.Errorf("strings/k is %q, want %q (%s)", r.Stdout, want, r.Stderr)
			}
			return nil
		}
	}
	eventually(t, 30*time.Second, get("one"))
	child := worldChild(apply.Pid())
	if child == 0 {
		t.Fatalf("no world-client child of mgmt-apply (pid %d)", apply.Pid())
	}
	if err := syscall.Kill(child, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	apply.WaitLog("ended: signal: killed", 0)
	apply.Write(kvDoc(2, "k", "two"))
	eventually(t, 30*time.Second, get("two"))
	apply.WaitLog("starting the world client process again", 0)
	if apply.Exited() {
		t.Fatalf("mgmt-apply exited:\n%s", apply.Log())
	}
	again := worldChild(apply.Pid())
	if again == 0 || again == child {
		t.Fatalf("world-client child after the kill: %d (was %d)", again, child)
	}
	// A reload signals every process of the service: the child stays.
	if err := syscall.Kill(again, syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	apply.Write(kvDoc(3, "k", "three"))
	eventually(t, 30*time.Second, get("three"))
	if now := worldChild(apply.Pid()); now != again {
		t.Fatalf("world-client child %d after SIGHUP, was %d:\n%s", now, again, apply.Log())
	}
	apply.Terminate()
	if err := syscall.Kill(again, 0); err != syscall.ESRCH {
		// The child ends when the pipe closes, after mgmt-apply's
		// last requests; mgmt-apply waits for it.
		t.Fatalf("the world-client child (pid %d) outlived mgmt-apply: %v", again, err)
	}
}

// TestWorldClientMissing checks that mgmt-apply with a world but without
// mgmt-cluster beside it or in PATH exits 1 at its start, naming it.
func TestWorldClientMissing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	alone := filepath.Join(dir, "mgmt-apply")
	b, err := os.ReadFile(testutil.Bin(t, "mgmt-apply"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	r := testutil.RunWith(t, func(c *exec.Cmd) { c.Path, c.Env = alone, []string{"PATH=" + dir} }, "",
		"mgmt-apply", "--tmp-prefix", "--seeds", "http://127.0.0.1:1", "--hostname", "h1")
	if r.Code != 1 || !strings.Contains(r.Stderr, "mgmt-cluster not found") {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
}
