package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// These tests drive the scheduler alone, message by message, with effects
// that only record what the scheduler asked for: no goroutine, no clock.

type smRes struct {
	baseRes
	Want string `lang:"want"`
}

// baseRes is a minimal resource base for the internal tests (traits would
// import this package).
type baseRes struct {
	kind, name string
	meta       *MetaParams
}

func (b *baseRes) Kind() string                    { return b.kind }
func (b *baseRes) Name() string                    { return b.name }
func (b *baseRes) SetKind(k string)                { b.kind = k }
func (b *baseRes) SetName(n string)                { b.name = n }
func (b *baseRes) MetaParams() *MetaParams         { return b.meta }
func (b *baseRes) SetMetaParams(m *MetaParams)     { b.meta = m }
func (b *baseRes) String() string                  { return b.kind + "[" + b.name + "]" }
func (b *baseRes) Validate() error                 { return nil }
func (b *baseRes) Init(*Init) error                { return nil }
func (b *baseRes) Cleanup() error                  { return nil }
func (b *baseRes) Watch(ctx context.Context) error { <-ctx.Done(); return nil }
func (b *baseRes) CheckApply(context.Context, bool) (bool, error) {
	return true, nil
}

func (r *smRes) Default() Res { return &smRes{} }
func (r *smRes) Cmp(o Res) error {
	if x, ok := o.(*smRes); !ok || x.Want != r.Want {
		return errors.New("differs")
	}
	return nil
}

var smOnce sync.Once

// recorder is the effects of a scheduler under test.
type recorder struct{ log []string }

func (r *recorder) checkApply(vs *vstate, apply bool, recvErr error) {
	r.log = append(r.log, "check "+vs.v.name())
}
func (r *recorder) watch(vs *vstate) { r.log = append(r.log, "watch "+vs.v.name()) }
func (r *recorder) finalize(vs *vstate, realize, apply bool) {
	r.log = append(r.log, fmt.Sprintf("finalize %s realize=%v", vs.v.name(), realize))
}
func (r *recorder) after(d time.Duration, m msg) {
	r.log = append(r.log, fmt.Sprintf("after %s %s", d, m.vs.v.name()))
}

type machine struct {
	t   *testing.T
	s   *sched
	rec *recorder
}

func newMachine(t *testing.T, cfg Config) *machine {
	smOnce.Do(func() { RegisterResource("sm", func() Res { return &smRes{} }) })
	cfg.ConvergedTimeout = -1
	rec := &recorder{}
	return &machine{t: t, s: newSched(New(cfg), rec), rec: rec}
}

// smGraph builds a graph from "name key=value" specs and "a -> b" edges
// ("~>" notifies).
func smGraph(seq int64, specs []string, edges ...string) *Graph {
	d := &graph.Document{Mgmt: graph.Version, Graph: "sm", Seq: seq}
	for _, sp := range specs {
		f := strings.Fields(sp)
		r := &graph.Resource{Kind: "sm", Name: f[0], Params: map[string]any{}, Meta: &graph.Meta{}}
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "retry":
				var n int16
				fmt.Sscan(v, &n)
				r.Meta.Retry = n
			case "delay":
				fmt.Sscan(v, &r.Meta.Delay)
			case "sema":
				r.Meta.Sema = []string{v}
			case "realize":
				r.Meta.Realize = true
			case "reset":
				r.Meta.Reset = true
			default:
				r.Params[k] = v
			}
		}
		d.Resources = append(d.Resources, r)
	}
	for _, e := range edges {
		notify := strings.Contains(e, "~>")
		a, b, _ := strings.Cut(strings.ReplaceAll(e, "~>", "->"), "->")
		d.Edges = append(d.Edges, &graph.Edge{From: graph.Ref{Kind: "sm", Name: strings.TrimSpace(a)},
			To: graph.Ref{Kind: "sm", Name: strings.TrimSpace(b)}, Notify: notify})
	}
	g, err := Build(d, BuildOptions{})
	if err != nil {
		panic(err)
	}
	return g
}

func (m *machine) vs(name string) *vstate {
	if vs := m.s.find("sm[" + name + "]"); vs != nil {
		return vs
	}
	return m.s.stopping["sm["+name+"]"]
}

