package engine_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// world is the "system" the test kinds manage: a map of values, a log of
// CheckApply calls and per-resource triggers for their Watch.
type world struct {
	mu       sync.Mutex
	state    map[string]string
	log      []string // "name" per CheckApply that changed something
	calls    map[string]int
	refresh  map[string]int
	upstream map[string]bool // engine.Pending at the last CheckApply
	cleanups map[string]int
	running  int
	maxRun   int
	trig     map[string]chan struct{}
}

var sys = newWorld()

func newWorld() *world {
	return &world{state: map[string]string{}, calls: map[string]int{}, refresh: map[string]int{},
		upstream: map[string]bool{}, cleanups: map[string]int{}, trig: map[string]chan struct{}{}}
}

func (w *world) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.state, w.log, w.calls, w.refresh = map[string]string{}, nil, map[string]int{}, map[string]int{}
	w.upstream = map[string]bool{}
	w.cleanups, w.running, w.maxRun, w.trig = map[string]int{}, 0, 0, map[string]chan struct{}{}
}

func (w *world) trigger(name string) chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	c, ok := w.trig[name]
	if !ok {
		c = make(chan struct{}, 1)
		w.trig[name] = c
	}
	return c
}

// poke makes the Watch of name report an event.
func (w *world) poke(name string) {
	select {
	case w.trigger(name) <- struct{}{}:
	default:
	}
}

func (w *world) set(name, v string) {
	w.mu.Lock()
	w.state[name] = v
	w.mu.Unlock()
}

func (w *world) get(name string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.state[name]
}

func (w *world) count(name string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls[name]
}

// tval is the main test kind: it makes state[name] equal to Want (or to the
// received In), can fail its first Fail calls, sleeps Sleep ms per call and
// sends Want as "out".
type tval struct {
	traits.Base
	traits.Refreshable
	traits.Sendable
	traits.Recvable
	traits.Groupable
	traits.Edgeable

	init *engine.Init

	Want  string            `lang:"want" yaml:"want"`
	In    *string           `lang:"in" yaml:"in"`
	Fail  int               `lang:"fail" yaml:"fail"`
	Sleep int               `lang:"sleep" yaml:"sleep"`
	Group bool              `lang:"group" yaml:"group"`
	After []string          `lang:"after" yaml:"after"` // names to autoedge from
	Tags  map[string]int    `lang:"tags" yaml:"tags"`
	Opt   *struct{ A int }  `lang:"-"`
	Rate  float64           `lang:"rate" yaml:"rate"`
	Extra map[string]string `lang:"extra" yaml:"extra"`
	// WatchFail makes Watch fail this many times before it works.
	WatchFail int `lang:"watchfail" yaml:"watchfail"`
}

type tvalSends struct {
	Out string `lang:"out"`
}

func (r *tval) Default() engine.Res { return &tval{Want: "default"} }
func (r *tval) Validate() error {
	if r.Want == "invalid" {
		return fmt.Errorf("want is invalid")
	}
	return nil
}
func (r *tval) Init(init *engine.Init) error { r.init = init; return nil }
func (r *tval) Cleanup() error {
	sys.mu.Lock()
	sys.cleanups[r.Name()]++
	sys.mu.Unlock()
	return nil
}

func (r *tval) Watch(ctx context.Context) error {
	sys.mu.Lock()
	sys.calls["watch:"+r.Name()]++
	n := sys.calls["watch:"+r.Name()]
	sys.mu.Unlock()
	if n <= r.WatchFail {
		return fmt.Errorf("watch failing on purpose (%d/%d)", n, r.WatchFail)
	}
	c := sys.trigger(r.Name())
	r.init.Running()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-c:
			r.init.Event()
		}
	}
}

