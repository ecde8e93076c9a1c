package engine

import (
	"context"
	"sync"
	"time"
)

// A checkCtx is the context of one CheckApply: done when its parent (the
// engine's run context, or one with the resource's Meta:timeout) is, or
// when the CheckApply is over (end). context.WithCancel's would register
// with the engine's context, one entry in a map behind one lock for every
// CheckApply of every vertex, and cost three allocations: a checkCtx is
// part of the run's vrun, and registers with its parent only when its Done
// channel is asked for (a file's check only asks Err). It carries no values
// (the engine's context has none), so that context.Cause finds no cause
// of another context's in it.
type checkCtx struct {
	parent context.Context
	mu     sync.Mutex
	done   chan struct{} // made by the first Done; closed once it is over
	err    error         // why it is over; nil until then
	stop   func() bool   // stops the parent's AfterFunc that ends it
}

func (c *checkCtx) Deadline() (time.Time, bool) { return c.parent.Deadline() }

func (c *checkCtx) Value(any) any { return nil }

// Done returns the channel closed when the context is over. The first call
// makes it, and has the end of the parent end the context.
func (c *checkCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		if c.err == nil {
			c.err = c.parentErr()
		}
		if c.err != nil {
			close(c.done)
		} else {
			c.stop = context.AfterFunc(c.parent, func() { c.end(c.parent.Err()) })
		}
	}
	return c.done
}

// Err returns why the context is over, or nil. The end of the parent is
// looked at here, not only when its AfterFunc runs, so that Err is never
// nil once the parent is done.
func (c *checkCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		if err := c.parentErr(); err != nil {
			c.endLocked(err)
		}
	}
	return c.err
}

// parentErr is the parent's error once its Done channel is closed, nil
// before: a closed channel is read without the parent's lock.
func (c *checkCtx) parentErr() error {
	select {
	case <-c.parent.Done():
		return c.parent.Err()
	default:
		return nil
	}
}

// end ends the context with err, unless it is over already.
func (c *checkCtx) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endLocked(err)
}

func (c *checkCtx) endLocked(err error) {
	if c.err != nil {
		return
	}
	c.err = err
	if c.done != nil {
		close(c.done)
	}
	if c.stop != nil {
		c.stop()
		c.stop = nil
	}
}
