package engine

import (
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"time"
)

func sprintf(format string, v ...any) string { return fmt.Sprintf(format, v...) }

// done handles the end of a CheckApply: metrics and logs, retries or
// failure on error, and on success the pokes, refreshes and send/recv
// values that flow to the successors.
func (s *sched) done(vs *vstate, ok bool, err error, dur time.Duration) {
	run := vs.takeRun()
	reports := run.reports
	check := vs.checkRun
	if err != nil && !check && vs.upPendingNow && (s.e.cfg.Noop || vs.meta().Noop) {
		reports, ok, err = uncheckedNoop(reports, err), false, nil
	}
	notes := notesOf(reports)
	if (ok || err != nil) && !check {
		// A failed CheckApply's changes were started, not known made:
		// they come before the error, as tried.
		for i, n := range notes {
			tried := ""
			if err != nil && !reports[i].logged {
				tried = "tried: "
			}
			s.e.logf("%s: %s%s", vs.v.key, tried, n)
		}
		notes = nil
	}
	vs.running = false
	s.running--
	if check {
		vs.checkRun = false
		s.checking--
	}
	s.release(vs)
	run.end()
	apply := !(s.e.cfg.Noop || vs.meta().Noop)
	s.e.cfg.Metrics.checkApply(vs, apply && !check, ok, err)
	if vs.removed {
		if apply && !check && err == nil && vs.meta().Reverse && vs.revPath() == "" {
			// It left the graph while this CheckApply ran, too late
			// for the swap to save its reversal (reversals).
			s.reverseLate(vs)
		}
		s.update(vs)
		s.finalize(vs)
		return
	}
	s.debugDone(vs, ok, err, dur, apply && !check)
	res := Result{Op: "checkapply", Noop: !apply, Recheck: check, Reason: run.reason,
		Changed: !ok && err == nil, Err: err, Duration: dur, Changes: reports}
	switch {
	case check:
		if err == nil && !apply {
			s.setOutcome(vs, !ok, false)
		}
		s.checkDone(vs, ok, err, notes)
	case err != nil:
		s.setOutcome(vs, false, true)
		res.Failed = s.applyError(vs, err)
	default:
		s.setOutcome(vs, !ok && !apply, false)
		s.applyOK(vs, ok, apply, dur, reports)
	}
	s.result(vs, res)
	s.update(vs)
	s.enqueue(vs)
	for _, e := range vs.outs() {
		s.enqueue(e.to)
	}
	if apply && !check && err == nil && !ok {
		s.forwardExit(vs)
	}
}

// takeRun ends the capture of what the CheckApply of vs reports, and
// returns the state of that CheckApply, which vs lets go of.
func (vs *vstate) takeRun() *vrun {
	vs.mu.Lock()
	vs.capture = false
	run := vs.run
	vs.run = nil
	vs.mu.Unlock()
	if run == nil {
		run = &vrun{}
	}
	return run
}

// forwardExit passes the exit a resource asked for in the CheckApply
// just logged and counted on to the program (Config.Exit).
func (s *sched) forwardExit(vs *vstate) {
	x, isExiter := vs.v.Res.(Exiter)
	if !isExiter || s.e.cfg.Exit == nil {
		return
	}
	if code, asked := x.ExitAsked(); asked {
		s.e.cfg.Exit(code)
	}
}

// uncheckedNoop turns the error of a noop check whose dependencies have
// pending changes into a change that could not be checked: what the check
// reads (a unit, a directory, a command) may come from the change a
// dependency would make, so the error says nothing yet about the real run.
// It is reported, with the error, as a change the run would have to make.
func uncheckedNoop(reports []Reported, err error) []Reported {
	return append(reports, Reported{What: "not checked (a dependency has pending changes): " + err.Error()})
}

// debugDone logs, at debug level, how long a CheckApply took and what it
// came to.
func (s *sched) debugDone(vs *vstate, ok bool, err error, dur time.Duration, apply bool) {
	if !s.e.debugOn() {
		return
	}
	outcome := "in its state"
	switch {
	case err != nil:
		outcome = "error"
	case !ok && apply:
		outcome = "changed"
	case !ok:
		outcome = "would change"
	}
	s.e.debugf("%s: CheckApply took %s: %s", vs.v.key, roundDur(dur), outcome)
}

// setOutcome records whether the last run of vs left a change pending
// (found, not made) and whether it failed, for Status.
func (s *sched) setOutcome(vs *vstate, pending, failing bool) {
	n := 1 + len(vs.v.Members())
	if pending != vs.pending {
		vs.pending = pending
		if pending {
			s.pendingN += n
		} else {
			s.pendingN -= n
		}
	}
	if failing != vs.failing {
		vs.failing = failing
		if failing {
			s.failingN += n
		} else {
			s.failingN -= n
		}
	}
}

// setBlocked records whether a failed dependency keeps vs from running,
// counting its resources for Status.
func (s *sched) setBlocked(vs *vstate, blocked bool) {
	if blocked == vs.blocked {
		return
	}
	vs.blocked = blocked
	if n := 1 + len(vs.v.Members()); blocked {
		s.blockedN += n
	} else {
		s.blockedN -= n
	}
}

// result completes r with what identifies vs and hands it to
// Config.Results.
func (s *sched) result(vs *vstate, r Result) {
	if s.e.cfg.Results == nil {
		return
	}
	r.Time = time.Now()
	r.Kind, r.Name, r.Pos = vs.v.kind(), vs.v.name(), vs.v.where()
	for _, m := range vs.v.Members() {
		r.Members = append(r.Members, m.key)
	}
	s.e.cfg.Results(r)
}

