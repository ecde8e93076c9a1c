package system

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// harness runs one resource the way the engine does: Init, Watch in a
// goroutine, CheckApply on demand, and records the events and log lines.
type harness struct {
	t       *testing.T
	res     engine.Res
	events  chan struct{}
	refresh bool

	mu  sync.Mutex
	log []string
}

func newHarness(t *testing.T, r engine.Res) *harness {
	t.Helper()
	h := &harness{t: t, res: r, events: make(chan struct{}, 1000)}
	if err := r.Validate(); err != nil {
		t.Fatalf("%s: validate: %v", r, err)
	}
	init := &engine.Init{
		Env: &engine.Env{Program: "mgmt-test", Hostname: "test", Debug: true},
		Hooks: &engine.Funcs{
			RunningFunc: func() {},
			EventFunc:   func() { h.events <- struct{}{} },
			RefreshFunc: func() bool { return h.refresh },
			LogfFunc: func(format string, v ...any) {
				h.mu.Lock()
				defer h.mu.Unlock()
				h.log = append(h.log, sprintf(format, v...))
				t.Logf(format, v...)
			},
		},
	}
	if err := r.Init(init); err != nil {
		t.Fatalf("%s: init: %v", r, err)
	}
	t.Cleanup(func() { r.Cleanup() })
	return h
}

// watch starts Watch and waits until it calls Running.
func (h *harness) watch() {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	running := make(chan struct{})
	done := make(chan error, 1)
	var once sync.Once
	h.resInit().Hooks.(*engine.Funcs).RunningFunc = func() { once.Do(func() { close(running) }) }
	go func() { done <- h.res.Watch(ctx) }()
	select {
	case <-running:
	case err := <-done:
		h.t.Fatalf("%s: watch ended before running: %v", h.res, err)
	case <-time.After(10 * time.Second):
		h.t.Fatalf("%s: watch not running after 10s", h.res)
	}
	h.t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				h.t.Errorf("%s: watch: %v", h.res, err)
			}
		case <-time.After(10 * time.Second):
			h.t.Errorf("%s: watch did not return after cancel", h.res)
		}
	})
}

// resInit digs the Init handle out of the resource.
func (h *harness) resInit() *engine.Init {
	switch r := h.res.(type) {
	case *SvcRes:
		return r.init
	case *PkgRes:
		return r.init
	case *UserRes:
		return r.init
	case *GroupRes:
		return r.init
	case *HostnameRes:
		return r.init
	case *MountRes:
		return r.init
	case *CronRes:
		return r.init
	case *NetRes:
		return r.init
	case *FirewalldRes:
		return r.init
	case *FwupdDeviceRes:
		return r.init
	case *FwupdRemoteRes:
		return r.init
	case *FwupdSystemRes:
		return r.init
	case *NspawnRes:
		return r.init
	case *GsettingsRes:
		return r.init
	}
	h.t.Fatalf("unknown resource %T", h.res)
	return nil
}

// drain forgets the events seen so far.
func (h *harness) drain() {
	for {
		select {
		case <-h.events:
		default:
			return
		}
	}
}

// waitEvent waits for Watch to report an event.
func (h *harness) waitEvent(what string) time.Duration {
	h.t.Helper()
	start := time.Now()
	select {
	case <-h.events:
		return time.Since(start)
	case <-time.After(10 * time.Second):
		h.t.Fatalf("%s: no event after %s", h.res, what)
	}
	return 0
}

// check runs CheckApply and fails unless it returns want.
func (h *harness) check(apply, want bool) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ok, err := h.res.CheckApply(ctx, apply)
	if err != nil {
		h.t.Fatalf("%s: CheckApply(%v): %v", h.res, apply, err)
	}
	if ok != want {
		h.t.Fatalf("%s: CheckApply(%v) = %v, want %v", h.res, apply, ok, want)
	}
}

// converge applies and then checks that the state holds.
func (h *harness) converge() {
	h.t.Helper()
	h.check(true, false)
	h.check(false, true)
}

// logged reports whether a log line contains s.
func (h *harness) logged(s string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, l := range h.log {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

func sprintf(format string, v ...any) string { return fmt.Sprintf(format, v...) }
