package engine

import (
	"context"
	"fmt"
	"time"
)

// The watch of a vertex: Init, then its Subscribe or its Watch, until the
// vertex stops. A graph of 100,000 resources holds 100,000 watches, so
// what an idle watch keeps is only a few fields of the vertex (guarded by
// vstate.mu): no goroutine, context or channel of its own while it is
// parked in a subscription. A context is made only for a Watch that runs
// in a goroutine, and the channel that says the watch is over only for
// whoever waits for it (the stop of the vertex, the shutdown).

// The states of the subscription of a vertex.
const (
	subNone     uint8 = iota // no subscription
	subStarting              // Subscribe has not returned yet
	subParked                // the subscription watches the vertex
)

// closedChan is a channel closed from the start.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// watch starts the watch of vs in the task pool: Init and the subscription
// take a task, a Watch that blocks a goroutine of its own.
func (e *Engine) watch(vs *vstate) {
	e.setInit(vs)
	e.do(func() { e.startWatch(vs) })
}

// startWatch runs Init, then parks vs in a subscription or starts the
// goroutine of its Watch.
func (e *Engine) startWatch(vs *vstate) {
	if err := safely(func() error { return vs.v.Res.Init(&vs.init) }); err != nil {
		e.post(msg{kind: msgFailed, vs: vs, err: fmt.Errorf("init: %v", err)})
		vs.endWatch()
		return
	}
	vs.initOK = true
	retries := vs.meta().Retry
	parked, err := e.subscribe(vs, retries)
	if parked {
		return
	}
	e.goTrack(func() { e.watchFrom(vs, retries, err, err == nil) })
}

// watchFrom watches vs until its watch is cancelled, with retries tries
// left, starting from the failure err when it is not nil (subscribed
// reports that a nil err comes from a Subscribe already tried: vs is no
// Subscriber, or is polled). It ends the watch when it is done, unless it
// handed the watch to a subscription, which then ends it, or calls
// watchFrom again when it fails.
func (e *Engine) watchFrom(vs *vstate, retries int16, err error, subscribed bool) {
	ctx, release := vs.watchContext()
	defer release()
	for {
		if err == nil {
			if !subscribed {
				var parked bool
				if parked, err = e.subscribe(vs, retries); parked {
					return
				}
			}
			subscribed = false
			if err == nil {
				err = e.watchOnce(ctx, vs)
			}
		}
		if ctx.Err() == nil && watchLimit(err) != "" {
			err = e.pollForLimit(ctx, vs, err)
		}
		if ctx.Err() != nil {
			vs.endWatch()
			return
		}
		if err == nil {
			// Watch ended on its own: nothing more to watch.
			e.post(msg{kind: msgRunning, vs: vs, ok: true})
			vs.endWatch()
			return
		}
		if retries == 0 {
			e.post(msg{kind: msgFailed, vs: vs, err: fmt.Errorf("watch: %v", err)})
			vs.endWatch()
			return
		}
		if retries > 0 {
			retries--
		}
		e.post(msg{kind: msgWatchError, vs: vs, err: err})
		t := time.NewTimer(time.Duration(vs.meta().Delay) * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			vs.endWatch()
			return
		case <-t.C:
		}
		err = nil
	}
}

// watchOnce runs Watch, or the polling loop that replaces it.
func (e *Engine) watchOnce(ctx context.Context, vs *vstate) error {
	switch p := vs.meta().Poll; {
	case p == 0:
		return safely(func() error { return vs.v.Res.Watch(ctx) })
	case p < 0:
		e.post(msg{kind: msgRunning, vs: vs, ok: true})
		<-ctx.Done()
		return nil
	default:
		e.post(msg{kind: msgRunning, vs: vs, ok: true})
		tk := time.NewTicker(time.Duration(p) * time.Second)
		defer tk.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-tk.C:
				vs.init.Event()
			}
		}
	}
}

// watchContext returns the context of a Watch of vs, cancelled when the
// watch is (already, if it was), and the function that lets go of it.
func (vs *vstate) watchContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(vs.e.runCtx)
	vs.mu.Lock()
	if vs.wstop {
		cancel()
	} else {
		vs.watchExtra().cancel = cancel
	}
	vs.mu.Unlock()
	return ctx, func() {
		vs.mu.Lock()
		if vs.wx != nil {
			vs.wx.cancel = nil
		}
		vs.mu.Unlock()
		cancel()
	}
}

// watchExtra returns the wextra of vs, made on first use; vs.mu is held.
func (vs *vstate) watchExtra() *wextra {
	if vs.wx == nil {
		vs.wx = &wextra{}
	}
	return vs.wx
}

