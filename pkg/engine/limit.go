package engine

import (
	"context"
	"errors"
	"strings"
	"time"
)

// DefaultLimitPoll is how often a resource is polled while a kernel limit
// keeps its Watch from starting.
const DefaultLimitPoll = 10 * time.Second

// watchLimit returns the limit that kept a Watch from starting, named by
// err's WatchLimit method (the file watcher's errors for the inotify
// limits have one), or "" for any other error.
func watchLimit(err error) string {
	var le interface{ WatchLimit() string }
	if err != nil && errors.As(err, &le) {
		return le.WatchLimit()
	}
	return ""
}

// pollForLimit stands in for the Watch of vs while a kernel limit keeps it
// from starting: the resource is checked at once and every LimitPoll, and
// before each poll its Watch is tried again. It returns once that Watch
// returns anything but a limit error (nil when it ran until ctx ended), so
// the resource goes back to watching as soon as it can.
func (e *Engine) pollForLimit(ctx context.Context, vs *vstate, err error) error {
	tk := time.NewTicker(e.cfg.LimitPoll)
	defer tk.Stop()
	for {
		e.post(msg{kind: msgPolling, vs: vs, err: err})
		select {
		case <-ctx.Done():
			return nil
		case <-tk.C:
		}
		err = e.watchOnce(ctx, vs)
		if ctx.Err() != nil || watchLimit(err) == "" {
			return err
		}
	}
}

// pollingFor marks vs polled for the limit err names, and logs the first
// resource stopped by each limit, with what to raise.
func (s *sched) pollingFor(vs *vstate, err error) {
	vs.polled = true
	limit := watchLimit(err)
	vs.extra().limit = limit
	if s.limitSeen[limit] {
		return
	}
	s.limitSeen[limit] = true
	raise := limit
	if strings.HasPrefix(raise, "fs.") {
		raise = "the sysctl " + raise
	}
	s.e.warnf("%s", errorAt(vs, "watch cannot start: %v; polled every %s instead until it can (raise %s; further resources stopped by it are polled without a message)",
		err, s.e.cfg.LimitPoll, raise))
}

// watchingAgain notes that the Watch of a polled vs started after all.
func (s *sched) watchingAgain(vs *vstate) {
	vs.polled = false
	if limit := vs.extra().limit; s.limitSeen[limit] {
		delete(s.limitSeen, limit)
		s.e.logf("%s: watching again (%s no longer reached); other polled resources follow as they can", vs.v.key, limit)
	}
}
