package world

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// waitState waits, following watch, until c's converged state is want.
func waitState(t *testing.T, c *Client, watch <-chan error, want ConvergedState) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		st, err := c.ConvergedState(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if st == want {
			return
		}
		select {
		case err := <-watch:
			if err != nil {
				t.Fatalf("watch error: %v", err)
			}
		case <-deadline:
			t.Fatalf("converged state %+v, want %+v", st, want)
		}
	}
}

// TestConvergedState follows the converged states of hosts joining,
// changing, leaving and losing their lease, and checks that the host
// following them read the converged tree once, whatever the changes.
func TestConvergedState(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, b := client(t, "a"), client(t, "b")
	var ranges, keys atomic.Int64
	countReads(a, &ranges, &keys)
	watch := a.ConvergedWatch(ctx)
	wait(t, watch)
	waitState(t, a, watch, ConvergedState{})
	if err := a.SetConverged(ctx, true); err != nil {
		t.Fatal(err)
	}
	waitState(t, a, watch, ConvergedState{Hosts: 1, Converged: 1, Recorded: true, Self: true})
	if err := b.SetConverged(ctx, false); err != nil {
		t.Fatal(err)
	}
	waitState(t, a, watch, ConvergedState{Hosts: 2, Converged: 1, Recorded: true, Self: true})
	if err := b.SetConverged(ctx, true); err != nil {
		t.Fatal(err)
	}
	waitState(t, a, watch, ConvergedState{Hosts: 2, Converged: 2, Recorded: true, Self: true})
	// Host c records its state on a lease nobody keeps alive.
	g, err := b.cli.Grant(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.cli.Put(ctx, b.ns+convergedDir+"c", "false", clientv3.WithLease(g.ID)); err != nil {
		t.Fatal(err)
	}
	waitState(t, a, watch, ConvergedState{Hosts: 3, Converged: 2, Recorded: true, Self: true})
	// The lease expires: c's state goes with it.
	waitState(t, a, watch, ConvergedState{Hosts: 2, Converged: 2, Recorded: true, Self: true})
	if st := (ConvergedState{Hosts: 2, Converged: 2, Recorded: true, Self: true}); !st.All() {
		t.Fatal("two converged hosts, this one among them, are not all converged")
	}
	b.Close() // b leaves: its lease is revoked
	waitState(t, a, watch, ConvergedState{Hosts: 1, Converged: 1, Recorded: true, Self: true})
	if err := a.SetConverged(ctx, false); err != nil {
		t.Fatal(err)
	}
	waitState(t, a, watch, ConvergedState{Hosts: 1, Converged: 0, Recorded: true, Self: false})
	if n := ranges.Load(); n != 1 {
		t.Errorf("a made %d range requests following the converged states, want 1 (the first read)", n)
	}
	// Converged, for inspection, reflects every write before the call.
	if m, err := a.Converged(ctx); err != nil || len(m) != 1 || m["a"] {
		t.Fatalf("Converged = %v, %v; want a not converged", m, err)
	}
}

// TestClusterConvergedReadsOnce runs ClusterConverged on hosts that
// become converged one after the other, and checks that each host read
// the converged states once (every later change came from its watch) and
// wrote its state twice: "not converged", then "converged", never again
// for a state read before its own write arrived.
func TestClusterConvergedReadsOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 6
	var ranges, keys atomic.Int64
	var conv [n]atomic.Bool
	var done [n]<-chan struct{}
	logf := func(f string, v ...any) { t.Logf(f, v...) }
	for i := range n {
		c := client(t, string(rune('a'+i)))
		countReads(c, &ranges, &keys)
		done[i] = ClusterConverged(ctx, c, conv[i].Load, 100*time.Millisecond, 10*time.Millisecond, logf)
	}
	obs := client(t, "observer")
	watch := obs.ConvergedWatch(ctx)
	for {
		wait(t, watch)
		if m, err := obs.Converged(ctx); err == nil && len(m) == n {
			break // every host recorded "not converged"
		}
	}
	for i := range n {
		select {
		case <-done[0]:
			t.Fatalf("the world converged with %d of %d hosts converged", i, n)
		default:
		}
		conv[i].Store(true)
	}
	for i := range n {
		select {
		case <-done[i]:
		case <-time.After(20 * time.Second):
			t.Fatalf("host %d never saw the world converged", i)
		}
	}
	if got := ranges.Load(); got != n {
		t.Errorf("%d hosts made %d range requests, want %d (one read each)", n, got, n)
	}
	r, err := obs.cli.Get(ctx, obs.ns+convergedDir, clientv3.WithPrefix())
	if err != nil || len(r.Kvs) != n {
		t.Fatalf("converged states %v, %v; want %d", r, err, n)
	}
	for _, kv := range r.Kvs {
		if kv.Version != 2 || string(kv.Value) != "true" {
			t.Errorf("%s = %s after %d writes, want true after 2", kv.Key, kv.Value, kv.Version)
		}
	}
}