// takeEarlyLocked returns the failure reported before Subscribe returned,
// if any, and forgets it; vs.mu is held.
func (vs *vstate) takeEarlyLocked() error {
	if vs.wx == nil {
		return nil
	}
	err := vs.wx.early
	vs.wx.early = nil
	return err
}

// subscribe starts the watch of vs through Subscribe when vs is a
// Subscriber that is not polled. parked reports that the subscription now
// owns the watch (and ends it); otherwise err, if any, is a failure to
// handle as a failed Watch, and a nil err with parked false means vs is no
// Subscriber. A OneShot engine parks a Subscriber without subscribing.
func (e *Engine) subscribe(vs *vstate, retries int16) (parked bool, err error) {
	sub, ok := vs.v.Res.(Subscriber)
	if !ok || vs.meta().Poll != 0 {
		return false, nil
	}
	vs.mu.Lock()
	if vs.wstop {
		vs.mu.Unlock()
		vs.endWatch()
		return true, nil
	}
	if e.cfg.OneShot {
		// Parked with nothing behind it (Config.OneShot).
		vs.subState, vs.subStop = subParked, func() {}
		vs.mu.Unlock()
		e.post(msg{kind: msgRunning, vs: vs})
		return true, nil
	}
	vs.subState, vs.wretries = subStarting, retries
	vs.takeEarlyLocked()
	vs.mu.Unlock()
	var stop func()
	err = safely(func() error {
		var err error
		stop, err = sub.Subscribe(vs.subscriptionFailed)
		return err
	})
	vs.mu.Lock()
	if early := vs.takeEarlyLocked(); err == nil && early != nil {
		err = early
	}
	if err != nil || vs.wstop {
		vs.subState = subNone
		vs.mu.Unlock()
		if stop != nil {
			stop()
		}
		if err != nil {
			return false, err
		}
		vs.endWatch()
		return true, nil
	}
	vs.subState, vs.subStop = subParked, stop
	vs.mu.Unlock()
	e.post(msg{kind: msgRunning, vs: vs})
	return true, nil
}

// cancelWatch cancels the watch of vs, if it was started: its context, or
// its subscription, which a task of the pool then stops before it ends the
// watch (stopping may wait for the resource's locks).
func (e *Engine) cancelWatch(vs *vstate) {
	if !vs.initMade {
		return
	}
	vs.mu.Lock()
	vs.wstop = true
	var cancel context.CancelFunc
	if vs.wx != nil {
		cancel = vs.wx.cancel
	}
	stop := vs.takeSubLocked()
	vs.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if stop != nil {
		e.do(func() {
			stop()
			vs.endWatch()
		})
	}
}

// dropWatch ends the watch of vs at the shutdown of a program that exits
// once Run returns (Config.ExitAfterRun): a parked subscription is let go
// of without being stopped, the program's exit ending it, and the watch is
// over at once; any other watch is cancelled as cancelWatch does. A later
// failure of the subscription finds none to stop (subscriptionFailed).
func (e *Engine) dropWatch(vs *vstate) {
	if !vs.initMade {
		return
	}
	vs.mu.Lock()
	if vs.subState != subParked {
		vs.mu.Unlock()
		e.cancelWatch(vs)
		return
	}
	vs.wstop = true
	vs.subState, vs.subStop = subNone, nil
	vs.mu.Unlock()
	vs.endWatch()
}

// takeSubLocked returns the stop function of the parked subscription of vs
// and forgets it, or nil when there is none: whoever takes it ends the
// subscription.
func (vs *vstate) takeSubLocked() func() {
	if vs.subState != subParked {
		return nil
	}
	stop := vs.subStop
	vs.subState, vs.subStop = subNone, nil
	return stop
}

// subscriptionFailed is the fail function of the subscriptions of vs. It
// may run under the resource's own locks, so the subscription is stopped,
// and the watch goes on as after a failed Watch, in a new goroutine. A
// failure before Subscribe returned is left to subscribe.
func (vs *vstate) subscriptionFailed(err error) {
	vs.mu.Lock()
	if vs.subState == subStarting {
		if x := vs.watchExtra(); x.early == nil {
			x.early = err
		}
		vs.mu.Unlock()
		return
	}
	stop := vs.takeSubLocked()
	retries := vs.wretries
	vs.mu.Unlock()
	if stop == nil {
		return
	}
	vs.e.goTrack(func() {
		stop()
		vs.e.watchFrom(vs, retries, err, false)
	})
}

// endWatch records that the watch of vs is over.
func (vs *vstate) endWatch() {
	vs.mu.Lock()
	vs.wended = true
	ch := vs.wdone
	vs.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}

// watchDone returns a channel closed once the watch of vs is over.
func (vs *vstate) watchDone() <-chan struct{} {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if vs.wended {
		return closedChan
	}
	if vs.wdone == nil {
		vs.wdone = make(chan struct{})
	}
	return vs.wdone
}
