package worldres

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/world"
	"github.com/mgmtpipe/mgmt/pkg/world/worldtest"
)

// TestMain runs one embedded etcd member for the package's tests; each
// test uses its own namespace.
func TestMain(m *testing.M) { worldtest.Main(m) }

// harness is the engine's side of the Init handle.
type harness struct {
	running, events chan struct{}
	mu              sync.Mutex
	refresh         bool
}

func newInit(w engine.World) (*harness, *engine.Init) {
	h := &harness{running: make(chan struct{}, 1), events: make(chan struct{}, 1)}
	return h, &engine.Init{
		Env: &engine.Env{Hostname: w.Hostname(), World: w},
		Hooks: &engine.Funcs{
			RunningFunc: func() { h.running <- struct{}{} },
			EventFunc: func() {
				select {
				case h.events <- struct{}{}:
				default:
				}
			},
			RefreshFunc: func() bool { h.mu.Lock(); defer h.mu.Unlock(); return h.refresh },
		},
	}
}

func (h *harness) setRefresh(b bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.refresh = b
}

func recv(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10s", what)
	}
}

func str(s string) *string { return &s }

// checkApply runs CheckApply and compares its result.
func checkApply(t *testing.T, r engine.Res, apply, want bool) {
	t.Helper()
	got, err := r.CheckApply(context.Background(), apply)
	if err != nil {
		t.Fatalf("CheckApply(%v): %v", apply, err)
	}
	if got != want {
		t.Fatalf("CheckApply(%v) = %v, want %v", apply, got, want)
	}
}

func newKV(t *testing.T, w engine.World, k *KVRes) (*KVRes, *harness) {
	t.Helper()
	k.SetKind("kv")
	if k.Name() == "" {
		k.SetName("k")
	}
	if err := k.Validate(); err != nil {
		t.Fatal(err)
	}
	h, init := newInit(w)
	if err := k.Init(init); err != nil {
		t.Fatal(err)
	}
	return k, h
}

func TestKV(t *testing.T) {
	ctx := context.Background()
	c := worldtest.Connect(t, "h1")
	k, _ := newKV(t, c, &KVRes{Value: str("v1")})
	checkApply(t, k, false, false)
	checkApply(t, k, true, false)
	checkApply(t, k, true, true)
	if v, _, _ := c.StrGet(ctx, "k"); v != "v1" {
		t.Fatalf("stored %q, want v1", v)
	}
	// Undefined value: the key goes.
	del, _ := newKV(t, c, &KVRes{})
	checkApply(t, del, true, false)
	if _, ok, _ := c.StrGet(ctx, "k"); ok {
		t.Fatal("key still there")
	}
	checkApply(t, del, true, true)
}

func TestKVMapped(t *testing.T) {
	ctx := context.Background()
	a, b := worldtest.Connect(t, "a"), worldtest.Connect(t, "b")
	ka, _ := newKV(t, a, &KVRes{Key: "ns", Value: str("1"), Mapped: true})
	kb, _ := newKV(t, b, &KVRes{Key: "ns", Value: str("2"), Mapped: true})
	checkApply(t, ka, true, false)
	checkApply(t, kb, true, false)
	checkApply(t, ka, true, true)
	m, err := a.StrMapGet(ctx, "ns")
	if err != nil || m["a"] != "1" || m["b"] != "2" || len(m) != 2 {
		t.Fatalf("map %v, %v", m, err)
	}
}

func TestKVSkipLessThan(t *testing.T) {
	ctx := context.Background()
	c := worldtest.Connect(t, "h1")
	k, h := newKV(t, c, &KVRes{Value: str("10"), SkipLessThan: true})
	c.StrSet(ctx, "k", "9")
	checkApply(t, k, true, false) // 9 < 10: updated
	c.StrSet(ctx, "k", "11")
	checkApply(t, k, true, true) // 11 > 10: left alone
	if v, _, _ := c.StrGet(ctx, "k"); v != "11" {
		t.Fatalf("stored %q, want 11", v)
	}
	h.setRefresh(true)
	checkApply(t, k, true, false) // a refresh resets it
	if v, _, _ := c.StrGet(ctx, "k"); v != "10" {
		t.Fatalf("after refresh stored %q, want 10", v)
	}
	h.setRefresh(false)
	// As strings, "9" > "10".
	ks, _ := newKV(t, c, &KVRes{Value: str("10"), SkipLessThan: true, SkipCmpStyle: SkipCmpString})
	c.StrSet(ctx, "k", "9")
	checkApply(t, ks, true, true)
	// A stored value that is not an integer is an error in int style.
	c.StrSet(ctx, "k", "abc")
	if _, err := k.CheckApply(ctx, true); err == nil || !strings.Contains(err.Error(), "not an integer") {
		t.Fatalf("got %v, want a not-an-integer error", err)
	}
}

