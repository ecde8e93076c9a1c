package engine

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Config configures an Engine.
type Config struct {
	Program  string
	Version  string
	Hostname string
	Prefix   string // state directory: vardirs and saved reversals live here

	Noop bool // run every CheckApply with apply=false
	Sema int  // > 0: a global semaphore of this size shared by every resource

	// ConvergedTimeout, when >= 0, closes Converged() once the whole graph
	// has stayed converged this long. Negative disables it.
	ConvergedTimeout time.Duration

	// Parallel caps the number of CheckApply calls running at once
	// (default 64). Independent resources run in parallel up to it.
	Parallel int

	// ExitAfterRun tells the engine that the program exits once Run
	// returns. Run then stops as it does otherwise (Watch goroutines
	// cancelled and waited for, running CheckApply calls cancelled and
	// waited for, Cleanup called), except that it lets go of the parked
	// subscriptions of its vertices (Subscriber) without stopping them
	// one by one: they hold nothing outside the process, which its exit
	// ends. Stopping the subscriptions of 100,000 files took about 80 ms
	// and a collection of the garbage it made. (The program had better
	// remove the kernel's watches behind them before it exits, as
	// mgmt-apply does with fswatch.Release: the kernel's release of
	// an inotify instance with watches left waits for their destruction
	// in the exit.) A program that goes on after Run, or runs another
	// engine, leaves it false.
	ExitAfterRun bool

	// OneShot tells the engine that the program stops at the graph's first
	// convergence (mgmt-apply --converged-timeout 0 without a world), as a
	// one-time agent run does: the engine then makes no subscription for
	// its Subscribers (the files), whose watch could only report changes
	// made after their check and before the program's end, which a run
	// that stops at once does not wait for (with subscriptions, such a
	// change was acted on only when its event came before the last check
	// ended, a matter of timing). Each such resource is checked once, as
	// it starts, with no kernel watch behind it. A Watch that runs in a
	// goroutine of its own still runs. A run of 1,000 files that creates
	// them took 50 ms instead of 62 (its own creations, reported back,
	// checked again some of the files), one that finds them in place 16.4
	// ms instead of 24.7 (medians of 31 alternated runs), and the program
	// needs no inotify instance, whose release in the exit waited some 12
	// ms for the kernel in one run in four to half of them.
	OneShot bool

	// Recheck, when > 0, gives every resource a check-only CheckApply once
	// per Recheck, spread over the interval, one at a time (see
	// recheck.go): drift that no watch reported is repaired within it,
	// and counted in Status.Missed and mgmt_recheck_drift_total.
	Recheck time.Duration

	// LimitPoll is how often a resource is polled, and its Watch tried
	// again, while a kernel limit keeps the Watch from starting (default
	// DefaultLimitPoll).
	LimitPoll time.Duration

	// Exit, when set, becomes the Init.Exit of every resource: how a
	// resource asks the program to stop with an exit code.
	Exit func(code int)

	// Debug makes the engine log at debug level (why each CheckApply
	// runs and how long it took) and sets Init.Debug.
	Debug bool
	World World
	// Log receives the records of the engine and its resources, at the
	// levels log.go describes. When it is nil, Logf receives the text of
	// each record instead (debug ones only with Debug), and when both are
	// nil the log is discarded.
	Log  *slog.Logger
	Logf func(format string, v ...any)
	// DiffLines is how many lines of the unified diff of a text change
	// (Change.Text) the log shows, in noop runs and at debug level; 0
	// shows none.
	DiffLines int
	// Results, when set, receives the outcome of every CheckApply (and
	// of every Init or Watch that failed for good), in order, with the
	// scheduler's lock held (from the Run goroutine, or from the
	// goroutine of the CheckApply when the engine was idle): it must
	// return quickly, and must not wait for the engine.
	Results func(Result)
	Metrics *Metrics // nil: no metrics
}

// Status is a snapshot of the engine, for status lines.
type Status struct {
	Total     int // runnable vertices
	Converged int // vertices with nothing left to do
	Running   int // CheckApply calls in progress, rechecks aside
	Failed    int // vertices failed for good (retries exhausted)
	Missed    int // drift found by a recheck that no watch event reported
	// Resources are counted here with the members of their group.
	Resources int // resources of the graph
	Changed   int // resources changed since the engine started
	Pending   int // resources whose last check found a change it did not make (noop)
	Failing   int // resources whose last CheckApply, Init or Watch failed
	Blocked   int // resources not run because a dependency failed for good
	Loaded    bool
	Seq       int64     // seq of the graph loaded last
	Since     time.Time // when the graph became converged; zero if it is not
}

