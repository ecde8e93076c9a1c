package engine

import (
	"context"
	"sync"
)

// A subscription is the watch of a Subscriber vertex while it waits for
// events: no goroutine of the engine runs for it. It ends in one of two
// ways, whichever comes first: the vertex's context ends (a
// context.AfterFunc stops it and closes watchDone), or the resource
// reports a broken watch (fail: a new goroutine stops it and goes on as
// after a failed Watch).
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
	context.AfterFunc(ctx, func() {
		if s.take() {
			s.stop()
			close(vs.watchDone)
		}
	})
	return true, nil
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
