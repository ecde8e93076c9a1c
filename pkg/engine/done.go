package engine

import (
	"fmt"
	"reflect"
	"strings"
	"time"
)

func sprintf(format string, v ...any) string { return fmt.Sprintf(format, v...) }

// done handles the end of a CheckApply: metrics and logs, retries or
// failure on error, and on success the pokes, refreshes and send/recv
// values that flow to the successors.
func (s *sched) done(vs *vstate, ok bool, err error, dur time.Duration) {
	vs.notesMu.Lock()
	notes := vs.notes
	vs.notes, vs.capture = nil, false
	vs.notesMu.Unlock()
	check := vs.checkRun
	if (ok || err != nil) && !check {
		for _, n := range notes {
			s.e.logf("%s: %s", vs.key, n)
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
	if vs.cancelRun != nil {
		vs.cancelRun()
		vs.cancelRun = nil
	}
	apply := !(s.e.cfg.Noop || vs.meta.Noop)
	s.e.cfg.Metrics.checkApply(vs, apply && !check, ok, err)
	if vs.removed {
		s.update(vs)
		s.finalize(vs)
		return
	}
	switch {
	case check:
		s.checkDone(vs, ok, err, notes)
	case err != nil:
		s.applyError(vs, err)
	default:
		s.applyOK(vs, ok, apply, dur, notes)
	}
	s.update(vs)
	s.enqueue(vs)
	for _, e := range vs.out {
		s.enqueue(e.to)
	}
}

func (s *sched) applyError(vs *vstate, err error) {
	vs.refresh = vs.refresh || vs.refreshNow
	if vs.retries != 0 {
		if vs.retries > 0 {
			vs.retries--
		}
		s.e.logf("%s", errorAt(vs, "error (retrying in %s): %v", time.Duration(vs.meta.Delay)*time.Millisecond, err))
		vs.timer = true
		s.after(time.Duration(vs.meta.Delay)*time.Millisecond, msg{kind: msgRetry, vs: vs})
		return
	}
	s.fail(vs, err)
}

// fail marks vs failed for good and blocks its descendants.
func (s *sched) fail(vs *vstate, err error) {
	if vs.failed != nil {
		return
	}
	vs.failed = err
	s.failed++
	s.e.logf("%s", errorAt(vs, "error: %v", err))
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
	if vs.failed == nil || vs.watchErr || vs.removed {
		return
	}
	vs.failed = nil
	s.failed--
	s.e.cfg.Metrics.failure(vs, -1)
	vs.retries = vs.meta.Retry
	vs.dirty = true
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
		for _, e := range v.out {
			if !e.to.blocked {
				e.to.blocked = true
				s.update(e.to)
				stack = append(stack, e.to)
			}
		}
	}
}

func (s *sched) applyOK(vs *vstate, ok, apply bool, dur time.Duration, notes []string) {
	vs.applied = true
	vs.lastOK = ok
	if vs.meta.RetryReset {
		vs.retries = vs.meta.Retry
	}
	if !ok {
		what := ""
		if len(notes) > 0 {
			for i, n := range notes {
				notes[i] = strings.TrimPrefix(n, "changed: ")
			}
			what = ": " + strings.Join(notes, "; ")
		}
		if apply {
			s.e.logf("%s: changed%s%s (%s)", vs.key, groupNote(vs), what, roundDur(dur))
		} else {
			s.e.logf("%s: would change%s%s (noop)", vs.key, groupNote(vs), what)
		}
	}
	if !ok && apply {
		for _, e := range vs.out {
			if e.to.meta.Hidden || e.to.removed {
				continue
			}
			e.to.dirty = true
			if e.notify {
				e.to.refresh = true
			}
			s.recover(e.to)
			s.update(e.to)
		}
	}
	s.sendValues(vs)
	if apply && vs.reversal != "" {
		s.reversalDone(vs) // a noop run leaves the reversal pending
		return
	}
	if apply && vs.meta.Reverse {
		s.saveReversal(vs)
	}
}

// sendValues marks dirty the receivers whose sent value changed.
func (s *sched) sendValues(vs *vstate) {
	sr, ok := vs.res.(Sendable)
	if !ok {
		return
	}
	var sent any
	for _, e := range vs.out {
		if e.send == "" {
			continue
		}
		if sent == nil {
			if sent = sr.Sent(); sent == nil {
				return
			}
		}
		f, ok := fieldByLang(reflect.ValueOf(sent), e.send)
		if !ok {
			continue
		}
		val := deref(f)
		if e.seen && reflect.DeepEqual(val, e.last) {
			continue
		}
		e.seen, e.last = true, val
		e.to.dirty = true
		s.recover(e.to)
		s.update(e.to)
	}
}

func groupNote(vs *vstate) string {
	if len(vs.v.Members) == 0 {
		return ""
	}
	names := make([]string, 0, len(vs.v.Members))
	for _, m := range vs.v.Members {
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
