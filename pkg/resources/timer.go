package resources

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("timer", func() engine.Res { return &TimerRes{} })
}

// TimerRes ticks every Interval seconds, counted from its Init. The first
// CheckApply after a tick (or on a refresh) reports a change, which sends a
// refresh along its notify edges. The ticks are a schedule, not Watch
// events: under Meta:poll, each poll that comes after a tick sees it.
type TimerRes struct {
	traits.Base
	traits.Refreshable

	init *engine.Init

	// Interval is the period in seconds.
	Interval uint32 `lang:"interval" yaml:"interval"`

	start time.Time
	seen  atomic.Int64 // the last tick a CheckApply consumed
}

// tick returns the number of whole intervals since start.
func (obj *TimerRes) tick(now time.Time) int64 {
	return int64(now.Sub(obj.start) / (time.Duration(obj.Interval) * time.Second))
}

// Default returns a timer resource.
func (obj *TimerRes) Default() engine.Res { return &TimerRes{} }

// Validate requires a positive interval.
func (obj *TimerRes) Validate() error {
	if obj.Interval == 0 {
		return fmt.Errorf("interval must be at least 1 second")
	}
	return nil
}

// Init keeps the handle and starts the schedule.
func (obj *TimerRes) Init(init *engine.Init) error {
	obj.init = init
	obj.start = time.Now()
	return nil
}

// Cleanup does nothing.
func (obj *TimerRes) Cleanup() error { return nil }

// Watch sends an event at each tick until ctx is done. A timer never
// fires early, so the CheckApply that follows sees the tick.
func (obj *TimerRes) Watch(ctx context.Context) error {
	iv := time.Duration(obj.Interval) * time.Second
	t := time.NewTimer(time.Until(obj.start.Add(iv * time.Duration(obj.tick(time.Now())+1))))
	defer t.Stop()
	obj.init.Running()
	for {
		select {
		case now := <-t.C:
			obj.init.Event()
			t.Reset(time.Until(obj.start.Add(iv * time.Duration(obj.tick(now)+1))))
		case <-ctx.Done():
			return nil
		}
	}
}

// CheckApply reports a change once per tick that came since the last
// apply (ticks missed while busy are coalesced), and on a refresh.
func (obj *TimerRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	refresh := obj.init != nil && obj.init.Refresh()
	now := obj.tick(time.Now())
	if now <= obj.seen.Load() && !refresh {
		return true, nil
	}
	if !apply {
		return false, nil
	}
	obj.seen.Store(now)
	return false, nil
}

// Cmp compares two timers.
func (obj *TimerRes) Cmp(r engine.Res) error {
	res, ok := r.(*TimerRes)
	if !ok {
		return fmt.Errorf("not a %T", obj)
	}
	if obj.Interval != res.Interval {
		return fmt.Errorf("the interval differs")
	}
	return nil
}
