package worldpipe

import (
	"context"

	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
)

// A sub is one watch on one child.
type sub struct {
	p  *proc
	id uint64
	w  *waiter
}

// subscribe starts watch r on the child (starting the child if needed).
func (c *Client) subscribe(ctx context.Context, r request) (*sub, error) {
	p, err := c.proc(ctx)
	if err != nil {
		return nil, err
	}
	w := p.register(&r, true)
	if _, err := p.await(ctx, r, w); err != nil {
		return nil, err
	}
	return &sub{p: p, id: r.ID, w: w}, nil
}

// forward passes the watch's notifications to out until ctx ends (the
// child is told to cancel it; nil is returned) or the watch ends
// otherwise: with its child, or ended by the child (an error).
func (s *sub) forward(ctx context.Context, out chan error) error {
	for {
		select {
		case e := <-s.w.events:
			worldapi.Pass(out, e)
		case <-ctx.Done():
			s.p.giveUp(s.id)
			return nil
		case <-s.w.ended:
			return &Error{Msg: "world: the world client process ended a watch", Temp: true}
		case <-s.p.done:
			return s.p.failure()
		}
	}
}

// watch starts watch r and returns its channel of notifications. As
// pkg/world's Lazy does with a world it cannot reach, a watch that cannot
// start for a transient reason (the child is starting again) is still
// returned: it reports each failure, tries again with a Backoff, and
// forwards the watch once started; a watch whose child ends reports it
// and starts again over the next child. A watch that fails for good
// reports its error once. The channel closes when ctx ends.
func (c *Client) watch(ctx context.Context, r request) (<-chan error, error) {
	s, err := c.subscribe(ctx, r)
	if err != nil && !worldapi.Transient(err) {
		return nil, err
	}
	out := make(chan error, 1)
	if err != nil {
		out <- err
	}
	go c.follow(ctx, r, s, out)
	return out, nil
}

// follow runs watch r (s, when started) for watch, until ctx ends.
func (c *Client) follow(ctx context.Context, r request, s *sub, out chan error) {
	defer close(out)
	var b worldapi.Backoff
	for {
		if s != nil {
			err := s.forward(ctx, out)
			if ctx.Err() != nil {
				return
			}
			worldapi.Pass(out, err)
		}
		if !b.Wait(ctx) {
			return
		}
		var err error
		if s, err = c.subscribe(ctx, r); err != nil {
			if ctx.Err() != nil {
				return
			}
			worldapi.Pass(out, err)
			if !worldapi.Transient(err) {
				<-ctx.Done()
				return
			}
		} else {
			b.Reset()
		}
	}
}

// mustWatch is watch for the watches whose failure to start is reported
// on their channel.
func (c *Client) mustWatch(ctx context.Context, r request) <-chan error {
	ch, err := c.watch(ctx, r)
	if err != nil {
		return worldapi.Failed(ctx, err)
	}
	return ch
}
