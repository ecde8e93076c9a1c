package engine_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

func jsonNumber(s string) json.Number { return json.Number(s) }

func TestChainOrder(t *testing.T) {
	h := start(t, engine.Config{})
	h.load(doc(1, []string{"a want=1", "b want=2", "c want=3", "z want=9"}, "a -> b", "b -> c"))
	st := h.converge(1)
	if st.Total != 4 || st.Failed != 0 {
		t.Fatalf("status %+v", st)
	}
	got := changed()
	idx := map[string]int{}
	for i, n := range got {
		idx[n] = i
	}
	if len(got) != 4 || idx["a"] > idx["b"] || idx["b"] > idx["c"] {
		t.Fatalf("apply order %v, want a before b before c", got)
	}
	for _, n := range []string{"a", "b", "c", "z"} {
		if c := sys.count(n); c != 1 {
			t.Errorf("%s: %d CheckApply calls, want 1", n, c)
		}
	}
}

func TestDriftPokesSuccessors(t *testing.T) {
	h := start(t, engine.Config{})
	h.load(doc(1, []string{"a want=1", "b want=2", "c want=3"}, "a -> b"))
	h.converge(1)
	sys.set("a", "drifted")
	sys.poke("a")
	h.waitFor(func(engine.Status) bool { return sys.count("b") == 2 }, "b re-checked")
	h.converge(1)
	if sys.get("a") != "1" || sys.count("a") != 2 || sys.count("c") != 1 {
		t.Fatalf("a=%q calls a=%d c=%d", sys.get("a"), sys.count("a"), sys.count("c"))
	}
}

func TestFailureBlocksOnlyDescendants(t *testing.T) {
	h := start(t, engine.Config{})
	h.load(doc(1, []string{"a want=1 fail=#100", "b want=2", "c want=3", "d want=4"}, "a -> b", "b -> c"))
	st := h.converge(1)
	if st.Failed != 1 || st.Failing != 1 || st.Blocked != 2 {
		t.Fatalf("failed %d, failing %d, blocked %d; want 1, 1 and 2", st.Failed, st.Failing, st.Blocked)
	}
	if sys.count("b") != 0 || sys.count("c") != 0 || sys.get("d") != "4" {
		t.Fatalf("b=%d c=%d d=%q", sys.count("b"), sys.count("c"), sys.get("d"))
	}
	if !strings.Contains(h.logs.String(), "t.mcl:1:1: tval[a]: error: failing on purpose") {
		t.Fatalf("error log lacks the position:\n%s", h.logs)
	}
	// Without a, nothing blocks b and c: they run, and none is counted.
	h.load(doc(2, []string{"b want=2", "c want=3", "d want=4"}, "b -> c"))
	st = h.converge(2)
	if st.Failed != 0 || st.Failing != 0 || st.Blocked != 0 || sys.get("c") != "3" {
		t.Fatalf("graph 2: failed %d, failing %d, blocked %d, c=%q", st.Failed, st.Failing, st.Blocked, sys.get("c"))
	}
}

func TestRetryAndDelay(t *testing.T) {
	h := start(t, engine.Config{})
	t0 := time.Now()
	h.load(doc(1, []string{"a want=1 fail=#2 meta.retry=3 meta.delay=20", "b want=2"}, "a -> b"))
	st := h.converge(1)
	if st.Failed != 0 || sys.count("a") != 3 || sys.get("b") != "2" {
		t.Fatalf("status %+v, a calls %d, b=%q\n%s", st, sys.count("a"), sys.get("b"), h.logs)
	}
	if d := time.Since(t0); d < 40*time.Millisecond {
		t.Fatalf("two retries with delay 20ms took %s", d)
	}
}

func TestRetryForever(t *testing.T) {
	h := start(t, engine.Config{})
	h.load(doc(1, []string{"a want=1 fail=#5 meta.retry=-1"}))
	h.converge(1)
	if sys.count("a") != 6 {
		t.Fatalf("a calls %d, want 6", sys.count("a"))
	}
}

