package worldpipe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/world"
	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
	"github.com/mgmtpipe/mgmt/pkg/world/worldtest"
)

// childArg makes the test binary the child: it serves the world given
// over its stdin and stdout, as mgmt-cluster world-client does.
const childArg = "worldpipe-child"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == childArg {
		err := Serve(os.Stdin, os.Stdout, ServeConfig{Open: openLazy, Transient: world.Transient})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	worldtest.Main(m)
}

// lazy is pkg/world's Lazy as a Backend (without metrics).
type lazy struct{ *world.Lazy }

func (lazy) Metrics() ([]byte, error) { return nil, nil }

func openLazy(c Config) (Backend, error) {
	l, err := world.Open(world.OpenConfig{Seeds: c.Seeds, Namespace: c.Namespace, Hostname: c.Hostname, Prefix: c.Prefix})
	if err != nil {
		return nil, err
	}
	return lazy{l}, nil
}

// logs collects what a Client logs, safely after its test too.
type logs struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logs) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.b, format+"\n", args...)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// open returns a Client of host in t's world, served by a child process
// (this test binary), closed when t ends.
func open(t *testing.T, host string) (*Client, *logs) {
	t.Helper()
	lg := &logs{}
	c, err := Open(ClientConfig{
		World: Config{Seeds: worldtest.Endpoints(t), Namespace: worldtest.Namespace(t), Hostname: host},
		Path:  os.Args[0], Args: []string{childArg}, Stderr: os.Stderr, Logf: lg.logf,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, lg
}

// next waits for a notification on ch.
func next(t *testing.T, ch <-chan error, what string) error {
	t.Helper()
	select {
	case err, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the watch closed", what)
		}
		return err
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: no notification", what)
		return nil
	}
}

// drain empties a pending notification.
func drain(ch <-chan error) {
	select {
	case <-ch:
	default:
	}
}

// TestPipeWorld runs every part of the world through two children, one
// per host, against a real etcd member.
func TestPipeWorld(t *testing.T) {
	ctx := context.Background()
	a, _ := open(t, "a")
	b, _ := open(t, "b")
	if a.Started() {
		t.Fatal("started before first use")
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := b.StrWatch(wctx, "greeting")
	if err != nil {
		t.Fatal(err)
	}
	next(t, w, "watch start")
	if err := a.StrSet(ctx, "greeting", "hi"); err != nil {
		t.Fatal(err)
	}
	next(t, w, "watch of a change")
	if v, ok, err := b.StrGet(ctx, "greeting"); v != "hi" || !ok || err != nil {
		t.Fatalf("StrGet = %q, %v, %v", v, ok, err)
	}
	if err := a.StrMapSet(ctx, "up", "yes"); err != nil {
		t.Fatal(err)
	}
	if m, err := b.StrMapGet(ctx, "up"); err != nil || !reflect.DeepEqual(m, map[string]string{"a": "yes"}) {
		t.Fatalf("StrMapGet = %v, %v", m, err)
	}
	if v, ok, err := b.StrMapGetHost(ctx, "up"); v != "" || ok || err != nil {
		t.Fatalf("StrMapGetHost of b = %q, %v, %v", v, ok, err)
	}
	res := []*graph.Resource{{Kind: "file", Name: "/tmp/x", Params: map[string]any{"mode": "0644"},
		Meta: &graph.Meta{Export: []string{"b"}}}}
	if err := a.ResExport(ctx, res); err != nil {
		t.Fatal(err)
	}
	xs, err := b.ResCollect(ctx, "file")
	if err != nil || len(xs) != 1 || xs[0].From != "a" || xs[0].Res.Name != "/tmp/x" || xs[0].Res.Params["mode"] != "0644" || xs[0].Err != nil {
		t.Fatalf("ResCollect = %+v, %v", xs, err)
	}
	if err := a.SchedulerAdd(ctx, "web", worldapi.SchedOpts{Max: 1}); err != nil {
		t.Fatal(err)
	}
	if hosts, err := b.Schedule(ctx, "web"); err != nil || !reflect.DeepEqual(hosts, []string{"a"}) {
		t.Fatalf("Schedule = %v, %v", hosts, err)
	}
	if o, ok, err := a.SchedulerVolunteering(ctx, "web"); !ok || o.Max != 1 || err != nil {
		t.Fatalf("SchedulerVolunteering = %+v, %v, %v", o, ok, err)
	}
	if err := b.SchedulerAdd(ctx, "web", worldapi.SchedOpts{Strategy: "nope"}); err == nil || worldapi.Transient(err) {
		t.Fatalf("a bad strategy: %v", err)
	}
	if err := a.SetConverged(ctx, true); err != nil {
		t.Fatal(err)
	}
	if m, err := b.Converged(ctx); err != nil || !reflect.DeepEqual(m, map[string]bool{"a": true}) {
		t.Fatalf("Converged = %v, %v", m, err)
	}
	// The first call of ConvergedState reads the states: a's write is in.
	if st, err := b.ConvergedState(ctx); err != nil || st != (worldapi.ConvergedState{Hosts: 1, Converged: 1}) {
		t.Fatalf("b's ConvergedState = %+v, %v", st, err)
	}
	if st, err := a.ConvergedState(ctx); err != nil || st != (worldapi.ConvergedState{Hosts: 1, Converged: 1, Recorded: true, Self: true}) {
		t.Fatalf("a's ConvergedState = %+v, %v", st, err)
	}
	// Closing a revokes its lease at once: its converged state vanishes.
	a.Close()
	if m, err := b.Converged(ctx); err != nil || len(m) != 0 {
		t.Fatalf("Converged after a closed = %v, %v", m, err)
	}
	if _, _, err := a.StrGet(ctx, "greeting"); err == nil {
		t.Fatal("a closed client answers")
	}
}

// TestPipeCancel checks that a call ends with its context and that a
// watch closes with its own.
func TestPipeCancel(t *testing.T) {
	a, _ := open(t, "a")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := a.StrGet(ctx, "k"); !errors.Is(err, context.Canceled) {
		t.Fatalf("StrGet with an ended context: %v", err)
	}
	wctx, wcancel := context.WithCancel(context.Background())
	w := a.ConvergedWatch(wctx)
	next(t, w, "watch start")
	wcancel()
	for range w {
	}
	// The child forgot the watch: its calls go on.
	if err := a.StrSet(context.Background(), "k", "v"); err != nil {
		t.Fatal(err)
	}
}

// TestPipeChildKilled kills the child (SIGKILL) under a watch: the watch
// reports it, a new child is started, and the watch goes on over it.
func TestPipeChildKilled(t *testing.T) {
	ctx := context.Background()
	a, lg := open(t, "a")
	b, _ := open(t, "b")
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := a.StrWatch(wctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	next(t, w, "watch start")
	a.mu.Lock()
	old := a.p
	a.mu.Unlock()
	old.cmd.Process.Signal(syscall.SIGKILL)
	<-old.done
	if err := next(t, w, "the child's end"); err == nil || !worldapi.Transient(err) {
		t.Fatalf("the watch reported %v, want a transient error", err)
	}
	// The watch starts again over a new child (its start notifies).
	for err := next(t, w, "watch restart"); err != nil; err = next(t, w, "watch restart") {
	}
	drain(w)
	if err := b.StrSet(ctx, "k", "after"); err != nil {
		t.Fatal(err)
	}
	next(t, w, "a change after the restart")
	if v, _, err := a.StrGet(ctx, "k"); v != "after" || err != nil {
		t.Fatalf("StrGet after the restart = %q, %v", v, err)
	}
	if !strings.Contains(lg.String(), "ended: signal: killed") {
		t.Fatalf("the end of the child was not logged:\n%s", lg)
	}
}

// TestPipeMissing checks the error of a child that cannot be found or
// started.
func TestPipeMissing(t *testing.T) {
	_, err := Find("no-such-tool-" + t.Name())
	if err == nil || !strings.Contains(err.Error(), "no-such-tool-") {
		t.Fatalf("Find: %v", err)
	}
	c, err := Open(ClientConfig{World: Config{Hostname: "a"}, FindErr: err})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "no-such-tool-") || worldapi.Transient(err) {
		t.Fatalf("Check: %v", err)
	}
}

// TestPipeNotAChild checks that a program that is not a world client is
// refused: one that echoes the requests, one that exits at once.
func TestPipeNotAChild(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"/bin/cat", "is not a world client"},
		{"/bin/true", "ended"},
	} {
		cl, err := Open(ClientConfig{World: Config{Hostname: "a"}, Path: c.path, Stderr: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		err = cl.Check(context.Background())
		cl.Close()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "world: ") {
			t.Errorf("%s: %v, want an error saying %q", c.path, err, c.want)
		}
	}
}

// TestServeRefuses checks that Serve refuses another protocol version and
// a call before open, and ends at the end of its input.
func TestServeRefuses(t *testing.T) {
	in := strings.NewReader(`{"id":1,"op":"str_get","key":"k"}` + "\n" +
		`{"id":2,"op":"open","proto":"world-pipe/v0","open":{"hostname":"a"}}` + "\n")
	var out strings.Builder
	if err := Serve(in, &out, ServeConfig{Open: openLazy, Transient: world.Transient}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.Contains(got, `"str_get\" before open`) || !strings.Contains(got, "world-pipe/v0") {
		t.Fatalf("replies:\n%s", got)
	}
	if err := Serve(strings.NewReader("not json\n"), io.Discard, ServeConfig{Open: openLazy}); err == nil {
		t.Fatal("Serve read a line that is not the protocol")
	}
}
