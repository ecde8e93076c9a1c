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

// TimerRes ticks every Interval seconds. Each tick makes its CheckApply
// report a change, which sends a refresh along its notify edges.
type TimerRes struct {
	traits.Base
	traits.Refreshable

	init *engine.Init

	// Interval is the period in seconds.
	Interval uint32 `lang:"interval" yaml:"interval"`

	ticked atomic.Bool
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

// Init keeps the handle.
func (obj *TimerRes) Init(init *engine.Init) error {
	obj.init = init
	return nil
}

// Cleanup does nothing.
func (obj *TimerRes) Cleanup() error { return nil }

// Watch ticks until ctx is done.
func (obj *TimerRes) Watch(ctx context.Context) error {
	t := time.NewTicker(time.Duration(obj.Interval) * time.Second)
	defer t.Stop()
	obj.init.Running()
	for {
		select {
		case <-t.C:
			obj.ticked.Store(true)
			obj.init.Event()
		case <-ctx.Done():
			return nil
		}
	}
}

// CheckApply reports a change after each tick (and on a refresh).
func (obj *TimerRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	refresh := obj.init != nil && obj.init.Refresh != nil && obj.init.Refresh()
	if !obj.ticked.Load() && !refresh {
		return true, nil
	}
	if !apply {
		return false, nil
	}
	obj.ticked.Store(false)
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