// TestWatchesWakeTheirNamespace checks that a schedule's watch and a
// per-host map's watch are woken by changes of their namespace only, and
// that the schedule and the map still reflect every write before a call.
func TestWatchesWakeTheirNamespace(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, b := client(t, "a"), client(t, "b")
	sched, err := a.ScheduleWatch(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	maps, err := a.StrMapWatch(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	wait(t, sched)
	wait(t, maps)
	if err := b.SchedulerAdd(ctx, "db", SchedOpts{}); err != nil {
		t.Fatal(err)
	}
	if err := b.StrMapSet(ctx, "db", "x"); err != nil {
		t.Fatal(err)
	}
	// Reading reflects both writes, so any notification they caused is
	// queued by now.
	if got, err := a.Schedule(ctx, "db"); err != nil || len(got) != 1 || got[0] != "b" {
		t.Fatalf("schedule of db %v, %v", got, err)
	}
	if got, err := a.StrMapGet(ctx, "db"); err != nil || got["b"] != "x" || len(got) != 1 {
		t.Fatalf("map db %v, %v", got, err)
	}
	for name, ch := range map[string]<-chan error{"schedule": sched, "map": maps} {
		select {
		case err := <-ch:
			t.Fatalf("a change of namespace db woke the %s watch of web (%v)", name, err)
		default:
		}
	}
	if err := b.SchedulerAdd(ctx, "web", SchedOpts{}); err != nil {
		t.Fatal(err)
	}
	wait(t, sched)
	if err := b.StrMapSet(ctx, "web", "y"); err != nil {
		t.Fatal(err)
	}
	wait(t, maps)
	if got, err := a.Schedule(ctx, "web"); err != nil || len(got) != 1 || got[0] != "b" {
		t.Fatalf("schedule of web %v, %v", got, err)
	}
	if got, err := a.StrMapGet(ctx, "web"); err != nil || got["b"] != "y" || len(got) != 1 {
		t.Fatalf("map web %v, %v", got, err)
	}
	if err := b.SchedulerWithdraw(ctx, "web"); err != nil {
		t.Fatal(err)
	}
	wait(t, sched)
	if got, err := a.Schedule(ctx, "web"); err != nil || len(got) != 0 {
		t.Fatalf("schedule of web after the withdrawal %v, %v", got, err)
	}
}

// TestClosedClient checks that a closed client's reads and watches of the
// followed trees fail at once instead of starting a tree that would try
// for ever.
func TestClosedClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := client(t, "a")
	c.Close()
	if _, err := c.ResCollect(ctx, ""); err == nil {
		t.Fatal("a closed client collected")
	}
	if _, err := c.ConvergedState(ctx); err == nil {
		t.Fatal("a closed client read the converged states")
	}
	if err := <-c.ConvergedWatch(ctx); err == nil || Transient(err) {
		t.Fatalf("a closed client's watch: %v, want an error for good", err)
	}
	if c.exp != nil {
		select {
		case <-c.exp.done:
		default:
			t.Fatal("a tree runs on a closed client")
		}
	}
}