// applyError retries a failed CheckApply or, when the retries are
// exhausted, fails the resource for good, which it reports.
func (s *sched) applyError(vs *vstate, err error) bool {
	vs.refresh = vs.refresh || vs.refreshNow
	if vs.retries != 0 {
		if vs.retries > 0 {
			vs.retries--
		}
		s.e.warnf("%s", errorAt(vs, "error (retrying in %s): %v", time.Duration(vs.meta().Delay)*time.Millisecond, err))
		vs.timer = true
		s.after(time.Duration(vs.meta().Delay)*time.Millisecond, msg{kind: msgRetry, vs: vs})
		return false
	}
	s.fail(vs, err)
	return true
}

// fail marks vs failed for good and blocks its descendants.
func (s *sched) fail(vs *vstate, err error) {
	if vs.failed {
		return
	}
	vs.failed = true
	s.failed++
	s.e.errorf("%s", errorAt(vs, "error: %v", err))
	s.e.cfg.Metrics.failure(vs, 1)
	s.update(vs)
	s.block(vs)
	if !vs.holding && !vs.watchErr {
		vs.holding, vs.recoverOK = true, false
		s.after(recoverPause, msg{kind: msgRecover, vs: vs})
	}
	// What came while the failing CheckApply ran counts: an event, after
	// the pause; a change by a dependency, at once.
	vs.recoverOK = vs.recoverOK || vs.dirty
	if vs.poked {
		s.recover(vs)
	}
}

// recover gives a resource that failed for good in CheckApply another
// try, with its retries refilled, because what it failed on has changed:
// its Watch saw an event (after the pause), or a dependency changed
// something. Its descendants are unblocked unless another failure blocks
// them. A resource whose Init or Watch failed for good cannot tell.
func (s *sched) recover(vs *vstate) {
	if vs.running {
		vs.poked = true // counts if this CheckApply fails for good
		return
	}
	if !vs.failed || vs.watchErr || vs.removed {
		return
	}
	vs.failed = false
	s.failed--
	s.e.cfg.Metrics.failure(vs, -1)
	vs.retries = vs.meta().Retry
	vs.mark(whyRecover, nil)
	s.reblock()
	s.update(vs)
	s.enqueue(vs)
}

// block marks every descendant of vs as blocked by a failure.
func (s *sched) block(vs *vstate) {
	stack := []*vstate{vs}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range v.outs() {
			if !e.to.blocked {
				s.setBlocked(e.to, true)
				s.update(e.to)
				stack = append(stack, e.to)
			}
		}
	}
}

func (s *sched) applyOK(vs *vstate, ok, apply bool, dur time.Duration, reports []Reported) {
	vs.applied = true
	vs.lastOK = ok
	if vs.meta().RetryReset {
		vs.retries = vs.meta().Retry
	}
	if !ok {
		s.logChange(vs, apply, dur, reports)
	}
	if !ok && apply {
		s.markChanged(vs, vs.v)
		for _, m := range vs.v.Members() {
			s.markChanged(vs, m)
		}
		for _, e := range vs.outs() {
			if e.to.meta().Hidden || e.to.removed {
				continue
			}
			if e.notify() {
				e.to.mark(whyRefresh, vs)
				e.to.refresh = true
			} else {
				e.to.mark(whyDep, vs)
			}
			s.recover(e.to)
			s.update(e.to)
		}
	}
	s.sendValues(vs)
	if apply && vs.revPath() != "" {
		s.reversalDone(vs) // a noop run leaves the reversal pending
		return
	}
	if apply && vs.meta().Reverse {
		s.saveReversal(vs)
	}
}

// logChange logs, at notice level, what a CheckApply changed or, in noop
// mode, would change; with the diffs of its text changes in noop mode and
// at debug level.
func (s *sched) logChange(vs *vstate, apply bool, dur time.Duration, reports []Reported) {
	what := ""
	if len(reports) > 0 {
		notes := notesOf(reports)
		for i, n := range notes {
			notes[i] = strings.TrimPrefix(n, "changed: ")
		}
		what = ": " + strings.Join(notes, "; ")
	}
	var attrs []slog.Attr
	if d := diffText(reports); d != "" && (!apply || s.e.debugOn()) {
		attrs = append(attrs, slog.String("diff", d))
	}
	if apply {
		s.e.log(LevelNotice, sprintf("%s: changed%s%s (%s)", vs.v.key, groupNote(vs), what, roundDur(dur)), attrs...)
	} else {
		s.e.log(LevelNotice, sprintf("%s: would change%s%s (noop)", vs.v.key, groupNote(vs), what), attrs...)
	}
}

// sendValues marks dirty the receivers whose sent value changed.
func (s *sched) sendValues(vs *vstate) {
	sr, ok := vs.v.Res.(Sendable)
	if !ok {
		return
	}
	var sent any
	for _, e := range vs.outs() {
		if e.send() == "" {
			continue
		}
		if sent == nil {
			if sent = sr.Sent(); sent == nil {
				return
			}
		}
		f, ok := fieldByLang(reflect.ValueOf(sent), e.send(), false)
		if !ok {
			continue
		}
		val := deref(f)
		if e.x.seen && reflect.DeepEqual(val, e.x.last) {
			continue
		}
		e.x.seen, e.x.last = true, val
		e.to.mark(whyValue, vs)
		s.recover(e.to)
		s.update(e.to)
	}
}

func groupNote(vs *vstate) string {
	if len(vs.v.Members()) == 0 {
		return ""
	}
	names := make([]string, 0, len(vs.v.Members()))
	for _, m := range vs.v.Members() {
		names = append(names, m.key)
	}
	return " (with " + strings.Join(names, ", ") + ")"
}

func roundDur(d time.Duration) time.Duration {
	switch {
	case d > time.Second:
		return d.Round(time.Millisecond)
	case d > time.Millisecond:
		return d.Round(time.Microsecond)
	}
	return d
}
