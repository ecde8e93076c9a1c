package engine

import (
	"context"
	"fmt"
	"time"
)

// The Engine's effects: the goroutines and timers of the scheduler.

func (e *Engine) after(d time.Duration, m msg) {
	time.AfterFunc(d, func() { e.post(m) })
}

func (e *Engine) checkApply(vs *vstate, apply bool, recvErr error) {
	ctx, cancel := context.WithCancel(e.runCtx)
	if vs.meta().Timeout > 0 {
		ctx, cancel = context.WithTimeout(e.runCtx, time.Duration(vs.meta().Timeout)*time.Millisecond)
	}
	vs.run.cancel = cancel
	res := vs.v.Res
	e.applyWG.Add(1)
	e.run(&e.applies, func() {
		defer e.applyWG.Done()
		defer cancel()
		t0 := time.Now()
		if recvErr != nil {
			e.done(msg{kind: msgDone, vs: vs, err: recvErr})
			return
		}
		vs.mu.Lock()
		vs.capture = true
		vs.mu.Unlock()
		ok, err := safeCheckApply(ctx, res, apply)
		if err == nil && ctx.Err() == context.DeadlineExceeded {
			err = ctx.Err()
		}
		e.done(msg{kind: msgDone, vs: vs, ok: ok, err: err, dur: time.Since(t0)})
	})
}

func (e *Engine) finalize(vs *vstate, realize, apply bool) {
	e.goTrack(func() {
		if vs.initMade {
			<-vs.watchDone()
		}
		if realize && vs.initOK {
			if _, err := safeCheckApply(e.runCtx, vs.v.Res, apply); err != nil {
				e.errorf("%s", errorAt(vs, "realize: %v", err))
			}
		}
		if vs.initOK {
			if err := safely(vs.v.Res.Cleanup); err != nil {
				e.errorf("%s", errorAt(vs, "cleanup: %v", err))
			}
		}
		e.post(msg{kind: msgStopped, vs: vs})
	})
}

// safely runs f, turning a panic into an error: a buggy resource fails on
// its own instead of taking the engine down.
func safely(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}

func safeCheckApply(ctx context.Context, r Res, apply bool) (ok bool, err error) {
	err = safely(func() error {
		var e error
		ok, e = r.CheckApply(ctx, apply)
		return e
	})
	return ok, err
}