func TestNotifyRefresh(t *testing.T) {
	h := start(t, engine.Config{})
	h.load(doc(1, []string{"a want=1", "b want=2", "c want=3"}, "a ~> b", "a -> c"))
	h.converge(1)
	sys.mu.Lock()
	rb, rc := sys.refresh["b"], sys.refresh["c"]
	sys.mu.Unlock()
	if rb != 1 || rc != 0 {
		t.Fatalf("refreshes b=%d c=%d, want 1 and 0", rb, rc)
	}
}

func TestSendRecv(t *testing.T) {
	h := start(t, engine.Config{})
	h.load(doc(1, []string{"a want=hello", "b want=x"}, "a.out -> b.in"))
	h.converge(1)
	if got := sys.get("b"); got != "hello" {
		t.Fatalf("b = %q, want the received hello\n%s", got, h.logs)
	}
}

func TestSendRecvTypeMismatch(t *testing.T) {
	register()
	_, err := engine.Build(doc(1, []string{"a", "b"}, "a.out -> b.fail"), engine.BuildOptions{})
	if err == nil || !strings.Contains(err.Error(), `edge tval[a] -> tval[b] (out -> fail): sends str, but tval[b] parameter "fail" is int`) {
		t.Fatalf("got %v", err)
	}
	_, err = engine.Build(doc(1, []string{"a", "b"}, "a.nope -> b.in"), engine.BuildOptions{})
	if err == nil || !strings.Contains(err.Error(), `sends no key "nope"`) {
		t.Fatalf("got %v", err)
	}
}

func TestSwapKeepsUnchanged(t *testing.T) {
	h := start(t, engine.Config{})
	h.load(doc(1, []string{"a want=1", "b want=2", "gone want=3"}, "a -> b"))
	h.converge(1)
	h.load(doc(2, []string{"a want=1", "b want=22", "new want=4"}, "a -> b"))
	h.converge(2)
	if sys.count("a") != 1 {
		t.Errorf("unchanged a ran %d times, want 1", sys.count("a"))
	}
	if sys.get("b") != "22" || sys.get("new") != "4" {
		t.Errorf("b=%q new=%q", sys.get("b"), sys.get("new"))
	}
	h.waitFor(func(engine.Status) bool {
		sys.mu.Lock()
		defer sys.mu.Unlock()
		return sys.cleanups["gone"] == 1 && sys.cleanups["b"] == 1
	}, "cleanup of the removed and changed vertices")
	if !strings.Contains(h.logs.String(), "1 added, 1 removed, 1 changed, 1 unchanged") {
		t.Errorf("swap log missing:\n%s", h.logs)
	}
}

func TestSwapWhileRunningNeverOverlaps(t *testing.T) {
	h := start(t, engine.Config{})
	h.load(doc(1, []string{"a want=1 sleep=#50"}))
	h.waitFor(func(st engine.Status) bool { return st.Running == 1 }, "a running")
	h.load(doc(2, []string{"a want=2 sleep=#50"}))
	h.converge(2)
	sys.mu.Lock()
	defer sys.mu.Unlock()
	if sys.maxRun != 1 || sys.state["a"] != "2" {
		t.Fatalf("max parallel CheckApply %d, a=%q", sys.maxRun, sys.state["a"])
	}
}

// TestSemaphore: resources sharing a semaphore of 2 run two at a time.
// Only the part after the last colon is the size, so "not:smart:2" is a
// semaphore of two too.
func TestSemaphore(t *testing.T) {
	for _, id := range []string{"s:2", "not:smart:2"} {
		t.Run(id, func(t *testing.T) {
			h := start(t, engine.Config{})
			var res []string
			for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
				res = append(res, n+" want=1 sleep=#20 meta.sema="+id)
			}
			h.load(doc(1, res))
			h.converge(1)
			sys.mu.Lock()
			defer sys.mu.Unlock()
			if sys.maxRun != 2 {
				t.Fatalf("max parallel CheckApply %d, want 2", sys.maxRun)
			}
		})
	}
}

