package world

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// TestLazyPrivate checks the private world of a tool without seeds: it
// starts on first use, a second tool with the same prefix shares it, and
// its data survives a restart on other ports.
func TestLazyPrivate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	prefix := t.TempDir()
	a, err := Open(OpenConfig{Prefix: prefix, Hostname: "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	// A graph without exports does not start anything.
	if err := a.ResExport(ctx, []*graph.Resource{{Kind: "file", Name: "/x"}}); err != nil || a.Started() {
		t.Fatalf("ResExport without exports: started=%v err=%v", a.Started(), err)
	}
	if err := a.StrSet(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	if !a.Started() || !HasData(prefix+"/server") {
		t.Fatal("the private member did not start under the prefix")
	}
	b, err := Open(OpenConfig{Prefix: prefix, Hostname: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if v, _, err := b.StrGet(ctx, "k"); err != nil || v != "v" {
		t.Fatalf("second tool read %q, %v", v, err)
	}
	b.Close()
	a.Close()
	if _, _, err := a.StrGet(ctx, "k"); err == nil {
		t.Fatal("a closed world still answers")
	}

	c, err := Open(OpenConfig{Prefix: prefix, Hostname: "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if v, ok, err := c.StrGet(ctx, "k"); err != nil || v != "v" || !ok {
		t.Fatalf("after a restart read %q, %v, %v", v, ok, err)
	}
}

func TestOpenErrors(t *testing.T) {
	for _, cfg := range []OpenConfig{
		{Hostname: "h"},
		{Hostname: "a/b", Prefix: "/tmp"},
		{Hostname: "h", Seeds: []string{"http://192.0.2.1:2379"}},
		{Hostname: "h", Seeds: []string{"http://127.0.0.1:1"}, TLS: &TLSFiles{Cert: "/nonexistent"}},
	} {
		if _, err := Open(cfg); err == nil {
			t.Errorf("Open(%+v) succeeded", cfg)
		}
	}
	l, err := Open(OpenConfig{Hostname: "h", Seeds: []string{"http://127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := l.StrSet(ctx, "k", "v"); err == nil {
		t.Fatal("a world nobody serves accepted a write")
	}
	if err := <-l.ResWatch(ctx); err == nil {
		t.Fatal("ResWatch of a failed world reported no error")
	}
}

func TestClusterConverged(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, b := client(t, "a"), client(t, "b")
	var aConv, bConv atomic.Bool
	aConv.Store(true)
	logf := func(f string, v ...any) { t.Logf(f, v...) }
	doneA := ClusterConverged(ctx, a, aConv.Load, 200*time.Millisecond, 10*time.Millisecond, logf)
	doneB := ClusterConverged(ctx, b, bConv.Load, 200*time.Millisecond, 10*time.Millisecond, logf)
	// Wait until both states are recorded: a converged, b not.
	watch := a.ConvergedWatch(ctx)
	for {
		wait(t, watch)
		m, _ := a.Converged(ctx)
		if m["a"] && len(m) == 2 && !m["b"] {
			break
		}
	}
	select {
	case <-doneA:
		t.Fatal("a saw the world converged while b was not")
	default:
	}
	bConv.Store(true)
	for _, done := range []<-chan struct{}{doneA, doneB} {
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the world never converged")
		}
	}
}
