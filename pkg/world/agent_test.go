package world

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// agentRun is an Agent running in the background, with its state changes.
type agentRun struct {
	cfg    ServerConfig
	cancel context.CancelFunc
	done   chan error
	states chan string
}

func startAgent(t *testing.T, dir, name string, ideal int, seeds ...string) *agentRun {
	t.Helper()
	r := &agentRun{done: make(chan error, 1), states: make(chan string, 16)}
	r.cfg = ServerConfig{Name: name, DataDir: filepath.Join(dir, name), ClientURLs: []string{freeURL("http")},
		PeerURLs: []string{freeURL("http")}, Seeds: seeds, Insecure: true}
	a, err := NewAgent(AgentConfig{Server: r.cfg, IdealSize: ideal, Interval: 200 * time.Millisecond,
		Logf: func(f string, v ...any) { t.Logf(name+": "+f, v...) }, State: func(s string) { r.states <- s }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.done <- a.Run(ctx) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

func (r *agentRun) waitState(t *testing.T, want string) {
	t.Helper()
	for {
		select {
		case s := <-r.states:
			if s == want {
				return
			}
		case err := <-r.done:
			t.Fatalf("%s stopped (%v) before reaching state %s", r.cfg.Name, err, want)
		case <-time.After(45 * time.Second):
			t.Fatalf("%s did not reach state %s", r.cfg.Name, want)
		}
	}
}

var stopOnce sync.Map

func (r *agentRun) stop(t *testing.T) {
	if _, done := stopOnce.LoadOrStore(r, true); done {
		return
	}
	r.cancel()
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("%s: %v", r.cfg.Name, err)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("%s did not stop", r.cfg.Name)
	}
}

// TestAgentStandby runs three agents in one process with an ideal size of
// two: the third stands by, serves clients through its proxy, and is
// promoted when a member leaves.
func TestAgentStandby(t *testing.T) {
	if testing.Short() {
		t.Skip("forms a cluster")
	}
	dir := t.TempDir()
	a := startAgent(t, dir, "a", 2)
	a.waitState(t, "member")
	b := startAgent(t, dir, "b", 2, a.cfg.ClientURLs...)
	b.waitState(t, "member")
	c := startAgent(t, dir, "c", 2, a.cfg.ClientURLs...)
	c.waitState(t, "standby")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl, err := Connect(ctx, Config{Endpoints: c.cfg.ClientURLs, Hostname: "t"})
	if err != nil {
		t.Fatalf("through the standby's proxy: %v", err)
	}
	defer cl.Close()
	if err := cl.StrSet(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	if sb, err := cl.Standbys(ctx); err != nil || len(sb) != 1 || sb[0].Name != "c" {
		t.Fatalf("standbys %v, %v", sb, err)
	}

	b.stop(t) // a clean leave
	c.waitState(t, "member")
	ms, err := cl.Members(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Name != "a" || ms[1].Name != "c" {
		t.Fatalf("members after the promotion: %+v", ms)
	}
	if HasData(b.cfg.DataDir) {
		t.Fatal("the member that left kept its data")
	}
}
