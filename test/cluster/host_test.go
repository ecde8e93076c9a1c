package cluster

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// A host is one running `mgmt-cluster run` process.
type host struct {
	t      testing.TB
	name   string
	dir    string
	client string // client URL
	peer   string // peer URL
	args   []string
	shared bool // outlives the test that started it; TestMain stops it
	// stopping is set once the test killed or stopped the process, so
	// its exit is expected.
	stopping bool
	cmd      *exec.Cmd
	done     chan struct{}
	code     int

	mu    sync.Mutex
	lines []string
	grew  chan struct{} // closed and replaced whenever a line arrives
}

// newHost prepares a host with fresh ports and a data directory.
func newHost(t testing.TB, name, scheme string, args ...string) *host {
	return &host{
		t:      t,
		name:   name,
		dir:    t.TempDir() + "/" + name,
		client: fmt.Sprintf("%s://127.0.0.1:%d", scheme, testutil.FreePort(t)),
		peer:   fmt.Sprintf("%s://127.0.0.1:%d", scheme, testutil.FreePort(t)),
		args:   args,
	}
}

// startMembers starts a cluster of n members named m1 to mN on plain
// http, each told the cluster's ideal size of n, the others joining
// through the first, and waits until each one runs as a member.
func startMembers(t testing.TB, n int) []*host {
	t.Helper()
	ideal := []string{"--ideal-cluster-size", fmt.Sprint(n)}
	ms := make([]*host, n)
	for i := range ms {
		ms[i] = newHost(t, fmt.Sprintf("m%d", i+1), "http", ideal...)
		if i == 0 {
			ms[i].start()
		} else {
			ms[i].start(ms[0].client)
		}
		ms[i].waitLog("running as member "+ms[i].name, joinTimeout)
	}
	return ms
}

// start runs the host's process, joining through seeds when given.
func (h *host) start(seeds ...string) {
	h.t.Helper()
	args := []string{"run", "--name", h.name, "--data-dir", h.dir, "--client-urls", h.client, "--server-urls", h.peer}
	if len(seeds) > 0 {
		args = append(args, "--seeds", strings.Join(seeds, ","))
	}
	if strings.HasPrefix(h.client, "http:") {
		args = append(args, "--insecure") // plain http on loopback: test members only
	}
	args = append(args, h.args...)
	h.cmd = exec.Command(testutil.Bin(h.t, "mgmt-cluster"), args...)
	stderr, err := h.cmd.StderrPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	h.mu.Lock()
	h.lines, h.grew = nil, make(chan struct{})
	h.mu.Unlock()
	h.stopping = false
	if err := h.cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.done = make(chan struct{})
	go h.read(stderr, time.Now())
	if !h.shared {
		h.t.Cleanup(func() { h.kill() })
	}
}

// read collects the process's stderr lines, each prefixed with the time
// since the start, for the failure messages.
func (h *host) read(r io.Reader, start time.Time) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		h.mu.Lock()
		h.lines = append(h.lines, fmt.Sprintf("[%6.2fs] %s", time.Since(start).Seconds(), sc.Text()))
		close(h.grew)
		h.grew = make(chan struct{})
		h.mu.Unlock()
	}
	err := h.cmd.Wait()
	h.code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		h.code = ee.ExitCode()
	}
	close(h.done)
}

// waitLog waits until the host logged a line containing s.
func (h *host) waitLog(s string, timeout time.Duration) {
	h.t.Helper()
	deadline := time.After(timeout)
	for {
		h.mu.Lock()
		for _, l := range h.lines {
			if strings.Contains(l, s) {
				h.mu.Unlock()
				return
			}
		}
		grew := h.grew
		h.mu.Unlock()
		select {
		case <-grew:
		case <-h.done:
			h.t.Fatalf("%s exited (code %d) before logging %q:\n%s", h.name, h.code, s, h.log())
		case <-deadline:
			h.t.Fatalf("%s did not log %q within %v:\n%s", h.name, s, timeout, h.log())
		}
	}
}

func (h *host) log() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.lines, "\n")
}

// signal sends sig to the running process.
func (h *host) signal(sig os.Signal) {
	h.cmd.Process.Signal(sig)
}

// kill ends the process at once, as a crash would.
func (h *host) kill() {
	if h.cmd == nil || h.cmd.Process == nil {
		return
	}
	select {
	case <-h.done:
		return
	default:
	}
	h.stopping = true
	h.cmd.Process.Kill()
	<-h.done
}

// stop asks the process to shut down cleanly and returns its exit code.
func (h *host) stop(timeout time.Duration) int {
	h.t.Helper()
	h.term()
	return h.wait(timeout)
}

// term asks the process to shut down cleanly (SIGTERM), without waiting.
func (h *host) term() {
	h.stopping = true
	h.cmd.Process.Signal(syscall.SIGTERM)
}

// wait waits for the process to exit and returns its exit code.
func (h *host) wait(timeout time.Duration) int {
	h.t.Helper()
	select {
	case <-h.done:
		return h.code
	case <-time.After(timeout):
		h.t.Fatalf("%s did not stop within %v:\n%s", h.name, timeout, h.log())
		return -1
	}
}

// running reports whether the process has not exited.
func (h *host) running() bool {
	select {
	case <-h.done:
		return false
	default:
		return h.cmd != nil
	}
}

// count returns how many lines the host logged since its start that
// contain s.
func (h *host) count(s string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, l := range h.lines {
		if strings.Contains(l, s) {
			n++
		}
	}
	return n
}

// ctl runs an mgmt-cluster query command.
func ctl(t *testing.T, stdin string, args ...string) testutil.Result {
	t.Helper()
	return testutil.Run(t, stdin, "mgmt-cluster", args...)
}

// eventually retries f until it returns nil or the timeout passes; it is
// for requests that fail while the cluster elects a leader.
func eventually(t *testing.T, timeout time.Duration, f func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still failing after %v: %v", timeout, err)
		}
		time.Sleep(200 * time.Millisecond) // pacing of retries, not a guess at readiness
	}
}

type member struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	ClientURLs []string `json:"client_urls"`
	PeerURLs   []string `json:"peer_urls"`
	Healthy    bool     `json:"healthy"`
	Standby    bool     `json:"standby"`
}

// members returns the member names (sorted) as seen through seed.
func members(t *testing.T, seed string, extra ...string) ([]member, error) {
	t.Helper()
	r := ctl(t, "", append([]string{"members", "--json", "--timeout", "3s", "--seeds", seed}, extra...)...)
	if r.Code != 0 {
		return nil, fmt.Errorf("members: exit %d: %s", r.Code, r.Stderr)
	}
	var ms []member
	if err := json.Unmarshal([]byte(r.Stdout), &ms); err != nil {
		return nil, fmt.Errorf("members output %q: %v", r.Stdout, err)
	}
	return ms, nil
}

func names(ms []member) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return strings.Join(out, ",")
}
