package testutil

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// waitTimeout bounds every wait on a running tool.
const waitTimeout = 20 * time.Second

// exitTimeout bounds the wait for a running tool to exit.
const exitTimeout = 30 * time.Second

// Proc is a running tool whose stderr lines are collected. It is killed
// when the test ends, if it has not exited by then.
type Proc struct {
	t     testing.TB
	tool  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	mu    sync.Mutex
	lines []string
	grew  chan struct{} // closed and replaced on each new line
	done  chan struct{} // closed once the process has exited
	err   error
	ended time.Time
}

// Start starts one of the built tools with args and collects its stderr
// lines. Its stdin is a pipe written by Write.
func Start(t testing.TB, tool string, args ...string) *Proc {
	t.Helper()
	return StartWith(t, nil, tool, args...)
}

// StartWith is Start with the command handed to prepare (when not nil)
// before it starts: to run it in namespaces of its own, say.
func StartWith(t testing.TB, prepare func(*exec.Cmd), tool string, args ...string) *Proc {
	t.Helper()
	cmd := exec.Command(Bin(t, tool), args...)
	if prepare != nil {
		prepare(cmd)
	}
	var stdin io.WriteCloser
	if cmd.Stdin == nil { // else prepare connected it, and Write is not for this process
		var err error
		if stdin, err = cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Proc{t: t, tool: tool, cmd: cmd, stdin: stdin, grew: make(chan struct{}), done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			close(p.grew)
			p.grew = make(chan struct{})
			p.mu.Unlock()
		}
		p.err = cmd.Wait()
		p.ended = time.Now()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("%s stderr:\n%s", tool, p.Log())
		}
	})
	return p
}

// Write writes s to the process's stdin.
func (p *Proc) Write(s string) {
	p.t.Helper()
	if p.stdin == nil {
		p.t.Fatalf("%s: its stdin is not the test's to write", p.tool)
	}
	if _, err := io.WriteString(p.stdin, s); err != nil {
		p.t.Fatal(err)
	}
}

// CloseStdin closes the process's stdin.
func (p *Proc) CloseStdin() {
	if p.stdin != nil {
		p.stdin.Close()
	}
}

// Exited reports whether the process has exited.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Pid returns the process id.
func (p *Proc) Pid() int {
	return p.cmd.Process.Pid
}

// Signal sends sig to the process.
func (p *Proc) Signal(sig os.Signal) {
	p.cmd.Process.Signal(sig)
}

// Terminate sends SIGTERM to a running mgmt-apply and waits for it to
// exit: 0 when its graph was converged, 143 when the signal stopped changes
// in progress (see mgmt-apply --help); any other code fails the test.
func (p *Proc) Terminate() int {
	p.t.Helper()
	p.Signal(syscall.SIGTERM)
	code := p.Wait()
	if code != 0 && code != 143 {
		p.t.Fatalf("%s exited %d after SIGTERM, want 0 or 143:\n%s", p.tool, code, p.Log())
	}
	return code
}

// Log returns the stderr lines so far, joined by newlines.
func (p *Proc) Log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// Lines returns the number of stderr lines so far.
func (p *Proc) Lines() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.lines)
}

// Count returns how many stderr lines so far match the regexp re.
func (p *Proc) Count(re string) int {
	rx := regexp.MustCompile(re)
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, l := range p.lines {
		if rx.MatchString(l) {
			n++
		}
	}
	return n
}

// Until waits for cond to hold, checking it now and after each new
// stderr line, and fails the test if the process exits or time runs out
// first. what names the awaited condition in the failure message.
func (p *Proc) Until(what string, cond func() bool) {
	p.t.Helper()
	deadline := time.After(waitTimeout)
	for {
		p.mu.Lock()
		next := p.grew
		p.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-next:
		case <-p.done:
			if !cond() {
				p.t.Fatalf("%s exited (%v) before %s:\n%s", p.tool, p.err, what, p.Log())
			}
			return
		case <-deadline:
			p.t.Fatalf("timed out waiting for %s:\n%s", what, p.Log())
		}
	}
}

// WaitLines waits until n stderr lines match the regexp re.
func (p *Proc) WaitLines(re string, n int) {
	p.t.Helper()
	p.Until(fmt.Sprintf("%d lines matching %q", n, re), func() bool { return p.Count(re) >= n })
}

// WaitLog waits until a stderr line after the first skip lines contains
// s, and returns the number of lines up to and including that one.
func (p *Proc) WaitLog(s string, skip int) int {
	p.t.Helper()
	found := 0
	p.Until(fmt.Sprintf("a log line containing %q", s), func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		for i := skip; i < len(p.lines); i++ {
			if strings.Contains(p.lines[i], s) {
				found = i + 1
				return true
			}
		}
		return false
	})
	return found
}

// Wait waits for the process to exit and returns its exit code.
func (p *Proc) Wait() int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(exitTimeout):
		p.t.Fatalf("%s did not exit:\n%s", p.tool, p.Log())
	}
	if p.err == nil {
		return 0
	}
	if ee, ok := p.err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	p.t.Fatal(p.err)
	return -1
}

// Ended returns when the process exited; it is valid after Wait.
func (p *Proc) Ended() time.Time {
	return p.ended
}

// StartPipeline starts mcl-compile with compileArgs, its stdout piped into
// the stdin of mgmt-apply with applyArgs, the way a host runs them, and
// returns both processes (each collecting its own stderr).
func StartPipeline(t testing.TB, compileArgs, applyArgs []string) (compile, apply *Proc) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	compile = StartWith(t, func(c *exec.Cmd) { c.Stdout = w }, "mcl-compile", compileArgs...)
	apply = StartWith(t, func(c *exec.Cmd) { c.Stdin = r }, "mgmt-apply", applyArgs...)
	return compile, apply
}

// StartMember starts a one-member world with mgmt-cluster run under a
// temporary prefix, waits until it serves, and returns it with its client
// URL (the unix socket it serves on without TLS). It is stopped when the
// test ends.
func StartMember(t testing.TB) (*Proc, string) {
	t.Helper()
	prefix := t.TempDir()
	client := "unix://" + prefix + "/world/client.sock"
	c := Start(t, "mgmt-cluster", "run", "--prefix", prefix)
	c.WaitLines(`running as member`, 1)
	return c, client
}
