package world

import (
	"context"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// watch follows key (a prefix when prefix is true) and returns a channel of
// coalesced notifications: nil once the watch is established and after
// every change, an error when the watch broke (it is then re-established
// after a short pause). The channel closes when ctx is done.
func (c *Client) watch(ctx context.Context, key string, prefix bool) <-chan error {
	out := make(chan error, 1)
	go func() {
		defer close(out)
		opts := []clientv3.OpOption{clientv3.WithCreatedNotify()}
		if prefix {
			opts = append(opts, clientv3.WithPrefix())
		}
		for ctx.Err() == nil {
			wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
			err := c.follow(wctx, out, key, opts)
			cancel()
			if ctx.Err() != nil {
				return
			}
			select {
			case out <- err:
			case <-ctx.Done():
				return
			}
			select {
			case <-time.After(500 * time.Millisecond):
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// follow runs one etcd watch until it breaks, notifying out on each
// response. It returns why the watch ended.
func (c *Client) follow(ctx context.Context, out chan error, key string, opts []clientv3.OpOption) error {
	for resp := range c.cli.Watch(ctx, key, opts...) {
		if err := resp.Err(); err != nil {
			return err
		}
		if !resp.Created && len(resp.Events) == 0 {
			continue // progress notification
		}
		notify(out)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return errWatchClosed
}

// notify sends a nil notification unless one is already pending.
func notify(out chan error) {
	select {
	case out <- nil:
	default:
	}
}

type watchError string

func (e watchError) Error() string { return string(e) }

// Transient reports that a closed watch is worth opening again.
func (e watchError) Transient() bool { return true }

const errWatchClosed = watchError("watch closed by the cluster")
