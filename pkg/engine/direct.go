package engine

// Direct events
//
// A resource's event usually reaches the scheduler as a message: the
// watch posts it, the Run goroutine wakes, handles it and starts the
// CheckApply in a goroutine of its own. When the engine is idle, which is
// when drift happens to a converged graph, that hand-off to the Run
// goroutine is one goroutine switch (and often one thread wake-up) on the
// way from the change to its repair, for nothing: nobody else is waiting
// for the scheduler. The goroutine that reports the event (for a file, the
// shared watcher's reader) then takes the scheduler's lock itself, handles
// the event and starts the CheckApply, exactly as the Run goroutine would
// have: the rules are the same code, only the goroutine differs.
//
// It does so only when it cannot change the order of anything: the lock
// is free (TryLock: the caller never waits for the scheduler, and a
// resource that calls Event while the scheduler runs gets the usual
// message), no message is waiting in the inbox (they came first and are
// handled first), and the resource is in the plain state (not failed for
// good, not removed) where an event only marks it dirty. Everything else,
// and everything that follows (the end of the CheckApply, timers, the
// converged timeout), goes through the Run goroutine as before.

// direct handles the event of vs in the calling goroutine, and reports
// whether it did; when it did not, the caller posts it.
func (e *Engine) direct(vs *vstate) bool {
	if !e.smu.TryLock() {
		return false
	}
	defer e.smu.Unlock()
	if e.s == nil || e.closing || vs.removed || vs.failed != nil || !e.inboxEmpty() {
		return false
	}
	e.s.handle(msg{kind: msgEvent, vs: vs})
	e.s.schedule()
	e.publish()
	return true
}

// inboxEmpty reports whether no message waits for the Run goroutine.
func (e *Engine) inboxEmpty() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.inbox) == 0
}
