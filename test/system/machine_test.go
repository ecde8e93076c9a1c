// Package system holds the end-to-end tests of the system resources (pkg,
// svc, user, group, hostname, msg's journal; cron, nspawn, firewalld and
// fwupd through the resource package's live tests) against a real
// systemd: the
// throwaway container that scripts/systemd-container/boot.sh starts and
// names in MGMT_E2E_MACHINE. Without it every test here skips and says so,
// or fails in CI (CI=true) unless MGMT_E2E_DEFERRED=1 says that a later
// step runs them against the container.
//
// The tests drive the container from the host: they build the tools and
// the resource package's live tests with CGO_ENABLED=0, copy them into the
// container through /proc/PID/root and run them there with nsenter, so that
// mgmt-apply manages the container's packages, units, accounts and
// hostname, never the host's.
//
// To run them by hand (as root, as .ci/check.d/30-system-tests.sh does):
//
//	scripts/systemd-container/build.sh
//	export MGMT_E2E_MACHINE=$(scripts/systemd-container/boot.sh)
//	go test -p 1 ./test/system/ ./pkg/resources/system/...
//	scripts/systemd-container/stop.sh
package system

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/resources/system/systemtest"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// install builds a Go package (a command, or with test a test binary) for
// the container and copies it to /opt/mgmt/name inside it.
func install(t *testing.T, m *systemtest.Machine, name, pkg string, test bool) string {
	t.Helper()
	return m.Install(t, testutil.Root(), name, pkg, test)
}

// TestResourcesInMachine runs the resource package's live tests (svc, pkg
// with both backends, user, group, hostname, mount, cron, nspawn with a
// nested container, firewalld, fwupd) inside the container.
func TestResourcesInMachine(t *testing.T) {
	m := systemtest.Find(t)
	bin := install(t, m, "system.test", "./pkg/resources/system", true)
	cmd := m.Command("env", "MGMT_SYSTEM_LIVE=1", bin, "-test.v", "-test.run", "Live", "-test.timeout", "10m")
	out, err := cmd.CombinedOutput()
	t.Logf("live tests in the container:\n%s", out)
	if err != nil {
		t.Fatalf("live tests failed: %v", err)
	}
	if bytes.Contains(out, []byte("--- SKIP: ")) {
		t.Fatal("a live test skipped inside the container, where every part must be present")
	}
	for _, name := range []string{"TestLiveSvc", "TestLiveCron", "TestLiveNspawn", "TestLiveFirewalld", "TestLiveFwupd"} {
		if !bytes.Contains(out, []byte("--- PASS: "+name+" ")) {
			t.Fatalf("the live test %s did not pass", name)
		}
	}
}

var (
	applyOnce sync.Once
	applyBin  string
)

// mgmtApply installs mgmt-apply in the container once per test binary.
func mgmtApply(t *testing.T, m *systemtest.Machine) string {
	t.Helper()
	applyOnce.Do(func() { applyBin = install(t, m, "mgmt-apply", "./cmd/mgmt-apply", false) })
	if applyBin == "" {
		t.Fatal("mgmt-apply was not installed")
	}
	return applyBin
}

// An applyProc is mgmt-apply running inside the container, reading graph
// documents from a pipe.
type applyProc struct {
	t      *testing.T
	m      *systemtest.Machine
	cmd    *exec.Cmd
	stdin  interface{ Write([]byte) (int, error) }
	stderr *testutil.SyncBuffer
	done   chan error
	pidf   string
}

// startApply runs mgmt-apply in the container with env (KEY=VALUE) and
// args, and sends it the first graph document.
func startApply(t *testing.T, m *systemtest.Machine, env []string, doc string, args ...string) *applyProc {
	t.Helper()
	bin := mgmtApply(t, m)
	p := &applyProc{t: t, m: m, stderr: &testutil.SyncBuffer{}, done: make(chan error, 1),
		pidf: fmt.Sprintf("/run/mgmt-apply-%d.pid", time.Now().UnixNano())}
	script := "echo $$ > " + p.pidf + "; exec env " + strings.Join(env, " ") + " " + bin + " " + strings.Join(args, " ")
	p.cmd = m.Command("sh", "-c", script)
	w, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdin = w
	p.cmd.Stdout = p.stderr
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		p.stop()
		w.Close()
		t.Logf("mgmt-apply output:\n%s", p.stderr.String())
	})
	p.send(doc)
	return p
}

// send writes one more graph document.
func (p *applyProc) send(doc string) {
	p.t.Helper()
	if _, err := p.stdin.Write([]byte(doc + "\n")); err != nil {
		p.t.Fatalf("writing to mgmt-apply: %v\n%s", err, p.stderr.String())
	}
}

// stop sends SIGTERM inside the container and waits for the exit.
func (p *applyProc) stop() {
	exec.Command("nsenter", "-t", fmt.Sprint(p.m.PID), "-a", "--", "sh", "-c",
		"kill -TERM $(cat "+p.pidf+") 2>/dev/null; rm -f "+p.pidf).Run()
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill()
	}
}

// exited reports the exit error if mgmt-apply has ended.
func (p *applyProc) exited() (bool, error) {
	select {
	case err := <-p.done:
		p.done <- err
		return true, err
	default:
		return false, nil
	}
}

// eventually waits for cond, failing early when mgmt-apply exited.
func (p *applyProc) eventually(d time.Duration, cond func() string) {
	p.t.Helper()
	systemtest.Eventually(p.t, d, func() string {
		if done, err := p.exited(); done {
			p.t.Fatalf("mgmt-apply exited (%v):\n%s", err, p.stderr.String())
		}
		return cond()
	})
}