// step delivers messages, runs the scheduler and checks what it asked for.
func (m *machine) step(want []string, msgs ...msg) {
	m.t.Helper()
	m.rec.log = nil
	for _, x := range msgs {
		m.s.handle(x)
	}
	m.s.schedule()
	if !reflect.DeepEqual(m.rec.log, want) && !(len(want) == 0 && len(m.rec.log) == 0) {
		m.t.Fatalf("got effects %q, want %q", m.rec.log, want)
	}
}

func (m *machine) running(names ...string) []msg {
	var out []msg
	for _, n := range names {
		out = append(out, msg{kind: msgRunning, vs: m.vs(n)})
	}
	return out
}

func (m *machine) done(name string, ok bool, err error) msg {
	return msg{kind: msgDone, vs: m.vs(name), ok: ok, err: err}
}

func (m *machine) converged() bool {
	st := m.s.snapshot()
	return !st.Since.IsZero()
}

func TestSchedChain(t *testing.T) {
	m := newMachine(t, Config{})
	m.step([]string{"watch a", "watch b", "watch c"}, msg{kind: msgGraph, g: smGraph(1, []string{"a", "b", "c"}, "a -> b", "a ~> c")})
	m.step([]string{"check a"}, m.running("a", "b", "c")...) // b and c wait for a
	m.step([]string{"check b", "check c"}, m.done("a", false, nil))
	if !m.vs("c").refreshNow || m.vs("b").refreshNow {
		t.Fatal("only the notify edge delivers a refresh")
	}
	m.step(nil, m.done("b", true, nil))
	if m.converged() {
		t.Fatal("converged while c runs")
	}
	m.step(nil, m.done("c", true, nil))
	if !m.converged() {
		t.Fatal("not converged")
	}
	// An event on a that finds it right does not poke its successors.
	m.step([]string{"check a"}, msg{kind: msgEvent, vs: m.vs("a")})
	m.step(nil, m.done("a", true, nil))
	// An event during a CheckApply runs it again afterwards.
	m.step([]string{"check b"}, msg{kind: msgEvent, vs: m.vs("b")})
	m.step(nil, msg{kind: msgEvent, vs: m.vs("b")})
	m.step([]string{"check b"}, m.done("b", false, nil))
	m.step(nil, m.done("b", true, nil))
	if !m.converged() {
		t.Fatal("not converged")
	}
}

func TestSchedRetryAndFailure(t *testing.T) {
	m := newMachine(t, Config{})
	m.step([]string{"watch a", "watch b", "watch c"}, msg{kind: msgGraph, g: smGraph(1, []string{"a retry=1 delay=5", "b", "c"}, "a -> b")})
	m.step([]string{"check a", "check c"}, m.running("a", "b", "c")...)
	m.step([]string{"after 5ms a"}, m.done("a", false, errors.New("boom")))
	m.step([]string{"check a"}, msg{kind: msgRetry, vs: m.vs("a")})
	m.step([]string{"after 1s a"}, m.done("a", false, errors.New("boom again"))) // failed for good: the pause
	m.step(nil, m.done("c", true, nil))
	st := m.s.snapshot()
	if st.Failed != 1 || !m.vs("b").blocked || !m.converged() {
		t.Fatalf("failed %d, b blocked %v, converged %v", st.Failed, m.vs("b").blocked, m.converged())
	}
	// A new graph that changes a replaces it (once the old one stopped)
	// and unblocks b, which then waits for the new a.
	old := m.vs("a")
	m.step([]string{"finalize a realize=false"}, msg{kind: msgGraph, g: smGraph(2, []string{"a want=x", "b", "c"}, "a -> b")})
	if m.vs("b").blocked || m.s.snapshot().Failed != 0 {
		t.Fatal("b still blocked")
	}
	m.step([]string{"watch a"}, msg{kind: msgStopped, vs: old})
	m.step([]string{"check a"}, m.running("a")...)
	m.step([]string{"check b"}, m.done("a", false, nil))
}

