package world

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	if !a.Started() || !HasData(prefix+"/world/server") {
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

// TestLayoutPrepare checks that the world's directory under a prefix is
// made private, and that one another user could have entered or planted,
// or a member's data in the place of earlier versions, is refused.
func TestLayoutPrepare(t *testing.T) {
	prefix := t.TempDir()
	lay, err := PrefixLayout(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := lay.Prepare(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(lay.Dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("world directory: %v, %v; want mode 0700", fi, err)
	}
	os.Chmod(lay.Dir, 0o750)
	if err := lay.Prepare(); err == nil || !strings.Contains(err.Error(), "lets other users in") {
		t.Fatalf("a group-readable world directory: %v", err)
	}
	os.Remove(lay.Dir)
	os.Symlink(t.TempDir(), lay.Dir)
	if err := lay.Prepare(); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("a symbolic link as world directory: %v", err)
	}
	os.Remove(lay.Dir)
	if os.Geteuid() == 0 {
		os.Mkdir(lay.Dir, 0o700)
		os.Chown(lay.Dir, 65534, 65534)
		if err := lay.Prepare(); err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
			t.Fatalf("a world directory of another user: %v", err)
		}
		os.Remove(lay.Dir)
	}
	os.MkdirAll(filepath.Join(prefix, "server", "member", "wal"), 0o700)
	if err := lay.CheckOldData(); err == nil || !strings.Contains(err.Error(), "earlier version") {
		t.Fatalf("data of an earlier version: %v", err)
	}
	long := "/" + strings.Repeat("x", 100)
	if _, err := PrefixLayout(long); err == nil {
		t.Fatal("a prefix too long for a unix socket was accepted")
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

// lossyConverged is a ConvergedWorld whose SetConverged of false, once
// armed, reports a failure although the write landed, as when the member
// that took the request is lost before it answers; lost runs then.
type lossyConverged struct {
	*Client
	armed atomic.Bool
	lost  func()
}

func (l *lossyConverged) SetConverged(ctx context.Context, converged bool) error {
	if err := l.Client.SetConverged(ctx, converged); err != nil {
		return err
	}
	if !converged && l.armed.CompareAndSwap(true, false) {
		l.lost()
		return fmt.Errorf("error reading from server: connection reset by peer")
	}
	return nil
}

// TestClusterConvergedLostAnswer checks that a host whose write of "not
// converged" was reported failed but landed writes its state again once
// converged: else the world would hold it unconverged for ever, and no
// host would ever see the world converged.
func TestClusterConvergedLostAnswer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := &lossyConverged{Client: client(t, "a")}
	watch := a.ConvergedWatch(ctx)
	var conv atomic.Bool
	conv.Store(true)
	logf := func(f string, v ...any) { t.Logf(f, v...) }
	// state waits until the world holds state for a, written at least
	// writes times, and returns how many times it was: a write quickly
	// followed by another is not always seen between them.
	state := func(want bool, writes int64) int64 {
		t.Helper()
		for {
			wait(t, watch)
			r, err := a.cli.Get(ctx, a.ns+convergedDir+"a")
			if err == nil && len(r.Kvs) == 1 && (string(r.Kvs[0].Value) == "true") == want && r.Kvs[0].Version >= writes {
				return r.Kvs[0].Version
			}
		}
	}
	// The host is converged again before it retries the write.
	a.lost = func() { conv.Store(true) }
	done := ClusterConverged(ctx, a, conv.Load, time.Hour, 10*time.Millisecond, logf)
	v := state(true, 1)
	a.armed.Store(true)
	conv.Store(false)
	// "Not converged" lands, reported failed; then "converged" again.
	state(true, v+2)
	select {
	case <-done:
		t.Fatal("converged for an hour already")
	default:
	}
}
