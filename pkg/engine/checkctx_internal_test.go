package engine

import (
	"context"
	"errors"
	"testing"
	"time"
)

// waitClosed fails t unless ch is closed within a minute.
func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		t.Fatalf("%s: not closed", what)
	}
}

// TestCheckCtxEnd: a check's context is over once ended, with Canceled,
// its Done channel closed whether made before or after, and a context
// made from it ends with it.
func TestCheckCtxEnd(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &checkCtx{parent: parent}
	if err := c.Err(); err != nil {
		t.Fatalf("a new context: %v", err)
	}
	child, cancelChild := context.WithCancel(c)
	defer cancelChild()
	done := c.Done()
	c.end(context.Canceled)
	waitClosed(t, done, "Done made before the end")
	waitClosed(t, c.Done(), "Done after the end")
	waitClosed(t, child.Done(), "a context made from it")
	if !errors.Is(c.Err(), context.Canceled) || !errors.Is(child.Err(), context.Canceled) {
		t.Errorf("errors %v and %v, want Canceled", c.Err(), child.Err())
	}
	c.end(context.DeadlineExceeded) // a second end changes nothing
	if c.Err() != context.Canceled {
		t.Errorf("after a second end: %v", c.Err())
	}
	if parent.Err() != nil {
		t.Error("the end of a check ended its parent")
	}
}

// TestCheckCtxParent: the end of the parent ends the context, seen by Err
// at once, whether or not Done was asked for, and with the parent's error
// (a Meta:timeout's DeadlineExceeded).
func TestCheckCtxParent(t *testing.T) {
	for _, early := range []bool{false, true} {
		parent, cancel := context.WithCancel(context.Background())
		c := &checkCtx{parent: parent}
		var done <-chan struct{}
		if early {
			done = c.Done()
		}
		cancel()
		if !errors.Is(c.Err(), context.Canceled) {
			t.Errorf("early Done %v: Err %v once the parent ended", early, c.Err())
		}
		if !early {
			done = c.Done()
		}
		waitClosed(t, done, "Done once the parent ended")
	}
	deadline := time.Now().Add(10 * time.Millisecond)
	parent, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	c := &checkCtx{parent: parent}
	if d, ok := c.Deadline(); !ok || !d.Equal(deadline) {
		t.Errorf("Deadline %v %v, want the parent's %v", d, ok, deadline)
	}
	waitClosed(t, c.Done(), "Done at the parent's deadline")
	if c.Err() != context.DeadlineExceeded {
		t.Errorf("Err %v, want DeadlineExceeded", c.Err())
	}
}

// TestCheckCtxNoValues: a check's context carries no values, and
// context.Cause gives its own error, not its parent's cause.
func TestCheckCtxNoValues(t *testing.T) {
	type key struct{}
	parent, cancel := context.WithCancelCause(context.WithValue(context.Background(), key{}, 1))
	defer cancel(nil)
	c := &checkCtx{parent: parent}
	if v := c.Value(key{}); v != nil {
		t.Errorf("Value %v, want none", v)
	}
	c.end(context.Canceled)
	if err := context.Cause(c); err != context.Canceled {
		t.Errorf("Cause %v, want Canceled", err)
	}
}

// TestCheckCtxAllocs: a check that only asks Err allocates nothing for
// its context.
func TestCheckCtxAllocs(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	parent.Done() // the engine's context has its channel made
	var run vrun
	allocs := testing.AllocsPerRun(100, func() {
		run.ctx = checkCtx{parent: parent}
		if run.ctx.Err() != nil {
			t.Fatal("over")
		}
		run.end()
	})
	if allocs != 0 {
		t.Errorf("%v allocations per check", allocs)
	}
}