// TestSchedRecovery: a resource failed for good gets another try when a
// dependency changes something (at once) or its own Watch fires (after
// the pause), and its success unblocks its descendants.
func TestSchedRecovery(t *testing.T) {
	m := newMachine(t, Config{})
	m.step([]string{"watch a", "watch b", "watch c"}, msg{kind: msgGraph, g: smGraph(1, []string{"a", "b", "c"}, "a -> b", "b -> c")})
	m.step([]string{"check a"}, m.running("a", "b", "c")...)
	m.step([]string{"check b"}, m.done("a", true, nil))
	m.step([]string{"after 1s b"}, m.done("b", false, errors.New("no directory")))
	if st := m.s.snapshot(); st.Failed != 1 || !m.vs("c").blocked || !m.converged() {
		t.Fatalf("failed %d, c blocked %v, converged %v", st.Failed, m.vs("c").blocked, m.converged())
	}
	// Its own events wait for the pause; the pause then lets one try run.
	m.step(nil, msg{kind: msgEvent, vs: m.vs("b")})
	m.step([]string{"check b"}, msg{kind: msgRecover, vs: m.vs("b")})
	m.step([]string{"after 1s b"}, m.done("b", false, errors.New("no directory")))
	// A change made by its dependency tries again at once.
	m.step([]string{"check a"}, msg{kind: msgEvent, vs: m.vs("a")})
	m.step([]string{"check b"}, m.done("a", false, nil))
	if m.s.snapshot().Failed != 0 || m.vs("c").blocked {
		t.Fatal("not recovered")
	}
	m.step([]string{"check c"}, m.done("b", false, nil))
	m.step(nil, m.done("c", true, nil))
	// A pause that ends without an event changes nothing.
	m.step(nil, msg{kind: msgRecover, vs: m.vs("b")})
	if !m.converged() {
		t.Fatal("not converged")
	}
	// A change by a dependency while b runs, then b fails: b tries again
	// at once, since what it failed on may be gone.
	m.step([]string{"check b"}, msg{kind: msgEvent, vs: m.vs("b")})
	m.step([]string{"check a"}, msg{kind: msgEvent, vs: m.vs("a")})
	m.step(nil, m.done("a", false, nil))
	m.step([]string{"after 1s b", "check b"}, m.done("b", false, errors.New("raced")))
	m.step([]string{"check c"}, m.done("b", false, nil))
	if m.s.snapshot().Failed != 0 {
		t.Fatal("still failed")
	}
}

func TestSchedSwapWaitsForRunningCheckApply(t *testing.T) {
	m := newMachine(t, Config{})
	m.step([]string{"watch a"}, msg{kind: msgGraph, g: smGraph(1, []string{"a want=1"})})
	m.step([]string{"check a"}, m.running("a")...)
	old := m.vs("a")
	m.step(nil, msg{kind: msgGraph, g: smGraph(2, []string{"a want=2"})}) // a still runs
	m.step([]string{"finalize a realize=false"}, msg{kind: msgDone, vs: old, ok: false})
	m.step([]string{"watch a"}, msg{kind: msgStopped, vs: old}) // only now the new a starts
	if m.vs("a") == old {
		t.Fatal("the changed vertex was kept")
	}
	m.step([]string{"check a"}, m.running("a")...)
}

func TestSchedSemaphore(t *testing.T) {
	m := newMachine(t, Config{})
	m.step([]string{"watch a", "watch b", "watch c"}, msg{kind: msgGraph, g: smGraph(1, []string{"a sema=s:2", "b sema=s:2", "c sema=s:2"})})
	m.step([]string{"check a", "check b"}, m.running("a", "b", "c")...)
	m.step([]string{"check c"}, m.done("a", true, nil))
	m.step(nil, m.done("b", true, nil), m.done("c", true, nil))
	if !m.converged() {
		t.Fatal("not converged")
	}
}

func TestSchedParallelCap(t *testing.T) {
	m := newMachine(t, Config{Parallel: 1})
	m.step([]string{"watch a", "watch b"}, msg{kind: msgGraph, g: smGraph(1, []string{"a", "b"})})
	m.step([]string{"check a"}, m.running("a", "b")...)
	m.step([]string{"check b"}, m.done("a", true, nil))
}

func TestSchedRealize(t *testing.T) {
	m := newMachine(t, Config{})
	m.step([]string{"watch a", "watch b"}, msg{kind: msgGraph, g: smGraph(1, []string{"a", "b realize"}, "a -> b")})
	m.step([]string{"check a"}, m.running("a", "b")...)
	m.step([]string{"finalize b realize=true"}, msg{kind: msgGraph, g: smGraph(2, []string{"a"})})
}