func TestGlobalSema(t *testing.T) {
	h := start(t, engine.Config{Sema: 1})
	h.load(doc(1, []string{"a sleep=#10", "b sleep=#10", "c sleep=#10"}))
	h.converge(1)
	if sys.maxRun != 1 {
		t.Fatalf("max parallel %d, want 1", sys.maxRun)
	}
}

func TestParallelIndependent(t *testing.T) {
	h := start(t, engine.Config{})
	h.load(doc(1, []string{"a sleep=#30", "b sleep=#30", "c sleep=#30"}))
	h.converge(1)
	if sys.maxRun != 3 {
		t.Fatalf("max parallel %d, want 3", sys.maxRun)
	}
}

func TestNoop(t *testing.T) {
	h := start(t, engine.Config{Noop: true})
	h.load(doc(1, []string{"a want=1", "b want=2 meta.noop=true"}))
	h.converge(1)
	if sys.get("a") != "" || len(changed()) != 0 {
		t.Fatalf("noop changed the system: %v", changed())
	}
	if !strings.Contains(h.logs.String(), "tval[a]: would change (noop)") {
		t.Fatalf("log:\n%s", h.logs)
	}
}

// TestNoopUpstreamPending checks what a noop CheckApply learns of its
// dependencies: whether one of them, directly or through others in their
// state, found a change it did not make.
func TestNoopUpstreamPending(t *testing.T) {
	h := start(t, engine.Config{Noop: true})
	for _, n := range []string{"m", "z", "d", "e"} {
		sys.set(n, "v") // in their state
	}
	h.load(doc(1, []string{"a want=1", "b want=2", "m want=v", "z want=v", "d want=v", "e want=v"},
		"a -> b", "a -> m", "m -> z", "d -> e"))
	h.converge(1)
	sys.mu.Lock()
	got := map[string]bool{}
	for k, v := range sys.upstream {
		got[k] = v
	}
	sys.mu.Unlock()
	want := map[string]bool{"a": false, "b": true, "m": true, "z": true, "d": false, "e": false}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("upstream pending %v, want %v", got, want)
	}
	// applying: never pending
	h2 := start(t, engine.Config{})
	h2.load(doc(1, []string{"a want=1", "b want=2"}, "a -> b"))
	h2.converge(1)
	sys.mu.Lock()
	defer sys.mu.Unlock()
	if sys.upstream["b"] {
		t.Fatalf("a run that applies reports a pending dependency")
	}
}

// TestNoopUncheckedWhenUpstreamPending: in a noop run, a resource that
// fails its check while a dependency would change is reported as a change
// it could not check (not a failure); without a pending dependency the same
// error is a failure, and a run that applies fails as always.
func TestNoopUncheckedWhenUpstreamPending(t *testing.T) {
	h := start(t, engine.Config{Noop: true})
	sys.set("c", "v")
	h.load(doc(1, []string{"a want=1", "b want=2 fail=#99", "c want=v", "d want=4 fail=#99"}, "a -> b", "c -> d"))
	st := h.converge(1)
	logs := h.logs.String()
	if st.Failed != 1 || st.Pending != 2 {
		t.Fatalf("failed %d pending %d, want 1 and 2 (b unchecked, a pending; d failed)\n%s", st.Failed, st.Pending, logs)
	}
	if !strings.Contains(logs, "tval[b]: would change: not checked (a dependency has pending changes): failing on purpose") {
		t.Fatalf("no unchecked change for b:\n%s", logs)
	}
	if !strings.Contains(logs, "tval[d]: error: failing on purpose") {
		t.Fatalf("d, whose dependency is in its state, did not fail:\n%s", logs)
	}
}

