package engine

import (
	"sort"
	"strings"
	"time"
)

// The periodic recheck (Config.Recheck) is a safety net under the watches:
// every resource gets a check-only CheckApply (apply false) once per
// interval, so that a change no watch reported is repaired within it.
//
// The ticks are spread over the interval, one resource each, in key
// order, and a tick is skipped while the previous recheck has not finished:
// one recheck at a time, whatever the size of the graph. A recheck goes
// through the scheduler like any other run (dependencies settled,
// semaphores, the parallelism cap, never two CheckApply calls of one
// resource at once) and is not counted as work for convergence when it
// finds nothing. When it finds drift, the resource waits missGrace for an
// event still on its way; if none comes, the drift is counted as missed
// (for a resource with a running Watch), logged as a warning, and the
// resource runs as after an event.

// missGrace is how long drift found by a recheck waits for an event that
// the resource's Watch may still be delivering before it counts as missed.
const missGrace = time.Second

// armRecheck schedules the next recheck tick, when rechecks are on: the
// interval divided by the number of vertices, so that each is rechecked
// about once per interval.
func (s *sched) armRecheck() {
	if s.e.cfg.Recheck <= 0 || s.recheckArmed {
		return
	}
	s.recheckArmed = true
	d := s.e.cfg.Recheck / time.Duration(max(len(s.order), 1))
	s.after(max(d, time.Millisecond), msg{kind: msgRecheck})
}

// recheckTick hands a recheck to the vertex after the last one, unless the
// last one's recheck is still pending or running.
func (s *sched) recheckTick() {
	s.recheckArmed = false
	defer s.armRecheck()
	if r := s.recheckVs; r != nil && !r.removed && (r.recheck || r.checkRun || r.drift) {
		return
	}
	s.recheckVs = nil
	n := len(s.order)
	if n == 0 {
		return
	}
	kind, name := keyParts(s.recheckKey)
	i := sort.Search(n, func(i int) bool { return comparePlace(s.order[i].v, kind, name) > 0 })
	vs := s.order[i%n]
	s.recheckKey = vs.v.key
	if vs.meta().Hidden || !settled(vs) {
		return // it is being checked anyway, or cannot be
	}
	vs.recheck = true
	s.recheckVs = vs
	s.e.cfg.Metrics.rechecked(vs)
	s.enqueue(vs)
}

// checkDone handles the end of a recheck. An error is left to the run
// proper, which reports and retries it. Drift waits missGrace for an event,
// unless one came already, or the resource runs in noop mode and its last
// check already found the drift.
func (s *sched) checkDone(vs *vstate, ok bool, err error, notes []string) {
	switch {
	case err != nil:
		vs.mark(whyDrift, nil)
	case ok || vs.dirty:
	case !vs.lastOK && (s.e.cfg.Noop || vs.meta().Noop):
	default:
		vs.drift = true
		vs.extra().driftNotes = notes
		vs.timer = true
		s.after(missGrace, msg{kind: msgDrift, vs: vs})
	}
}

// driftFound ends the grace of drift found by a recheck: when no event
// came meanwhile, the resource runs, and for one with a running Watch the
// drift is counted (mgmt_recheck_drift_total) and logged as a warning.
func (s *sched) driftFound(vs *vstate) {
	vs.timer = false
	vs.drift = false
	var notes []string
	if vs.x != nil {
		notes, vs.x.driftNotes = vs.x.driftNotes, nil
	}
	if vs.dirty {
		return // the Watch reported it after all
	}
	vs.mark(whyDrift, nil)
	if !vs.watched {
		return // polled or not watched: nothing could have reported it
	}
	s.missed++
	s.e.cfg.Metrics.missedDrift(vs)
	what := ""
	if len(notes) > 0 {
		for i, n := range notes {
			notes[i] = strings.TrimPrefix(n, "changed: ")
		}
		what = " (" + strings.Join(notes, "; ") + ")"
	}
	s.e.warnf("%s", errorAt(vs, "warning: the recheck found drift that no watch event reported%s; repairing", what))
}