func TestKVWatch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c, other := worldtest.Connect(t, "h1"), worldtest.Connect(t, "h2")
	k, h := newKV(t, c, &KVRes{Value: str("v")})
	done := make(chan error, 1)
	go func() { done <- k.Watch(ctx) }()
	recv(t, h.running, "Running")
	other.StrSet(ctx, "k", "drift")
	recv(t, h.events, "Event after another host changed the key")
	checkApply(t, k, true, false)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Watch returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not return after cancel")
	}
}

func TestKVValidate(t *testing.T) {
	tests := []struct {
		k    *KVRes
		want string
	}{
		{&KVRes{SkipCmpStyle: "float"}, "skipcmpstyle"},
		{&KVRes{Value: str("x"), SkipLessThan: true}, "not an integer"},
	}
	for i, tt := range tests {
		tt.k.SetName("k")
		if err := tt.k.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("case %d: Validate = %v, want %q", i, err, tt.want)
		}
	}
	var noWorld KVRes
	if err := noWorld.Init(&engine.Init{Env: &engine.Env{}}); err == nil || !strings.Contains(err.Error(), "needs the world") {
		t.Errorf("Init without a world: %v", err)
	}
	var s ScheduleRes
	if err := s.Init(&engine.Init{Env: &engine.Env{}}); err == nil {
		t.Error("schedule Init without a world succeeded")
	}
	if err := s.Cleanup(); err != nil {
		t.Errorf("Cleanup after a failed Init: %v", err)
	}
}

func TestSchedule(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, b := worldtest.Connect(t, "a"), worldtest.Connect(t, "b")
	mk := func(w engine.World) (*ScheduleRes, *harness) {
		s := &ScheduleRes{Namespace: "db", Max: 1, Strategy: world.StrategyAlpha}
		s.SetKind("schedule")
		s.SetName("db")
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		h, init := newInit(w)
		if err := s.Init(init); err != nil {
			t.Fatal(err)
		}
		return s, h
	}
	sb, hb := mk(b)
	go sb.Watch(ctx)
	recv(t, hb.running, "Running")
	checkApply(t, sb, true, false)
	checkApply(t, sb, true, true)
	if got, _ := a.Schedule(ctx, "db"); len(got) != 1 || got[0] != "b" {
		t.Fatalf("schedule %v, want [b]", got)
	}
	sa, _ := mk(a)
	checkApply(t, sa, true, false)
	recv(t, hb.events, "Event on a new volunteer")
	if got, _ := a.Schedule(ctx, "db"); len(got) != 1 || got[0] != "a" {
		t.Fatalf("schedule %v, want [a] (alphabetical, max 1)", got)
	}
	if err := sa.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.Schedule(ctx, "db"); len(got) != 1 || got[0] != "b" {
		t.Fatalf("after a withdrew: %v, want [b]", got)
	}
	bad := &ScheduleRes{Strategy: "random"}
	bad.SetName("x")
	if err := bad.Validate(); err == nil {
		t.Fatal("unknown strategy accepted")
	}
}

// TestSchedulePersistTTLWithdraw: a persistent entry stays when its
// resource leaves the graph, one with a ttl stays that long, and a
// withdraw resource removes this host's entry, persistent or not.
func TestSchedulePersistTTLWithdraw(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, b := worldtest.Connect(t, "a"), worldtest.Connect(t, "b")
	mk := func(w engine.World, s *ScheduleRes) *ScheduleRes {
		s.SetKind("schedule")
		s.SetName("jobs")
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		_, init := newInit(w)
		if err := s.Init(init); err != nil {
			t.Fatal(err)
		}
		return s
	}
	ttl := 1
	pa := mk(a, &ScheduleRes{Persist: true})
	tb := mk(b, &ScheduleRes{TTL: &ttl})
	checkApply(t, pa, true, false)
	checkApply(t, pa, true, true)
	checkApply(t, tb, true, false)
	checkApply(t, tb, true, true)
	for _, r := range []*ScheduleRes{pa, tb} {
		if err := r.Cleanup(); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := a.Schedule(ctx, "jobs"); len(got) != 2 {
		t.Fatalf("right after the resources left: %v, want both hosts", got)
	}
	ch, err := a.ScheduleWatch(ctx, "jobs")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(20 * time.Second)
	for {
		if got, _ := a.Schedule(ctx, "jobs"); len(got) == 1 && got[0] == "a" {
			break
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatal("the entry with a ttl never expired")
		}
	}
	wa := mk(a, &ScheduleRes{Withdraw: true})
	checkApply(t, wa, false, false)
	checkApply(t, wa, true, false)
	checkApply(t, wa, true, true)
	if got, _ := a.Schedule(ctx, "jobs"); len(got) != 0 {
		t.Fatalf("after the withdrawal: %v", got)
	}
	for _, bad := range []*ScheduleRes{{Withdraw: true, Max: 2}, {Persist: true, TTL: &ttl}, {TTL: new(int)}} {
		bad.SetName("x")
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
