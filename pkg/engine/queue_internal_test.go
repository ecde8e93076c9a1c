package engine

import "testing"

// TestQueuesLetGoOfBursts: a fifo emptied after a burst (the first run of
// a large graph) and the inbox of a converged engine keep no large array,
// and keep a small one for reuse.
func TestQueuesLetGoOfBursts(t *testing.T) {
	for _, n := range []int{10, 5000} {
		var f fifo
		vs := &vstate{}
		for range n {
			f.push(vs)
		}
		for f.len() > 0 {
			f.pop()
		}
		if kept := f.q != nil; kept != (n <= idleQueue) {
			t.Errorf("fifo of %d emptied: array kept %v (cap %d)", n, kept, cap(f.q))
		}
	}
	for _, c := range []struct {
		inbox, spare int // capacities
		queued       bool
	}{
		{10, 10, false},
		{5000, 8192, false},
		{5000, 10, true},
	} {
		e := &Engine{inbox: make([]msg, 0, c.inbox)}
		if c.queued {
			e.inbox = append(e.inbox, msg{kind: msgEvent})
		}
		spare := e.trimInbox(make([]msg, 0, c.spare))
		if want := c.spare <= idleInbox; (spare != nil) != want {
			t.Errorf("%+v: spare kept %v, want %v", c, spare != nil, want)
		}
		if want := c.inbox <= idleInbox || c.queued; (e.inbox != nil) != want {
			t.Errorf("%+v: inbox kept %v, want %v", c, e.inbox != nil, want)
		}
		if c.queued && len(e.inbox) != 1 {
			t.Errorf("%+v: the queued message is lost", c)
		}
	}
}