// An Engine runs resource graphs: one Watch per resource, CheckApply when a
// resource is dirty and its dependencies are converged, graph swaps,
// metaparameters and the converger. All its scheduling state belongs to
// whoever holds smu: the goroutine of Run, which other goroutines talk to
// through messages, or the goroutine of an event that finds the engine
// idle (direct.go).
type Engine struct {
	cfg    Config
	logger *slog.Logger

	mu    sync.Mutex
	inbox []msg
	wake  chan struct{}

	loadedOnce atomic.Bool
	converged  chan struct{}
	status     atomic.Pointer[Status]
	graphRes   atomic.Pointer[graphRes] // the running graph (Init.Graph)
	env        *Env                     // the Env of every resource's Init
	runCtx     context.Context          // cancelled at shutdown; parent of every Watch and CheckApply
	runStarted chan struct{}

	// guarded by smu (the Run goroutine, or a direct event)
	smu     sync.Mutex
	s       *sched
	closing bool // Run is stopping: no direct event starts anything

	rev revIndex // which reversal state may exist under the prefix

	tasks   pool[func()]   // short tasks: the start of each watch, the stop of a subscription
	applies pool[*vrun]    // CheckApply calls (Config.Parallel goroutines)
	wg      sync.WaitGroup // every goroutine the engine started
	applyWG sync.WaitGroup // running CheckApply calls
}

// New returns an engine; Run starts it.
func New(cfg Config) *Engine {
	if cfg.Parallel <= 0 {
		cfg.Parallel = 64
	}
	if cfg.LimitPoll <= 0 {
		cfg.LimitPoll = DefaultLimitPoll
	}
	if cfg.Program == "" {
		cfg.Program = "mgmt"
	}
	e := &Engine{
		cfg:        cfg,
		logger:     newLogger(cfg),
		wake:       make(chan struct{}, 1),
		converged:  make(chan struct{}),
		runStarted: make(chan struct{}),
	}
	e.tasks.size, e.tasks.do = poolSize, callTask
	e.applies.size, e.applies.do = cfg.Parallel, e.runCheck
	e.env = &Env{
		Program:  cfg.Program,
		Version:  cfg.Version,
		Hostname: cfg.Hostname,
		World:    cfg.World,
		Prefix:   cfg.Prefix,
		Exit:     cfg.Exit,
		Graph:    e.graph,
		Debug:    cfg.Debug,
	}
	e.status.Store(&Status{})
	return e
}

// Converged is closed once the graph has been converged for the configured
// ConvergedTimeout.
func (e *Engine) Converged() <-chan struct{} { return e.converged }

// Status returns a snapshot of the engine state.
func (e *Engine) Status() Status { return *e.status.Load() }

// Load hands a prepared graph to the engine, which swaps it in. It may be
// called before or while Run runs, from any goroutine.
func (e *Engine) Load(g *Graph) {
	e.post(msg{kind: msgGraph, g: g})
}