func TestSchedResetRetries(t *testing.T) {
	for _, reset := range []string{"", " reset"} {
		m := newMachine(t, Config{})
		m.step([]string{"watch a"}, msg{kind: msgGraph, g: smGraph(1, []string{"a retry=1 delay=5" + reset})})
		m.step([]string{"check a"}, m.running("a")...)
		m.step([]string{"after 5ms a"}, m.done("a", false, errors.New("boom"))) // one retry used
		old := m.vs("a")
		m.step([]string{"finalize a realize=false"}, msg{kind: msgGraph, g: smGraph(2, []string{"a want=x retry=1 delay=5" + reset})})
		m.step([]string{"watch a"}, msg{kind: msgStopped, vs: old})
		m.step([]string{"check a"}, m.running("a")...)
		if reset == "" {
			// the changed resource kept its used-up retry count
			m.step([]string{"after 1s a"}, m.done("a", false, errors.New("boom")))
			if m.s.snapshot().Failed != 1 {
				t.Fatal("not failed without retries left")
			}
		} else {
			m.step([]string{"after 5ms a"}, m.done("a", false, errors.New("boom")))
		}
	}
}

// TestSchedReasons checks the reasons a CheckApply runs for, with the
// dependencies behind them: the first of each reason is named, one
// dependency or two.
func TestSchedReasons(t *testing.T) {
	m := newMachine(t, Config{})
	m.step([]string{"watch a", "watch b", "watch c"}, msg{kind: msgGraph, g: smGraph(1, []string{"a", "b", "c"}, "a ~> c", "b -> c")})
	m.step([]string{"check a", "check b"}, m.running("a", "b", "c")...)
	m.step(nil, m.done("a", false, nil))
	m.step([]string{"check c"}, m.done("b", false, nil))
	reason := func(want string) {
		t.Helper()
		if got := m.vs("c").run.reason; got != want {
			t.Fatalf("c runs for %q, want %q", got, want)
		}
	}
	reason("start, refresh from sm[a], dependency sm[b] changed")
	m.step(nil, m.done("c", true, nil))
	// b alone, twice while a runs: named once.
	m.step([]string{"check b"}, msg{kind: msgEvent, vs: m.vs("b")})
	m.step([]string{"check a"}, msg{kind: msgEvent, vs: m.vs("a")})
	m.step(nil, m.done("b", false, nil))
	m.step([]string{"check b"}, msg{kind: msgEvent, vs: m.vs("b")})
	m.step(nil, m.done("b", false, nil))
	m.step([]string{"check c"}, m.done("a", true, nil))
	reason("dependency sm[b] changed")
	m.step(nil, m.done("c", true, nil))
	// b, then a: the reasons' order is that of their kinds.
	m.step([]string{"check a", "check b"}, msg{kind: msgEvent, vs: m.vs("a")}, msg{kind: msgEvent, vs: m.vs("b")})
	m.step(nil, m.done("b", false, nil))
	m.step([]string{"check c"}, m.done("a", false, nil))
	reason("refresh from sm[a], dependency sm[b] changed")
	m.step(nil, m.done("c", true, nil))
	// Nothing is left of them for the next run.
	m.step([]string{"check c"}, msg{kind: msgEvent, vs: m.vs("c")})
	reason("event")
}

// TestSchedRetireEdges checks that the retirement of a vertex takes its
// edges out of those of its neighbours, whose other edges stay in their
// order, the edges from their dependencies first.
func TestSchedRetireEdges(t *testing.T) {
	m := newMachine(t, Config{})
	m.step([]string{"watch a", "watch b", "watch c", "watch d", "watch e", "watch f"}, msg{kind: msgGraph,
		g: smGraph(1, []string{"a", "b", "c", "d", "e", "f"}, "a -> c", "b -> c", "d -> c", "c -> e", "b -> e", "c ~> f")})
	names := func(es []*redge, end func(*redge) *vstate) string {
		var out []string
		for _, e := range es {
			out = append(out, end(e).v.name())
		}
		return strings.Join(out, " ")
	}
	from := func(e *redge) *vstate { return e.from }
	to := func(e *redge) *vstate { return e.to }
	check := func(name, ins, outs string) {
		t.Helper()
		vs := m.vs(name)
		if got := names(vs.ins(), from); got != ins {
			t.Errorf("%s: ins %q, want %q", name, got, ins)
		}
		if got := names(vs.outs(), to); got != outs {
			t.Errorf("%s: outs %q, want %q", name, got, outs)
		}
	}
	check("c", "a b d", "e f")
	check("b", "", "c e")
	m.s.retire(m.vs("b"))
	check("c", "a d", "e f")
	check("e", "c", "")
	m.s.retire(m.vs("d"))
	check("c", "a", "e f")
	check("a", "", "c")
	if !m.vs("c").outs()[1].notify() || m.vs("c").outs()[0].notify() {
		t.Error("c ~> f lost its notify")
	}
}
