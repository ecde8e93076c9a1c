package engine

import (
	"context"
	"time"
)

// The Engine's effects: the goroutines and timers of the scheduler.

func (e *Engine) after(d time.Duration, m msg) {
	time.AfterFunc(d, func() { e.post(m) })
}

func (e *Engine) checkApply(vs *vstate, apply bool, recvErr error) {
	ctx, cancel := context.WithCancel(e.runCtx)
	if vs.meta.Timeout > 0 {
		ctx, cancel = context.WithTimeout(e.runCtx, time.Duration(vs.meta.Timeout)*time.Millisecond)
	}
	vs.cancelRun = cancel
	res := vs.res
	e.applyWG.Add(1)
	e.goTrack(func() {
		defer e.applyWG.Done()
		defer cancel()
		t0 := time.Now()
		if recvErr != nil {
			e.post(msg{kind: msgDone, vs: vs, err: recvErr})
			return
		}
		vs.notesMu.Lock()
		vs.capture = true
		vs.notesMu.Unlock()
		ok, err := res.CheckApply(ctx, apply)
		if err == nil && ctx.Err() == context.DeadlineExceeded {
			err = ctx.Err()
		}
		e.post(msg{kind: msgDone, vs: vs, ok: ok, err: err, dur: time.Since(t0)})
	})
}

func (e *Engine) watch(vs *vstate) {
	ctx, cancel := context.WithCancel(e.runCtx)
	vs.cancel = cancel
	vs.watchDone = make(chan struct{})
	vs.init = e.newInit(vs)
	e.goTrack(func() { e.watchLoop(ctx, vs) })
}

func (e *Engine) finalize(vs *vstate, realize, apply bool) {
	e.goTrack(func() {
		if vs.watchDone != nil {
			<-vs.watchDone
		}
		if realize && vs.initOK {
			if _, err := vs.res.CheckApply(e.runCtx, apply); err != nil {
				e.logf("%s", errorAt(vs, "realize: %v", err))
			}
		}
		if vs.initOK {
			if err := vs.res.Cleanup(); err != nil {
				e.logf("%s", errorAt(vs, "cleanup: %v", err))
			}
		}
		e.post(msg{kind: msgStopped, vs: vs})
	})
}