func TestMetaNoopOnly(t *testing.T) {
	h := start(t, engine.Config{})
	h.load(doc(1, []string{"a want=1 meta.noop=true", "b want=2"}))
	h.converge(1)
	if sys.get("a") != "" || sys.get("b") != "2" {
		t.Fatalf("a=%q b=%q", sys.get("a"), sys.get("b"))
	}
}

func TestLimitBurst(t *testing.T) {
	h := start(t, engine.Config{})
	h.load(doc(1, []string{"a want=1 meta.limit=20 meta.burst=1"}))
	h.converge(1)
	t0 := time.Now()
	for i := 0; i < 3; i++ {
		n := sys.count("a")
		sys.poke("a")
		h.waitFor(func(engine.Status) bool { return sys.count("a") == n+1 }, "a re-checked")
	}
	if d := time.Since(t0); d < 100*time.Millisecond {
		t.Fatalf("3 CheckApply at 20/s took %s, want >= 100ms", d)
	}
}

func TestHidden(t *testing.T) {
	h := start(t, engine.Config{})
	h.load(doc(1, []string{"a want=invalid meta.hidden=true", "b want=2"}, "a -> b"))
	st := h.converge(1)
	if sys.count("a") != 0 || sys.get("b") != "2" || st.Total != 2 {
		t.Fatalf("a calls %d b=%q %+v", sys.count("a"), sys.get("b"), st)
	}
}

func TestPoll(t *testing.T) {
	h := start(t, engine.Config{})
	h.load(doc(1, []string{"a want=1 meta.poll=1"}))
	h.converge(1)
	sys.set("a", "drift")
	h.waitFor(func(engine.Status) bool { return sys.get("a") == "1" }, "poll repair")
}

func TestTimeout(t *testing.T) {
	h := start(t, engine.Config{})
	h.load(doc(1, []string{"a sleep=#5000 meta.timeout=20"}))
	st := h.converge(1)
	if st.Failed != 1 || !strings.Contains(h.logs.String(), "deadline exceeded") {
		t.Fatalf("%+v\n%s", st, h.logs)
	}
}

func TestRealize(t *testing.T) {
	h := start(t, engine.Config{})
	// b waits for a, which fails once and retries after a long delay, so
	// b has not run when the next graph removes it.
	h.load(doc(1, []string{"a fail=#1 meta.retry=1 meta.delay=10000", "b want=2 meta.realize=true"}, "a -> b"))
	h.waitFor(func(engine.Status) bool { return sys.count("a") == 1 }, "a ran")
	h.load(doc(2, []string{"c want=3"}))
	h.converge(2)
	h.waitFor(func(engine.Status) bool { return sys.get("b") == "2" }, "b realized before removal")
}

func TestConvergedTimeout(t *testing.T) {
	h := start(t, engine.Config{ConvergedTimeout: 50 * time.Millisecond})
	t0 := time.Now()
	h.load(doc(1, []string{"a want=1", "b want=2"}, "a -> b"))
	select {
	case <-h.e.Converged():
	case <-time.After(10 * time.Second):
		t.Fatal("never converged")
	}
	if d := time.Since(t0); d < 50*time.Millisecond {
		t.Fatalf("converged after %s, before the timeout", d)
	}
	t1 := time.Now()
	h.stop()
	if d := time.Since(t1); d > time.Second { // loose: BenchmarkEngine measures it
		t.Fatalf("shutdown took %s", d)
	}
}