func (r *tval) CheckApply(ctx context.Context, apply bool) (bool, error) {
	sys.mu.Lock()
	sys.calls[r.Name()]++
	n := sys.calls[r.Name()]
	if r.init.Refresh() {
		sys.refresh[r.Name()]++
	}
	sys.upstream[r.Name()] = engine.Pending(r.init)
	sys.running++
	sys.maxRun = max(sys.maxRun, sys.running)
	sys.mu.Unlock()
	defer func() {
		sys.mu.Lock()
		sys.running--
		sys.mu.Unlock()
	}()
	if r.Sleep > 0 {
		select {
		case <-time.After(time.Duration(r.Sleep) * time.Millisecond):
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	if r.Want == "panic" {
		panic("resource bug")
	}
	if n <= r.Fail {
		return false, fmt.Errorf("failing on purpose (%d/%d)", n, r.Fail)
	}
	want := r.Want
	if r.In != nil {
		want = *r.In
	}
	if err := r.init.Send(&tvalSends{Out: want}); err != nil {
		return false, err
	}
	names := []string{r.Name()}
	for _, m := range r.GetGroup() {
		names = append(names, m.Name())
	}
	ok := true
	for _, name := range names {
		if sys.get(name) != want {
			ok = false
		}
	}
	if ok && !r.init.Refresh() {
		return true, nil
	}
	if !apply {
		return false, nil
	}
	for _, name := range names {
		sys.set(name, want)
	}
	sys.mu.Lock()
	sys.log = append(sys.log, strings.Join(names, "+"))
	sys.mu.Unlock()
	return false, nil
}

func (r *tval) Cmp(o engine.Res) error {
	x, ok := o.(*tval)
	if !ok || x.Want != r.Want || x.Fail != r.Fail || x.Sleep != r.Sleep {
		return fmt.Errorf("differs")
	}
	return nil
}

func (r *tval) Sends() any { return &tvalSends{} }

func (r *tval) GroupCmp(o engine.Groupable) error {
	x, ok := o.(*tval)
	if !ok || !r.Group || !x.Group || x.Want != r.Want {
		return fmt.Errorf("not groupable")
	}
	return nil
}

func (r *tval) UIDs() []engine.ResUID {
	return []engine.ResUID{&engine.BaseUID{Kind: "tval", Name: r.Name()}}
}

type afterEdges struct {
	uids []engine.ResUID
	done bool
}

func (a *afterEdges) Next() []engine.ResUID {
	if a.done {
		return nil
	}
	a.done = true
	return a.uids
}
func (a *afterEdges) Test([]bool) bool { return false }

// AutoEdges fails for an After of [!error], and panics for [!panic].
func (r *tval) AutoEdges() (engine.AutoEdge, error) {
	if len(r.After) == 0 {
		return nil, nil
	}
	switch r.After[0] {
	case "!error":
		return nil, fmt.Errorf("%s cannot say", r.Name())
	case "!panic":
		panic("autoedge bug")
	}
	a := &afterEdges{}
	for _, n := range r.After {
		a.uids = append(a.uids, &engine.BaseUID{Kind: "tval", Name: n})
	}
	return a, nil
}

// trev is a reversible kind: it sets state[name] to Want; its reversal
// deletes the key again.
type trev struct {
	traits.Base
	init *engine.Init
	Want string `lang:"want"`
	Gone bool   `lang:"gone"`
	// Hold makes CheckApply wait for sys.trigger("hold:NAME") first.
	Hold bool `lang:"hold"`
}

func (r *trev) Default() engine.Res             { return &trev{} }
func (r *trev) Validate() error                 { return nil }
func (r *trev) Init(init *engine.Init) error    { r.init = init; return nil }
func (r *trev) Cleanup() error                  { return nil }
func (r *trev) Watch(ctx context.Context) error { r.init.Running(); <-ctx.Done(); return nil }
func (r *trev) Cmp(o engine.Res) error {
	if x, ok := o.(*trev); !ok || *x != *r {
		return fmt.Errorf("differs")
	}
	return nil
}
func (r *trev) CheckApply(ctx context.Context, apply bool) (bool, error) {
	if r.Hold {
		sys.mu.Lock()
		sys.state["held:"+r.Name()] = "yes"
		sys.mu.Unlock()
		select {
		case <-sys.trigger("hold:" + r.Name()):
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	sys.mu.Lock()
	defer sys.mu.Unlock()
	cur, ok := sys.state["rev:"+r.Name()]
	if r.Gone {
		if !ok {
			return true, nil
		}
		delete(sys.state, "rev:"+r.Name())
		return false, nil
	}
	if ok && cur == r.Want {
		return true, nil
	}
	sys.state["rev:"+r.Name()] = r.Want
	return false, nil
}
func (r *trev) Reversed() (engine.Res, error) {
	return &trev{Gone: true}, nil
}

var regOnce sync.Once

func register() {
	regOnce.Do(func() {
		engine.RegisterResource("tval", func() engine.Res { return &tval{} })
		engine.RegisterResource("trev", func() engine.Res { return &trev{} })
	})
}

// doc builds a graph document from a compact spec: resources as
// "kind:name key=value ..." and edges as "a -> b", "a ~> b" (notify) or
// "a.out -> b.in" (send/recv); all resources are tval unless named
// kind:name.
func doc(seq int64, res []string, edges ...string) *graph.Document {
	d := &graph.Document{Mgmt: graph.Version, Graph: "t", Seq: seq}
	for _, r := range res {
		f := strings.Fields(r)
		kind, name := "tval", f[0]
		if k, n, ok := strings.Cut(f[0], ":"); ok {
			kind, name = k, n
		}
		rr := &graph.Resource{Kind: kind, Name: name, Params: map[string]any{}, Pos: "t.mcl:1:" + fmt.Sprint(len(d.Resources)+1)}
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			if mk, ok := strings.CutPrefix(k, "meta."); ok {
				if rr.Meta == nil {
					rr.Meta = &graph.Meta{}
				}
				setMeta(rr.Meta, mk, v)
				continue
			}
			rr.Params[k] = parseVal(v)
		}
		d.Resources = append(d.Resources, rr)
	}
	for _, e := range edges {
		notify := strings.Contains(e, "~>")
		a, b, _ := strings.Cut(strings.ReplaceAll(e, "~>", "->"), "->")
		a, b = strings.TrimSpace(a), strings.TrimSpace(b)
		ed := &graph.Edge{Notify: notify}
		if an, ak, ok := strings.Cut(a, "."); ok {
			bn, bk, _ := strings.Cut(b, ".")
			a, b, ed.Send, ed.Recv = an, bn, ak, bk
		}
		ed.From, ed.To = ref(a), ref(b)
		d.Edges = append(d.Edges, ed)
	}
	return d
}

func ref(s string) graph.Ref {
	if k, n, ok := strings.Cut(s, ":"); ok {
		return graph.Ref{Kind: k, Name: n}
	}
	return graph.Ref{Kind: "tval", Name: s}
}

func parseVal(v string) any {
	if v == "true" || v == "false" {
		return v == "true"
	}
	if strings.HasPrefix(v, "#") {
		return jsonNumber(v[1:])
	}
	if strings.HasPrefix(v, "[") {
		var out []any
		for _, p := range strings.Split(strings.Trim(v, "[]"), ",") {
			if p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	return v
}

func setMeta(m *graph.Meta, k, v string) {
	var n int
	fmt.Sscan(v, &n)
	switch k {
	case "retry":
		m.Retry = int16(n)
	case "delay":
		m.Delay = uint64(n)
	case "sema":
		m.Sema = strings.Split(v, ",")
	case "export":
		m.Export = strings.Split(v, ",")
	case "noop":
		m.Noop = v == "true"
	case "hidden":
		m.Hidden = v == "true"
	case "reverse":
		m.Reverse = v == "true"
	case "realize":
		m.Realize = v == "true"
	case "retryreset":
		m.RetryReset = v == "true"
	case "burst":
		m.Burst = n
	case "limit":
		var f float64
		fmt.Sscan(v, &f)
		m.Limit = &f
	case "autoedge":
		b := v == "true"
		m.AutoEdge = &b
	case "autogroup":
		b := v == "true"
		m.AutoGroup = &b
	case "poll":
		m.Poll = int32(n)
	case "timeout":
		m.Timeout = uint64(n)
	case "dollar":
		m.Dollar = v == "true"
	case "rewatch":
		m.Rewatch = v == "true"
	default:
		panic("unknown meta " + k)
	}
}

// harness runs an engine for one test.
type harness struct {
	t    *testing.T
	e    *engine.Engine
	logs *logBuf
	stop func()
	done chan struct{}
}

type logBuf struct {
	mu    sync.Mutex
	lines []string
}

func (l *logBuf) logf(format string, v ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, v...))
	l.mu.Unlock()
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func start(t *testing.T, cfg engine.Config) *harness {
	t.Helper()
	register()
	sys.reset()
	h := &harness{t: t, logs: &logBuf{}, done: make(chan struct{})}
	cfg.Logf = h.logs.logf
	if cfg.Prefix == "" {
		cfg.Prefix = t.TempDir()
	}
	if cfg.ConvergedTimeout == 0 {
		cfg.ConvergedTimeout = -1
	}
	h.e = engine.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		h.e.Run(ctx)
		close(h.done)
	}()
	var once sync.Once
	h.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case <-h.done:
			case <-time.After(10 * time.Second):
				t.Errorf("engine did not stop")
			}
		})
	}
	t.Cleanup(h.stop)
	return h
}

func (h *harness) load(d *graph.Document) {
	h.t.Helper()
	g, err := engine.Build(d, engine.BuildOptions{})
	if err != nil {
		h.t.Fatalf("build: %v", err)
	}
	h.e.Load(g)
}

// converge waits until the graph of seq is loaded and converged.
func (h *harness) converge(seq int64) engine.Status {
	h.t.Helper()
	return h.waitFor(func(st engine.Status) bool {
		return st.Seq == seq && !st.Since.IsZero()
	}, "convergence")
}

func (h *harness) waitFor(cond func(engine.Status) bool, what string) engine.Status {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		st := h.e.Status()
		if cond(st) {
			return st
		}
		time.Sleep(time.Millisecond)
	}
	h.t.Fatalf("timed out waiting for %s: status %+v\nlog:\n%s", what, h.e.Status(), h.logs)
	return engine.Status{}
}

func changed() []string {
	sys.mu.Lock()
	defer sys.mu.Unlock()
	return append([]string(nil), sys.log...)
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

var counter atomic.Int64
