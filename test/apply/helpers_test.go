// Package apply holds the end-to-end tests of mgmt-apply: they run the
// built binary on real graphs of files and commands and look at the system.
package apply

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

type P = map[string]any

type res struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Params P      `json:"params,omitempty"`
	Meta   P      `json:"meta,omitempty"`
}

type ref struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

type edge struct {
	From   ref    `json:"from"`
	To     ref    `json:"to"`
	Notify bool   `json:"notify,omitempty"`
	Send   string `json:"send,omitempty"`
	Recv   string `json:"recv,omitempty"`
}

// gdoc returns one graph document line.
func gdoc(seq int, rs []res, es ...edge) string {
	b, err := json.Marshal(map[string]any{"mgmt": "graph/v1", "graph": "test", "seq": seq, "resources": rs, "edges": es})
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

func file(path string, params P) res {
	if params == nil {
		params = P{}
	}
	if _, ok := params["state"]; !ok {
		params["state"] = "exists"
	}
	return res{Kind: "file", Name: path, Params: params}
}

func ex(name, cmd string, params P) res {
	if params == nil {
		params = P{}
	}
	params["cmd"] = cmd
	params["shell"] = "/bin/sh"
	return res{Kind: "exec", Name: name, Params: params}
}

func e(fk, fn, tk, tn string) edge { return edge{From: ref{fk, fn}, To: ref{tk, tn}} }

// proc is a running mgmt-apply whose stderr lines are collected.
type proc struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	mu    sync.Mutex
	lines []string
	grew  chan struct{}
	done  chan struct{}
	code  int
	ended time.Time
}

func startApply(t *testing.T, args ...string) *proc {
	t.Helper()
	return startTool(t, "mgmt-apply", args...)
}

// startTool starts one of the built tools and collects its stderr lines.
func startTool(t *testing.T, tool string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(testutil.Bin(t, tool), args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, stdin: stdin, grew: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
			select {
			case p.grew <- struct{}{}:
			default:
			}
		}
		err := cmd.Wait()
		p.ended = time.Now()
		if ee, ok := err.(*exec.ExitError); ok {
			p.code = ee.ExitCode()
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *proc) write(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, s); err != nil {
		p.t.Fatal(err)
	}
}

func (p *proc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// count returns how many stderr lines match re.
func (p *proc) count(re string) int {
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

// waitLines waits until n stderr lines match re.
func (p *proc) waitLines(re string, n int) {
	p.t.Helper()
	deadline := time.After(20 * time.Second)
	for p.count(re) < n {
		select {
		case <-p.grew:
		case <-p.done:
			if p.count(re) >= n {
				return
			}
			p.t.Fatalf("mgmt-apply exited (code %d) before %d lines matching %q:\n%s", p.code, n, re, p.log())
		case <-deadline:
			p.t.Fatalf("timed out waiting for %d lines matching %q:\n%s", n, re, p.log())
		}
	}
}

// wait waits for the process to exit and returns its exit code.
func (p *proc) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		p.t.Fatalf("mgmt-apply did not exit:\n%s", p.log())
	}
	return p.code
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