// TestConvergedTimeoutCountsDirectEvents checks that an event on a
// converged graph, which starts its CheckApply without the Run goroutine,
// keeps the converged timeout from firing while that CheckApply runs, and
// that the timeout counts from the end of it.
func TestConvergedTimeoutCountsDirectEvents(t *testing.T) {
	const timeout, sleep = 400 * time.Millisecond, 1200 * time.Millisecond
	h := start(t, engine.Config{ConvergedTimeout: timeout})
	h.load(doc(1, []string{"a want=1 sleep=#1200"}))
	h.converge(1)
	t0 := time.Now()
	sys.poke("a")
	h.waitFor(func(st engine.Status) bool { return st.Since.IsZero() && st.Running == 1 }, "the event's CheckApply in the status")
	select {
	case <-h.e.Converged():
	case <-time.After(10 * time.Second):
		t.Fatal("never converged")
	}
	if n := sys.count("a"); n != 2 {
		t.Fatalf("converged with %d CheckApply calls, want 2", n)
	}
	if d := time.Since(t0); d < sleep+timeout {
		t.Fatalf("converged %s after the event, before its CheckApply (%s) and the timeout (%s)", d, sleep, timeout)
	}
}

func TestAutoEdgesAndGroups(t *testing.T) {
	register()
	g, err := engine.Build(doc(1, []string{
		"a want=1", "b want=1 after=[a]", "c after=[a,b] meta.autoedge=false",
		"g1 want=x group=true", "g2 want=x group=true", "g3 want=y group=true",
	}), engine.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := g.Document()
	var edges []string
	for _, e := range d.Edges {
		edges = append(edges, e.From.String()+"->"+e.To.String())
	}
	if want := []string{"tval[a]->tval[b]"}; !reflect.DeepEqual(edges, want) {
		t.Fatalf("edges %v, want %v", edges, want)
	}
	if len(d.Resources) != 6 || len(g.Vertices) != 5 {
		t.Fatalf("resources %d vertices %d", len(d.Resources), len(g.Vertices))
	}
	h := start(t, engine.Config{})
	h.load(doc(1, []string{"g1 want=x group=true", "g2 want=x group=true"}))
	h.converge(1)
	if got := changed(); !reflect.DeepEqual(got, []string{"g1+g2"}) {
		t.Fatalf("grouped apply %v", got)
	}
}

func TestAutoEdgeSkipsCycles(t *testing.T) {
	register()
	g, err := engine.Build(doc(1, []string{"a after=[b]", "b"}, "a -> b"), engine.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(g.Document().Edges); n != 1 {
		t.Fatalf("%d edges, want 1 (the autoedge would close a cycle)", n)
	}
}

// TestAutoEdgesBetweenBusyResources checks the automatic edges between
// resources with many edges each, whose existing edges Build looks up in
// a map rather than in their lists: an edge the document already has is
// not added again, a UID asked twice adds one edge, and an edge that would
// close a cycle is skipped.
func TestAutoEdgesBetweenBusyResources(t *testing.T) {
	register()
	const n = 40
	var res, edges, want []string
	for i := range n {
		a := fmt.Sprintf("a%02d", i)
		res = append(res, a+" after=[h]")
		edges = append(edges, a+" -> z", a+" -> y")
		want = append(want, "tval[h]->tval["+a+"]", "tval["+a+"]->tval[y]", "tval["+a+"]->tval[z]")
	}
	// h -> y is in the document; z, with 40 edges in, asks twice for h,
	// which has 41 edges out when z's turn comes
	res = append(res, "h", "y", "z after=[h,h]")
	edges = append(edges, "h -> y")
	want = append(want, "tval[h]->tval[y]", "tval[h]->tval[z]")
	g, err := engine.Build(doc(1, res, edges...), engine.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range g.Document().Edges {
		got = append(got, e.From.String()+"->"+e.To.String())
	}
	slices.Sort(got)
	slices.Sort(want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("edges\n%v\nwant\n%v", got, want)
	}
	// two resources that ask for each other
	res = append(res[:0], "h after=[a00]", "a00 after=[h]")
	g, err = engine.Build(doc(1, res), engine.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(g.Document().Edges); n != 1 {
		t.Fatalf("%d edges, want 1 (the second autoedge would close a cycle)", n)
	}
}

// TestGroupMergesParallelEdges checks that the edges grouping makes
// parallel become one, which notifies if any of them did, and that the
// other edges of the vertices stay, in their order.
func TestGroupMergesParallelEdges(t *testing.T) {
	register()
	g, err := engine.Build(doc(1, []string{"a", "b", "g1 want=x group=true", "g2 want=x group=true", "g3 want=x group=true"},
		"a -> g1", "a -> b", "a ~> g2", "a -> g3", "g2 -> b"), engine.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range g.Edges {
		got = append(got, fmt.Sprintf("%s->%s %v", e.From.Res.Name(), e.To.Res.Name(), e.Notify))
	}
	if want := []string{"a->g1 true", "a->b false", "g1->b false"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("edges %v, want %v", got, want)
	}
}

func TestBuildErrors(t *testing.T) {
	register()
	for _, tc := range []struct {
		res   []string
		edges []string
		want  string
	}{
		{[]string{"a want=#3"}, nil, `t.mcl:1:1: tval[a]: parameter "want": got int, want str`},
		{[]string{"a sleep=x"}, nil, `parameter "sleep": got str, want int`},
		{[]string{"a wnat=x"}, nil, `unknown parameter "wnat" (did you mean "want"?)`},
		{[]string{"nope:a"}, nil, `unknown resource kind "nope"`},
		{[]string{"tvla:a"}, nil, `t.mcl:1:1: tvla[a]: unknown resource kind "tvla" (did you mean "tval"?)`},
		{[]string{"a want=invalid"}, nil, `tval[a]: invalid: want is invalid`},
		{[]string{"$a"}, nil, `starts with a $`},
		{[]string{"a meta.limit=1"}, nil, `burst must be non-zero`},
		{[]string{"a meta.sema=42"}, nil, `bare integer`},
		{[]string{"a", "b"}, []string{"a -> b", "b -> a"}, `t.mcl:1:1: cycle: tval[a] -> tval[b] -> tval[a]`},
		{[]string{"a"}, []string{"a -> a"}, `cycle: tval[a] -> tval[a]`},
		{[]string{"a want=invalid", "b want=invalid"}, nil, "t.mcl:1:1: tval[a]: invalid: want is invalid\nt.mcl:1:2: tval[b]: invalid: want is invalid"},
		{[]string{"a"}, []string{"a -> x"}, `no resource tval[x]`},
		{[]string{"a tags=#1"}, nil, `got int, want map{str: int}`},
	} {
		_, err := engine.Build(doc(1, tc.res, tc.edges...), engine.BuildOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.res, err, tc.want)
		}
	}
	if _, err := engine.Build(doc(1, []string{"$a meta.dollar=true"}), engine.BuildOptions{}); err != nil {
		t.Errorf("dollar: %v", err)
	}
}

func TestDecodeCoercion(t *testing.T) {
	r := &tval{}
	err := engine.DecodeParams(r, map[string]any{
		"want": "x", "in": "y", "sleep": json.Number("3"), "rate": json.Number("2"),
		"after": []any{"p", "q"}, "tags": map[string]any{"k": json.Number("1")},
		"extra": map[any]any{"a": "b"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Want != "x" || *r.In != "y" || r.Sleep != 3 || r.Rate != 2 || len(r.After) != 2 || r.Tags["k"] != 1 || r.Extra["a"] != "b" {
		t.Fatalf("%+v", r)
	}
	p, err := engine.EncodeParams(r)
	if err != nil || p["want"] != "x" || p["sleep"] != 3 {
		t.Fatalf("encode %v %v", p, err)
	}
}

func TestReverse(t *testing.T) {
	prefix := t.TempDir()
	h := start(t, engine.Config{Prefix: prefix})
	h.load(doc(1, []string{"trev:r want=on meta.reverse=true"}))
	h.converge(1)
	if sys.get("rev:r") != "on" {
		t.Fatalf("not applied")
	}
	saved, _ := filepath.Glob(filepath.Join(prefix, "reverse", "*.json"))
	if len(saved) != 1 {
		t.Fatalf("saved reversals %v", saved)
	}
	h.load(doc(2, []string{"a want=1"}))
	h.converge(2)
	h.waitFor(func(engine.Status) bool { return sys.get("rev:r") == "" }, "reversal")
	h.waitFor(func(engine.Status) bool {
		_, err := os.Stat(saved[0])
		return os.IsNotExist(err)
	}, "saved reversal removed")
}

// TestReverseRemovedWhileRunning: a resource with Meta:reverse whose
// first CheckApply is still running when a graph without it arrives is
// reversed once that CheckApply has applied, as one removed between two
// runs is: the swap could not save its reversal.
func TestReverseRemovedWhileRunning(t *testing.T) {
	prefix := t.TempDir()
	h := start(t, engine.Config{Prefix: prefix})
	h.load(doc(1, []string{"trev:r want=on hold=true meta.reverse=true", "a want=1"}))
	h.waitFor(func(engine.Status) bool { return sys.get("held:r") == "yes" }, "r's CheckApply running")
	h.load(doc(2, []string{"a want=1"}))
	h.waitFor(func(st engine.Status) bool { return st.Seq == 2 }, "the graph without r swapped in")
	sys.trigger("hold:r") <- struct{}{}
	// Its CheckApply sets rev:r, and the reversal deletes it.
	h.waitFor(func(engine.Status) bool { return strings.Contains(h.logs.String(), "trev[r]: reversal done") }, "r reversed")
	if got := sys.get("rev:r"); got != "" {
		t.Fatalf("rev:r is %q after the reversal", got)
	}
	h.waitFor(func(engine.Status) bool {
		saved, _ := filepath.Glob(filepath.Join(prefix, "reverse", "*.json"))
		return len(saved) == 0
	}, "saved reversal removed once done")
	h.converge(2)
	if !strings.Contains(h.logs.String(), "trev[r]: reversing (the resource left the graph)") {
		t.Errorf("no reversal logged:\n%s", h.logs)
	}
}

func TestReverseAfterRestart(t *testing.T) {
	prefix := t.TempDir()
	h := start(t, engine.Config{Prefix: prefix})
	h.load(doc(1, []string{"trev:r want=on meta.reverse=true"}))
	h.converge(1)
	h.stop()
	h2 := start(t, engine.Config{Prefix: prefix})
	sys.set("rev:r", "on")
	h2.load(doc(1, []string{"a want=1"}))
	h2.converge(1)
	if sys.get("rev:r") != "" {
		t.Fatalf("not reversed after restart\n%s", h2.logs)
	}
}

func TestPanicInCheckApplyFailsTheResource(t *testing.T) {
	h := start(t, engine.Config{})
	h.load(doc(1, []string{"a want=panic", "b want=2"}))
	st := h.converge(1)
	if st.Failed != 1 || sys.get("b") != "2" || !strings.Contains(h.logs.String(), "tval[a]: error: panic: resource bug") {
		t.Fatalf("%+v\n%s", st, h.logs)
	}
}

func TestWatchRetryAndRewatch(t *testing.T) {
	h := start(t, engine.Config{})
	// a's Watch fails twice and two retries get it running; b and c fail
	// for good.
	g := []string{"a want=1 watchfail=#2 meta.retry=2", "b want=2 watchfail=#1 meta.rewatch=true", "c want=3 watchfail=#1"}
	h.load(doc(1, g))
	st := h.converge(1)
	if sys.get("a") != "1" || st.Failed != 2 || !strings.Contains(h.logs.String(), "tval[b]: error: watch: watch failing on purpose") {
		t.Fatalf("%+v a=%q\n%s", st, sys.get("a"), h.logs)
	}
	// The same graph again: b, with rewatch, gets a new Watch (which now
	// works); c stays failed.
	h.load(doc(2, g))
	st = h.converge(2)
	if st.Failed != 1 || sys.get("b") != "2" || sys.get("c") != "" {
		t.Fatalf("%+v b=%q c=%q\n%s", st, sys.get("b"), sys.get("c"), h.logs)
	}
}

func TestLogEscapesControlCharacters(t *testing.T) {
	h := start(t, engine.Config{})
	d := doc(1, []string{"a want=1 fail=#100"})
	d.Resources[0].Name = "a\x00b\nforged line"
	h.load(d)
	h.converge(1)
	logs := h.logs.String()
	if strings.ContainsAny(logs, "\x00\x1b") || strings.Contains(logs, "\nforged line") {
		t.Fatalf("a raw control character reached the log:\n%q", logs)
	}
	if !strings.Contains(logs, `tval[a\x00b\nforged line]: error: failing on purpose`) {
		t.Fatalf("the escaped name is missing from the log:\n%s", logs)
	}
}

// TestChangedCountsEachResourceOnce: Status.Changed counts the resources
// changed since the start, each once, whether it changed again in a
// vertex that replaced its first one, was removed and came back, or is a
// member of a group.
func TestChangedCountsEachResourceOnce(t *testing.T) {
	h := start(t, engine.Config{})
	steps := []struct {
		res  []string
		want int
	}{
		{[]string{"a want=1", "b want=2"}, 2},
		{[]string{"a want=11", "c want=3"}, 3},  // a changes again, b goes
		{[]string{"a want=11", "b want=22"}, 3}, // b comes back and changes again, c goes
		{[]string{"g1 want=x group=true", "g2 want=x group=true", "a want=1"}, 5},
		{[]string{"g1 want=y group=true", "g2 want=y group=true"}, 5},
		{[]string{"g1 want=z", "g2 want=z"}, 5}, // no longer grouped
	}
	for i, s := range steps {
		seq := int64(i + 1)
		h.load(doc(seq, s.res))
		if st := h.converge(seq); st.Changed != s.want {
			t.Fatalf("graph %d: %d changed, want %d (log %v)", seq, st.Changed, s.want, changed())
		}
	}
	if got := len(changed()); got != 10 {
		t.Errorf("%d changes made, want 10: %v", got, changed())
	}
}

// TestAutoEdgesInParts: a graph large enough for its resources to be asked
// for their automatic edges on every processor gets the edges one loop
// would add, in the same order: a chain of 1,000 resources, each after the
// one before, and the first after the last, loses only the edge of the
// vertex placed last (r999, by name), which would close the cycle. Of two
// resources whose AutoEdges fail, the first in the graph's order is
// reported; a panic in one is an error of Build.
func TestAutoEdgesInParts(t *testing.T) {
	register()
	const n = 1000
	res := make([]string, n)
	for i := range n {
		res[i] = fmt.Sprintf("r%d after=[r%d]", i, (i+n-1)%n)
	}
	g, err := engine.Build(doc(1, res), engine.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, e := range g.Document().Edges {
		got[e.From.Name+"->"+e.To.Name] = true
	}
	if len(got) != n-1 || got["r998->r999"] || !got["r999->r0"] || !got["r997->r998"] {
		t.Fatalf("%d edges (r998->r999 %v, r999->r0 %v), want %d without r998->r999", len(got), got["r998->r999"], got["r999->r0"], n-1)
	}
	res[900], res[100] = "r900 after=[!error]", "r100 after=[!error]"
	if _, err := engine.Build(doc(1, res), engine.BuildOptions{}); err == nil || !strings.Contains(err.Error(), "tval[r100]: autoedges: r100 cannot say") {
		t.Fatalf("error %v, want r100's", err)
	}
	res[100] = "r100 after=[!panic]"
	if _, err := engine.Build(doc(1, res), engine.BuildOptions{}); err == nil || !strings.Contains(err.Error(), "panic: autoedge bug") {
		t.Fatalf("error %v, want the panic's", err)
	}
}
