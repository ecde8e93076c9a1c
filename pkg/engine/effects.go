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
	run := vs.run
	run.vs, run.apply, run.recvErr = vs, apply, recvErr
	run.ctx.parent = e.runCtx
	if t := vs.meta().Timeout; t > 0 {
		run.ctx.parent, run.timeout = context.WithTimeout(e.runCtx, time.Duration(t)*time.Millisecond)
	}
	e.applyWG.Add(1)
	runIn(e, &e.applies, run)
}

// runCheck runs the CheckApply of run, a task of the CheckApply pool, and
// reports its end to the scheduler.
func (e *Engine) runCheck(run *vrun) {
	defer e.applyWG.Done()
	defer run.end()
	vs := run.vs
	if run.recvErr != nil {
		e.done(msg{kind: msgDone, vs: vs, err: run.recvErr})
		return
	}
	t0 := time.Now()
	vs.mu.Lock()
	vs.capture = true
	vs.mu.Unlock()
	ok, err := safeCheckApply(&run.ctx, vs.v.Res, run.apply)
	if err == nil && run.ctx.Err() == context.DeadlineExceeded {
		err = context.DeadlineExceeded
	}
	e.done(msg{kind: msgDone, vs: vs, ok: ok, err: err, dur: time.Since(t0)})
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
