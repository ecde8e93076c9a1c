package resources

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// harness is a hand-made engine side of the Init handle: it records what
// the resource reports and lets the test control refreshes and received
// values.
type harness struct {
	t       testing.TB
	running chan struct{}
	events  chan struct{}

	mu      sync.Mutex
	refresh bool
	recv    map[string]*engine.Send
	sent    any
	logs    []string
	vardir  string
	prefix  string
	// reversal makes the resource run as a saved reversal (Init.Reversal).
	reversal bool
	// graph is what Init.Graph returns: the resources of the graph.
	graph []engine.Res
}

func newHarness(t testing.TB) *harness {
	return &harness{
		t:       t,
		running: make(chan struct{}, 1),
		events:  make(chan struct{}, 1),
		vardir:  t.TempDir(),
		prefix:  t.TempDir(),
	}
}

func (h *harness) init() *engine.Init {
	return &engine.Init{
		Env: &engine.Env{
			Program: "mgmt-test",
			Prefix:  h.prefix,
			Graph: func() []engine.Res {
				h.mu.Lock()
				defer h.mu.Unlock()
				return h.graph
			},
		},
		Hooks:    &engine.Funcs{RunningFunc: h.onRunning, EventFunc: h.onEvent, RefreshFunc: h.onRefresh, SendFunc: h.onSend, RecvFunc: h.onRecv, VarDirFunc: h.onVarDir, LogfFunc: h.onLogf},
		Reversal: h.reversal,
	}
}

// funcs returns the Funcs of an Init made by init.
func funcs(init *engine.Init) *engine.Funcs { return init.Hooks.(*engine.Funcs) }

func (h *harness) onRunning() {
	select {
	case h.running <- struct{}{}:
	default:
	}
}

func (h *harness) onEvent() {
	select {
	case h.events <- struct{}{}:
	default:
	}
}

func (h *harness) onRefresh() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.refresh
}

func (h *harness) onSend(st any) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sent = st
	return nil
}

func (h *harness) onRecv() map[string]*engine.Send {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.recv
}

func (h *harness) onVarDir(p string) (string, error) {
	d := filepath.Join(h.vardir, p)
	return d, os.MkdirAll(d, 0o755)
}

func (h *harness) onLogf(format string, v ...any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.logs = append(h.logs, fmt.Sprintf(format, v...))
}

func (h *harness) setRefresh(b bool) {
	h.mu.Lock()
	h.refresh = b
	h.mu.Unlock()
}

func (h *harness) logged() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.logs, "\n")
}

// setup names, validates and initialises r.
func setup(t testing.TB, h *harness, kind, name string, r engine.Res) engine.Res {
	t.Helper()
	r.SetKind(kind)
	r.SetName(name)
	if err := r.Validate(); err != nil {
		t.Fatalf("validate %s: %v", r, err)
	}
	init := h.init()
	if sr, ok := r.(engine.Sendable); ok {
		// As the engine does: the resource keeps what it sent.
		f := funcs(init)
		send := f.SendFunc
		f.SendFunc = func(st any) error {
			if err := sr.Send(st); err != nil {
				return err
			}
			return send(st)
		}
	}
	if err := r.Init(init); err != nil {
		t.Fatalf("init %s: %v", r, err)
	}
	t.Cleanup(func() { r.Cleanup() })
	return r
}

// checkApply runs CheckApply and fails the test on an error or an
// unexpected checkOK.
func checkApply(t testing.TB, r engine.Res, apply, wantOK bool) {
	t.Helper()
	ok, err := r.CheckApply(context.Background(), apply)
	if err != nil {
		t.Fatalf("%s: CheckApply(apply=%v): %v", r, apply, err)
	}
	if ok != wantOK {
		t.Fatalf("%s: CheckApply(apply=%v) = %v, want %v", r, apply, ok, wantOK)
	}
}

// startWatch runs r's Watch until the test ends and waits for Running.
func startWatch(t testing.TB, h *harness, r engine.Res) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Watch(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: Watch: %v", r, err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%s: Watch did not end after cancel", r)
		}
	})
	select {
	case <-h.running:
	case err := <-done:
		t.Fatalf("%s: Watch ended before Running: %v", r, err)
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: Watch never called Running", r)
	}
}

// expectEvent runs act and waits for an event from Watch.
func expectEvent(t testing.TB, h *harness, what string, act func()) {
	t.Helper()
	for {
		select {
		case <-h.events:
			continue
		default:
		}
		break
	}
	act()
	select {
	case <-h.events:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no event", what)
	}
}

func strp(s string) *string { return &s }

func mustRead(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustWrite(t testing.TB, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func permOf(t testing.TB, p string) uint32 {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	perm, _, _ := statBits(fi)
	return perm
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// tempFiles lists the leftover temporary files of atomic writes in dir.
func tempFiles(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.Contains(e.Name(), tmpMarker) {
			out = append(out, e.Name())
		}
	}
	return out
}
