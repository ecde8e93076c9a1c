package engine

import (
	"context"
	"log/slog"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

type msgKind uint8

const (
	msgGraph      msgKind = iota // a new graph to swap in
	msgRunning                   // Watch is established
	msgEvent                     // Watch saw a possible change
	msgDone                      // a CheckApply returned
	msgRetry                     // the retry delay is over
	msgLimit                     // the rate limiter allows the next CheckApply
	msgFailed                    // Init or Watch failed for good
	msgStopped                   // a removed vertex finished stopping
	msgWatchError                // Watch failed, a retry follows
	msgRecover                   // the pause after a failure for good is over
	msgPolling                   // a kernel limit keeps Watch from starting: a poll instead
	msgRecheck                   // the next periodic recheck is due
	msgDrift                     // the grace after drift found by a recheck is over
)

// recoverPause is how long a resource that failed for good waits before
// its own Watch events may give it another try, so that a CheckApply
// whose failure makes its own Watch fire cannot loop.
const recoverPause = time.Second

// A msg is what the scheduler is told, 48 bytes: the inbox of a graph's
// first run holds thousands.
type msg struct {
	kind msgKind
	ok   bool
	vs   *vstate
	g    *Graph
	err  error
	dur  time.Duration
}

// A vstate is the run-time state of one vertex. Fields below "loop-owned"
// belong to whoever holds the engine's smu (the Run goroutine, or a direct
// event).
type vstate struct {
	e *Engine
	v *Vertex // its key (v.key) is the vertex's
	// mp is the metaparameters of its resource (meta), which the loop
	// reads at every step of the vertex: kept here, they are read without
	// a call through the resource and a read of its memory, which for a
	// graph of 100,000 files is mostly not in a cache (3% of the CPU
	// time of a warm run went to the calls)
	mp *MetaParams

	// (Fields are ordered so that the bools share words: a graph holds a
	// vstate per vertex.)

	// mu guards its watch (watch.go: wstop to subStop), and what the
	// resource logs or reports during a CheckApply, which joins the
	// engine's line: capture is set while it runs, and what it says goes
	// to run.reports. Whoever holds it takes no other lock.
	mu        sync.Mutex
	evPending atomic.Bool
	capture   bool
	initOK    bool  // set by the watch before it ends (watch.go)
	initMade  bool  // init is set: its watch was started (loop-owned)
	wstop     bool  // the watch is cancelled
	wended    bool  // the watch is over
	subState  uint8 // its subscription: subNone, subStarting, subParked
	wretries  int16 // retries left to the Watch its subscription stands for
	// (loop-owned) edges holds the edges from its dependencies first,
	// nin of them (ins)
	nin     int32
	wdone   chan struct{} // closed once the watch is over, made by a waiter
	wx      *wextra       // what a Watch running in a goroutine, or a failing Subscribe, needs
	subStop func()        // stops its parked subscription

	// loop-owned
	refreshNow bool // set before a CheckApply, read by it
	diffNow    bool // set before a CheckApply, read by it: diff the text changes it reports
	// set before a CheckApply, read by it: a dependency, or one of
	// theirs, left a change pending (noop)
	upPendingNow bool
	launched     bool
	ready        bool // Running was called
	dirty        bool
	running      bool
	timer        bool // a retry or rate-limit timer is pending
	limitOK      bool // the rate limiter already granted the next run
	refresh      bool // a notification is pending
	applied      bool // a CheckApply returned without error
	lastOK       bool
	watchErr     bool // Watch failed for good
	holding      bool // failed, in the pause before its events count again
	recoverOK    bool // an event came during the pause
	poked        bool // a dependency changed something during this CheckApply
	blocked      bool // a dependency failed for good
	removed      bool
	busy         bool // counted in sched.busy
	queued       bool
	// how it is watched, and its periodic recheck
	watched  bool // its Watch is running (not polled, not ended)
	polled   bool // polled because a kernel limit keeps its Watch from starting
	recheck  bool // a recheck (check-only run) is due
	checkRun bool // the running CheckApply is a recheck
	drift    bool // a recheck found drift: waiting for a late event
	// how its last run ended
	pending bool  // its last check found a change it did not make
	failing bool  // its last CheckApply, Init or Watch failed
	secret  bool  // it receives a secret (receivesSecret), as of its last start; read by its CheckApply too
	failed  bool  // failed for good (its CheckApply, or its Init or Watch): the error was logged
	fromSet uint8 // the slots (fromSlot) of why whose dependency is known (whyFrom)
	why     why   // reasons of the pending CheckApply
	retries int16 // left before it fails for good
	scan    int32 // where tryStart resumes checking the dependencies
	// its place in sched.order (by kind and name) as of the last swap or
	// retire: runWork starts the vertices of a batch in this order
	rank int32
	// its edges: those from its dependencies (ins), then those to its
	// dependents (outs), in a part of the graph's one array of them
	edges []*redge
	x     *vextra // what few vertices need, made when one does

	// the dependency behind whyRefresh, whyDep and whyValue, for those
	// of fromSet that x.whyFrom does not name another for (markFrom):
	// nearly always a single one, the dependency that changed
	whyFrom *vstate
	// what its running CheckApply needs, from its start until it is
	// done: set by the loop before the CheckApply starts
	run *vrun

	// The Init handle of its resource and its logger, set once before
	// its watch starts (setInit): part of the vstate rather than two
	// allocations of their own.
	init Init
	log  slog.Logger
}

// A vrun is what one CheckApply of a vertex needs while it runs. It is
// made when the CheckApply starts and let go of when it is done, so a
// graph whose vertices are idle holds none.
type vrun struct {
	reason  string           // its reasons
	recv    map[string]*Send // what Init.Recv returns
	reports []Reported       // what it reported and logged, guarded by mu while capture is set
	// the task of the CheckApply pool (Engine.runCheck): the vertex, how
	// it runs, and its context, ended once it is done (end)
	vs      *vstate
	apply   bool
	recvErr error
	ctx     checkCtx
	timeout context.CancelFunc // the end of the context of Meta:timeout, its parent
}

// end ends the context of the CheckApply.
func (r *vrun) end() {
	r.ctx.end(context.Canceled)
	if r.timeout != nil {
		r.timeout()
	}
}

// A wextra is the part of the watch of a vertex that a graph of files
// does without (guarded by vstate.mu): made for a Watch that runs in a
// goroutine, or a Subscribe that fails before it returns.
type wextra struct {
	cancel context.CancelFunc // cancels the context of its running Watch
	early  error              // a failure reported before Subscribe returned
}

// ins returns the edges from the dependencies of vs.
func (vs *vstate) ins() []*redge { return vs.edges[:vs.nin:vs.nin] }

// outs returns the edges to the dependents of vs.
func (vs *vstate) outs() []*redge { return vs.edges[vs.nin:] }

// A vextra holds the state that few vertices need: a graph of 100,000
// files holds none.
type vextra struct {
	reversal   string        // saved reversal to delete after the first success
	revSaved   []byte        // what was saved last for its reversal
	limit      string        // the kernel limit it is polled for
	driftNotes []string      // what the recheck said
	lim        *rate.Limiter // Meta:limit
	semas      []*semaphore  // Meta:sema, and the global semaphore
	whyFrom    [3]*vstate    // the dependencies behind reasons that another is behind than vstate.whyFrom
}

// semaphores returns the semaphores of vs.
func (vs *vstate) semaphores() []*semaphore {
	if vs.x == nil {
		return nil
	}
	return vs.x.semas
}

// extra returns the vextra of vs, made on first use.
func (vs *vstate) extra() *vextra {
	if vs.x == nil {
		vs.x = &vextra{}
	}
	return vs.x
}

// meta returns the metaparameters of vs.
func (vs *vstate) meta() *MetaParams { return vs.mp }

// revPath returns the saved reversal vs runs as, or "".
func (vs *vstate) revPath() string {
	if vs.x == nil {
		return ""
	}
	return vs.x.reversal
}

// A redge is a run-time edge. A graph of many resources holds about one
// per resource (a file's edge from its directory), so what only send/recv
// edges need is apart.
type redge struct {
	from, to *vstate
	x        *redgeX // notify and send/recv edges only
}

// A redgeX is the part of an edge that only notify and send/recv edges
// need.
type redgeX struct {
	send, recv string
	last       any  // last value seen from the sender
	seen       bool // last is set
	notify     bool // the edge notifies (Refresh)
}

// notify reports whether e notifies its receiver of a change.
func (e *redge) notify() bool { return e.x != nil && e.x.notify }

// send returns the key the sender sends over e, "" for an edge that is no
// send/recv edge.
func (e *redge) send() string {
	if e.x == nil {
		return ""
	}
	return e.x.send
}

// recv returns the parameter the receiver receives over e, or "".
func (e *redge) recv() string {
	if e.x == nil {
		return ""
	}
	return e.x.recv
}

type semaphore struct {
	size, used int
	waiters    fifo // runnable vertices waiting for this semaphore
}

// A fifo is a queue of vertices.
type fifo struct {
	q    []*vstate
	head int
}

// idleQueue is the largest array, in entries, that an emptied queue (a
// fifo, the pool's) keeps.
const idleQueue = 1024

func (f *fifo) push(vs *vstate) { f.q = append(f.q, vs) }
func (f *fifo) len() int        { return len(f.q) - f.head }

func (f *fifo) pop() *vstate {
	vs := f.q[f.head]
	f.q[f.head] = nil
	f.head++
	if f.head == len(f.q) {
		// Emptied: a large array (the first run of a graph queues
		// most of its vertices) is let go of rather than kept.
		f.q, f.head = f.q[:0], 0
		if cap(f.q) > idleQueue {
			f.q = nil
		}
	}
	return vs
}

// sched is the deterministic core of the engine: it reacts to messages and
// decides what runs next. Only the holder of the engine's smu touches it.
type sched struct {
	e        *Engine
	fx       effects
	order    []*vstate // the vertices sorted by kind and name (byPlace), for deterministic scans and find
	stopping map[string]*vstate
	pending  map[string]*vstate // waiting for a stopping vertex of the same key
	semas    map[string]*semaphore
	work     []*vstate
	// workSpare is the empty buffer runWork gives work next, nil
	// when it was too large to keep (maxSpare)
	workSpare []*vstate
	slotWait  fifo                // runnable, waiting for a free CheckApply slot
	semWait   map[*semaphore]bool // semaphores with waiters
	busy      int
	running   int
	failed    int
	loaded    bool
	seq       int64
	loadedAt  time.Time // when the last graph was swapped in
	nres      int       // resources of the graph, grouped ones included
	reported  bool      // its first convergence was logged
	since     time.Time

	checking     int             // rechecks running (in running, not counted as work)
	recheckArmed bool            // a recheck tick is pending
	recheckKey   string          // the vertex rechecked last
	recheckVs    *vstate         // its state, while its recheck is not over
	missed       int             // drift found by rechecks that no event reported
	limitSeen    map[string]bool // kernel limits logged (and not cleared since)

	// The resources changed since the start: how many, and the keys of
	// those that changed in a vertex no longer running (the others are
	// marked in their Vertex), so that a resource counts once whatever
	// the swaps.
	nchanged    int
	changedGone map[string]struct{}
	pendingN    int // resources of vertices with pending set
	failingN    int // resources of vertices with failing set
	blockedN    int // resources of vertices with blocked set
}

// effects are what the scheduler asks of the outside world: goroutines
// running CheckApply, Watch and the stopping of a vertex, and timers. Each
// reports back with a message. The Engine implements them; tests of the
// scheduler record them instead.
type effects interface {
	checkApply(vs *vstate, apply bool, recvErr error) // run CheckApply, then post msgDone
	watch(vs *vstate)                                 // Init and Watch until vs.cancel, posting msgRunning/msgEvent/msgFailed
	finalize(vs *vstate, realize, apply bool)         // wait for Watch, realize, Cleanup, then post msgStopped
	after(d time.Duration, m msg)                     // post m once d has passed
}

func newSched(e *Engine, fx effects) *sched {
	return &sched{
		e:        e,
		fx:       fx,
		stopping: map[string]*vstate{},
		pending:  map[string]*vstate{},
		semas:    map[string]*semaphore{},
		semWait:  map[*semaphore]bool{},

		limitSeen:   map[string]bool{},
		changedGone: map[string]struct{}{},
	}
}

func (s *sched) snapshot() Status {
	st := Status{Total: len(s.order), Running: s.running - s.checking, Failed: s.failed, Loaded: s.loaded, Seq: s.seq,
		Missed: s.missed, Resources: s.nres, Changed: s.nchanged, Pending: s.pendingN, Failing: s.failingN, Blocked: s.blockedN}
	st.Converged = st.Total - s.busy
	if s.busy == 0 && st.Running == 0 && s.loaded {
		if s.since.IsZero() {
			s.since = time.Now()
		}
		st.Since = s.since
	} else {
		s.since = time.Time{}
	}
	return st
}

// update recomputes whether vs keeps the graph from being converged: it
// does while it waits for its Watch, has an event pending, runs (a recheck
// does not count), or waits for a timer. A polled resource also does while
// its last CheckApply found something to repair, since only the next poll
// will tell.
func (s *sched) update(vs *vstate) {
	polledBad := (vs.meta().Poll > 0 || vs.polled) && vs.applied && !vs.lastOK && !(s.e.cfg.Noop || vs.meta().Noop)
	b := !vs.removed && !vs.meta().Hidden && !vs.failed && !vs.blocked &&
		(!vs.ready || vs.dirty || vs.running && !vs.checkRun || vs.timer || polledBad)
	if b != vs.busy {
		vs.busy = b
		if b {
			s.busy++
		} else {
			s.busy--
		}
	}
}

func (s *sched) enqueue(vs *vstate) {
	if !vs.queued {
		vs.queued = true
		s.work = append(s.work, vs)
	}
}

func (s *sched) handle(m msg) {
	vs := m.vs
	switch m.kind {
	case msgGraph:
		s.swap(m.g)
		return
	case msgStopped:
		s.stopped(vs)
		return
	case msgDone:
		s.done(vs, m.ok, m.err, m.dur)
		return
	case msgRecheck:
		s.recheckTick()
		return
	}
	if vs.removed {
		return
	}
	switch m.kind {
	case msgRunning:
		vs.ready = true
		vs.mark(whyStart, nil)
		if vs.polled && !m.ok {
			s.watchingAgain(vs)
		}
		vs.watched = !m.ok // ok: polled or nothing to watch
	case msgPolling:
		vs.ready = true
		vs.mark(whyPoll, nil)
		vs.watched = false
		if !vs.polled {
			s.pollingFor(vs, m.err)
		}
	case msgDrift:
		s.driftFound(vs)
	case msgEvent:
		vs.evPending.Store(false)
		if vs.meta().Poll > 0 {
			vs.mark(whyPoll, nil)
		} else {
			vs.mark(whyEvent, nil)
		}
		if vs.failed {
			if vs.holding {
				vs.recoverOK = true
			} else {
				s.recover(vs)
			}
		}
	case msgRecover:
		vs.holding = false
		if vs.recoverOK {
			vs.recoverOK = false
			s.recover(vs)
		}
	case msgRetry:
		vs.timer = false
		vs.mark(whyRetry, nil)
	case msgLimit:
		vs.timer = false
		vs.limitOK = true
	case msgWatchError:
		s.e.warnf("%s", errorAt(vs, "watch error (retrying): %v", m.err))
	case msgFailed:
		vs.watchErr = true
		s.setOutcome(vs, false, true)
		s.fail(vs, m.err)
		s.result(vs, Result{Op: "watch", Noop: s.e.cfg.Noop || vs.meta().Noop, Err: m.err, Failed: true})
	}
	s.update(vs)
	s.enqueue(vs)
}

// settled reports whether vs lets its dependents run: it has applied
// successfully and has nothing left to do.
func settled(vs *vstate) bool {
	if vs.meta().Hidden {
		return true
	}
	return vs.applied && vs.ready && !vs.dirty && !vs.running && !vs.timer && !vs.failed && !vs.blocked
}

// schedule starts the CheckApply of every queued vertex that can run.
func (s *sched) schedule() {
	for {
		s.runWork()
		// Wake, in FIFO order, as many waiters as there is room for. A
		// woken vertex that cannot start after all frees its turn, so
		// the loop goes on until nothing more can be woken.
		woke := false
		for sem := range s.semWait {
			for n := sem.size - sem.used; n > 0 && sem.waiters.len() > 0; n-- {
				s.enqueue(sem.waiters.pop())
				woke = true
			}
			if sem.waiters.len() == 0 {
				delete(s.semWait, sem)
			}
		}
		for n := s.e.cfg.Parallel - s.running; n > 0 && s.slotWait.len() > 0; n-- {
			s.enqueue(s.slotWait.pop())
			woke = true
		}
		if !woke {
			return
		}
	}
}

func (s *sched) runWork() {
	for len(s.work) > 0 {
		work := s.work
		// What tryStart enqueues goes to the other buffer, which the
		// batch before left empty: a graph's first run, which enqueues
		// every vertex in batches, does not grow a new array for each.
		s.work, s.workSpare = s.workSpare[:0], nil
		slices.SortFunc(work, byRank)
		for _, vs := range work {
			vs.queued = false
			s.tryStart(vs)
		}
		if cap(work) <= maxSpare {
			clear(work)
			s.workSpare = work[:0]
		}
	}
}

func (s *sched) tryStart(vs *vstate) {
	if vs.removed || vs.meta().Hidden || !vs.ready || !(vs.dirty || vs.recheck) || vs.running || vs.timer || vs.failed || vs.blocked {
		return
	}
	// Resume the scan of the dependencies at the last one that was not
	// settled: with a large fan-in, each check is then cheap.
	in := vs.ins()
	for i, n := 0, len(in); i < n; i++ {
		j := (int(vs.scan) + i) % n
		if !settled(in[j].from) {
			vs.scan = int32(j)
			return
		}
	}
	if sem := s.fullSema(vs); sem != nil {
		sem.waiters.push(vs)
		s.semWait[sem] = true
		return
	}
	if s.running >= s.e.cfg.Parallel {
		s.slotWait.push(vs)
		return
	}
	if vs.x != nil && vs.x.lim != nil && !vs.limitOK {
		r := vs.x.lim.Reserve()
		if d := r.Delay(); d > 0 {
			s.e.debugf("%s: rate limited (Meta:limit): next CheckApply in %s", vs.v.key, roundDur(d))
			vs.timer = true
			s.after(d, msg{kind: msgLimit, vs: vs})
			s.update(vs)
			return
		}
	}
	vs.limitOK = false
	s.start(vs)
}

// fullSema returns a semaphore of vs that has no room left, or nil.
func (s *sched) fullSema(vs *vstate) *semaphore {
	for _, sem := range vs.semaphores() {
		if sem.used >= sem.size {
			return sem
		}
	}
	return nil
}

// release gives back the semaphores of a finished CheckApply.
func (s *sched) release(vs *vstate) {
	for _, sem := range vs.semaphores() {
		sem.used--
	}
}

func (s *sched) after(d time.Duration, m msg) { s.fx.after(d, m) }

// start runs the CheckApply of vs in the engine's pool of CheckApply
// goroutines (Engine.applies): a check-only one
// when it runs for a recheck alone.
func (s *sched) start(vs *vstate) {
	vs.checkRun = vs.recheck && !vs.dirty
	vs.recheck = false
	vs.dirty = false
	vs.poked = false
	vs.running = true
	s.running++
	for _, sem := range vs.semaphores() {
		sem.used++
	}
	vs.refreshNow = false
	vs.run = &vrun{}
	if vs.checkRun {
		s.checking++
		vs.run.reason = "recheck"
	} else {
		vs.refreshNow = vs.refresh
		vs.refresh = false
		vs.run.reason = vs.reason()
	}
	recvErr := s.receive(vs)
	s.update(vs)
	apply := !(s.e.cfg.Noop || vs.meta().Noop || vs.checkRun)
	vs.upPendingNow = false
	if !apply {
		// the dependencies ran before: their own flags are up to date
		for _, e := range vs.ins() {
			if e.from.pending || e.from.upPendingNow {
				vs.upPendingNow = true
				break
			}
		}
	}
	debug := s.e.debugOn()
	vs.diffNow = s.e.cfg.Results != nil || s.e.cfg.DiffLines > 0 && (debug || !apply && !vs.checkRun)
	vs.secret = s.receivesSecret(vs)
	if debug {
		mode := "apply"
		if !apply {
			mode = "check only"
		}
		s.e.debugf("%s: CheckApply (%s) for: %s", vs.v.key, mode, vs.run.reason)
	}
	s.fx.checkApply(vs, apply, recvErr)
}

// receive sets the parameters vs receives over send/recv edges from the
// values its senders sent last, and prepares what Init.Recv returns.
func (s *sched) receive(vs *vstate) error {
	var recv map[string]*Send
	changed := false
	for _, e := range vs.ins() {
		if e.send() == "" {
			continue
		}
		sr, ok := e.from.v.Res.(Sendable)
		if !ok {
			continue
		}
		sent := sr.Sent()
		if sent == nil {
			continue
		}
		src, ok := fieldByLang(reflect.ValueOf(sent), e.send(), false)
		if !ok {
			return errorfSR(e, "the sender sent no key %q", e.send())
		}
		dst, ok := fieldByLang(reflect.ValueOf(vs.v.Res), e.recv(), true)
		if !ok {
			return errorfSR(e, "the receiver has no parameter %q", e.recv())
		}
		c, err := setRecv(dst, src)
		if err != nil {
			return errorfSR(e, "%v", err)
		}
		changed = changed || c
		if recv == nil {
			recv = map[string]*Send{}
		}
		recv[e.recv()] = &Send{Res: e.from.v.Res, Key: e.send(), Changed: c}
	}
	vs.run.recv = recv
	if rr, ok := vs.v.Res.(Recvable); ok && recv != nil {
		rr.SetRecv(recv)
	}
	if changed {
		if err := vs.v.Res.Validate(); err != nil {
			return errorfSR(nil, "invalid after receiving values: %v", err)
		}
	}
	return nil
}

type srError struct{ msg string }

func (e *srError) Error() string { return e.msg }

func errorfSR(e *redge, format string, v ...any) error {
	m := sprintf(format, v...)
	if e != nil {
		m = "send/recv " + e.from.v.key + "." + e.send() + " -> " + e.to.v.key + "." + e.recv() + ": " + m
	}
	return &srError{m}
}