// Run runs the engine until ctx is done, then stops every resource (Watch
// ended, running CheckApply calls cancelled through their context, Cleanup
// called) and returns.
func (e *Engine) Run(ctx context.Context) error {
	runCtx, cancel := context.WithCancel(context.Background())
	e.runCtx = runCtx
	e.smu.Lock()
	e.s = newSched(e, e)
	e.smu.Unlock()
	close(e.runStarted)
	var convTimer *time.Timer
	var convC <-chan time.Time
	var spare []msg // the inbox's next buffer (drain)
	defer func() {
		if convTimer != nil {
			convTimer.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			cancel()
			e.smu.Lock()
			e.closing = true
			e.s.shutdown()
			e.smu.Unlock()
			e.wg.Wait()
			return nil
		case <-e.wake:
		case <-convC:
			convTimer, convC = nil, nil
			// A direct event may have started a CheckApply since the
			// timer was set, or ended it: what counts is the present.
			e.smu.Lock()
			st := e.publish()
			e.smu.Unlock()
			if !convergedNow(&st) {
				continue
			}
			if left := e.cfg.ConvergedTimeout - time.Since(st.Since); left > 0 {
				convTimer = time.NewTimer(left)
				convC = convTimer.C
				continue
			}
			select {
			case <-e.converged:
			default:
				e.logf("converged for %s", e.cfg.ConvergedTimeout)
				close(e.converged)
			}
			continue
		}
		e.smu.Lock()
		for {
			msgs := e.drain(spare)
			if len(msgs) == 0 {
				break
			}
			for _, m := range msgs {
				e.s.handle(m)
			}
			e.s.schedule()
			spare = reuse(msgs)
		}
		st := e.publish()
		conv := convergedNow(&st)
		if conv && cap(e.s.workSpare) > idleInbox {
			e.s.workSpare = nil // as the inbox's buffers below
		}
		e.smu.Unlock()
		if conv {
			spare = e.trimInbox(spare)
		}
		if e.cfg.ConvergedTimeout >= 0 {
			switch {
			case conv && convTimer == nil:
				convTimer = time.NewTimer(e.cfg.ConvergedTimeout)
				convC = convTimer.C
			case !conv && convTimer != nil:
				convTimer.Stop()
				convTimer, convC = nil, nil
			}
		}
	}
}

// publish makes the state of the scheduler the engine's status, and logs
// the first convergence of a graph. The caller holds smu.
func (e *Engine) publish() Status {
	st := e.s.snapshot()
	e.status.Store(&st)
	e.cfg.Metrics.status(&st)
	if !st.Since.IsZero() && !e.s.reported {
		e.s.reported = true
		groups := ""
		if e.s.nres != st.Total {
			groups = fmt.Sprintf(" in %d vertices", st.Total)
		}
		e.logf("graph seq %d converged in %s (%d resources%s)", st.Seq, roundDur(time.Since(e.s.loadedAt)), e.s.nres, groups)
	}
	return st
}

// convergedNow reports whether st is a converged graph.
func convergedNow(st *Status) bool {
	return st.Loaded && st.Total == st.Converged && st.Running == 0
}

// post queues a message for the Run goroutine.
func (e *Engine) post(m msg) {
	e.mu.Lock()
	e.inbox = append(e.inbox, m)
	e.mu.Unlock()
	e.poke()
}

// poke wakes the Run goroutine.
func (e *Engine) poke() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// drain returns the queued messages, if any, and gives the inbox the empty
// buffer spare (nil or from reuse) to fill next; the caller keeps spare
// when there were none.
func (e *Engine) drain(spare []msg) []msg {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.inbox) == 0 {
		return nil
	}
	m := e.inbox
	e.inbox = spare
	return m
}

// maxSpare is the largest inbox buffer, in messages, kept for reuse: the
// burst of a graph's first run does not grow a new one each time, and an
// idle engine holds no more than this.
const maxSpare = 8192

// reuse returns msgs, handled, emptied for the next drain, or nil when
// it is too large to keep.
func reuse(msgs []msg) []msg {
	if cap(msgs) > maxSpare {
		return nil
	}
	clear(msgs) // drop the references to vertices, graphs and errors
	return msgs[:0]
}

// idleInbox is the largest inbox buffer, in messages, that a converged
// engine keeps.
const idleInbox = 64

// trimInbox lets go of the inbox's buffer, if it is empty, and of spare,
// the next one, when they are larger than idleInbox, and returns what is
// left of spare: the burst of messages of a graph's first run grew them
// (to maxSpare messages of 56 bytes, 450 KiB, each), and a converged
// graph posts few. A later burst grows them again.
func (e *Engine) trimInbox(spare []msg) []msg {
	e.mu.Lock()
	if len(e.inbox) == 0 && cap(e.inbox) > idleInbox {
		e.inbox = nil
	}
	e.mu.Unlock()
	if cap(spare) > idleInbox {
		return nil
	}
	return spare
}

// goTrack runs f in a goroutine the engine waits for at shutdown.
func (e *Engine) goTrack(f func()) {
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		f()
	}()
}

// errorAt formats an error about a vertex, with its position when known.
func errorAt(vs *vstate, format string, v ...any) string {
	msg := fmt.Sprintf(format, v...)
	if w := vs.v.where(); w != "" {
		return w + ": " + vs.v.key + ": " + msg
	}
	return vs.v.key + ": " + msg
}
