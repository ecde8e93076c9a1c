package engine

// Direct events
//
// A resource's event, and the end of its CheckApply, usually reach the
// scheduler as messages: the goroutine posts it, the Run goroutine wakes,
// handles it and starts what can run. When the engine is idle, which is
// when drift happens to a converged graph, that hand-off to the Run
// goroutine is one goroutine switch (and often one thread wake-up) on the
// way from the change to its repair, for nothing: nobody else is waiting
// for the scheduler. The goroutine that reports the event (for a file, the
// shared watcher's reader), or that ran the CheckApply, then takes the
// scheduler's lock itself, handles its message and starts what follows,
// exactly as the Run goroutine would have: the rules are the same code,
// only the goroutine differs.
//
// It does so only when it cannot change the order of anything: the lock
// is free (TryLock: the caller never waits for the scheduler, and a
// resource that calls Event while the scheduler runs gets the usual
// message), no message is waiting in the inbox (they came first and are
// handled first), and, for an event, the resource is in the plain state
// (not failed for good, not removed) where an event only marks it dirty.
// Everything else (timers, watches starting and failing, graphs) goes
// through the Run goroutine as before, and so does the converged timeout:
// Run is woken when a direct message leaves the graph converged, and
// checks the present state when the timeout fires.

// direct handles m, an event or the end of a CheckApply, in the calling
// goroutine when the engine is idle, and reports whether it did; when it
// did not, the caller posts m.
func (e *Engine) direct(m msg) bool {
	if !e.smu.TryLock() {
		return false
	}
	if e.s == nil || e.closing || !e.inboxEmpty() ||
		m.kind == msgEvent && (m.vs.removed || m.vs.failed) {
		e.smu.Unlock()
		return false
	}
	e.s.handle(m)
	e.s.schedule()
	st := e.publish()
	e.smu.Unlock()
	if e.cfg.ConvergedTimeout >= 0 && convergedNow(&st) {
		e.poke() // Run sets the converged timer
	}
	return true
}

// done hands the message m of a CheckApply's goroutine to the scheduler.
func (e *Engine) done(m msg) {
	if !e.direct(m) {
		e.post(m)
	}
}

// inboxEmpty reports whether no message waits for the Run goroutine.
func (e *Engine) inboxEmpty() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.inbox) == 0
}
