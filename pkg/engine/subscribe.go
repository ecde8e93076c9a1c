package engine

import (
	"context"
	"sync"
)

// A subscription is the watch of a Subscriber vertex while it waits for
// events: no goroutine of the engine runs for it, and nothing but the
// subscription itself is kept for it (a context.AfterFunc would cost
// several objects per vertex). It ends in one of two ways, whichever
// comes first: the vertex's watch is cancelled (cancelWatch stops it and
// closes watchDone), or the resource reports a broken watch (fail: a new
// goroutine stops it and goes on as after a failed Watch).
type subscription struct {
	mu    sync.Mutex
	stop  func() // nil until Subscribe returned
	early error  // a failure reported before Subscribe returned
	ended bool   // one of the two ends took over
}

// subscribe starts the watch of vs through Subscribe when vs is a
// Subscriber that is not polled. parked reports that the subscription now
// owns the watch (and vs.watchDone); otherwise err, if any, is a failure to
// handle as a failed Watch, and a nil err with parked false means vs is no
// Subscriber.
func (e *Engine) subscribe(ctx context.Context, vs *vstate, retries int16) (parked bool, err error) {
	sub, ok := vs.res.(Subscriber)
	if !ok || vs.meta.Poll != 0 {
		return false, nil
	}
	s := &subscription{}
	var stop func()
	err = safely(func() error {
		var err error
		stop, err = sub.Subscribe(func(err error) { e.subscriptionFailed(ctx, vs, s, retries, err) })
		return err
	})
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	s.stop = stop
	if s.early != nil {
		s.ended = true
		s.mu.Unlock()
		stop()
		return false, s.early
	}
	s.mu.Unlock()
	e.post(msg{kind: msgRunning, vs: vs})
	// Either cancelWatch finds the subscription, or the subscription
	// finds the context already cancelled: one of the two ends it.
	vs.sub.Store(s)
	if ctx.Err() != nil {
		e.endSubscription(vs)
	}
	return true, nil
}

// cancelWatch cancels the watch of vs: its context, and its subscription
// when it has one.
func (e *Engine) cancelWatch(vs *vstate) {
	if vs.cancel == nil {
		return
	}
	vs.cancel()
	e.endSubscription(vs)
}

// endSubscription stops the subscription of vs, if it has one that has not
// ended, in a new goroutine (stopping may wait for the resource's locks),
// and then closes watchDone.
func (e *Engine) endSubscription(vs *vstate) {
	s := vs.sub.Load()
	if s == nil || !s.take() {
		return
	}
	e.goTrack(func() {
		s.stop()
		close(vs.watchDone)
	})
}

// take reports whether the caller is the first to end s.
func (s *subscription) take() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return false
	}
	s.ended = true
	return true
}

// subscriptionFailed handles the fail call of a subscription. It may run
// under the resource's own locks, so the subscription is stopped, and the
// watch goes on, in a new goroutine.
func (e *Engine) subscriptionFailed(ctx context.Context, vs *vstate, s *subscription, retries int16, err error) {
	s.mu.Lock()
	if s.stop == nil {
		if s.early == nil {
			s.early = err
		}
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	if !s.take() {
		return
	}
	e.goTrack(func() {
		s.stop()
		e.watchFrom(ctx, vs, retries, err)
	})
}
