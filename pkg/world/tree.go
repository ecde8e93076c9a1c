package world

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/metadata"
)

// A tree is one sub tree of the world (every key under a prefix) that a
// Client reads once and then follows with a single etcd watch, applying
// each change's keys to the entries it keeps in memory. Without it, every
// host read the whole sub tree each time any key of it changed: H keys, H
// times per round of changes, on H hosts. The exports, the converged
// states, the scheduler's volunteers and the per-host maps are each
// followed by one tree per Client.
//
// parse turns a key and its value into an entry, or says the key is not
// kept (an export addressed to another host). Each entry falls in a group
// (an export's kind, a volunteer's or a map entry's namespace, a host's
// converged state): readers look at one group, and a subscriber is woken
// only by a change of its group (or of any entry, for a subscriber of the
// whole tree).
//
// The tree's goroutine starts with its first use and is joined by
// Client.Close. A broken watch (a member lost, history compacted past the
// tree's revision) is followed by a fresh read of the sub tree, after a
// pause growing with repeated failures.
type tree[T any] struct {
	c      *Client
	prefix string
	tag    string // names the watch's stream
	parse  func(kv *mvccpb.KeyValue) (group string, v T, ok bool)

	mu     sync.Mutex
	rev    int64                   // the revision the entries reflect; 0 before the first read
	live   bool                    // the entries follow the watch (false before the first read and while a broken watch is read again)
	keys   map[string]string       // the group of each kept key
	groups map[string]map[string]T // the entries of each group, by key
	wctx   context.Context         // the current watch's, for progress requests
	grew   chan struct{}           // closed and replaced whenever rev advances
	subs   map[*treeSub]bool
	closed error // set when started on a closed client: it never runs
	stop   context.CancelFunc
	done   chan struct{}
}

// A treeSub is one subscriber: a channel of coalesced notifications of
// the changes of one group, or of every group.
type treeSub struct {
	group string
	all   bool
	ch    chan error
}

// startTree returns the tree of *field, starting it under c's lock on
// first use: it follows the keys under c.ns+dir.
func startTree[T any](c *Client, field **tree[T], dir, tag string, parse func(*mvccpb.KeyValue) (string, T, bool)) *tree[T] {
	c.mu.Lock()
	defer c.mu.Unlock()
	if *field != nil {
		return *field
	}
	ctx, stop := context.WithCancel(context.Background())
	x := &tree[T]{c: c, prefix: c.ns + dir, tag: tag, parse: parse,
		keys: map[string]string{}, groups: map[string]map[string]T{},
		grew: make(chan struct{}), subs: map[*treeSub]bool{}, stop: stop, done: make(chan struct{})}
	*field = x
	if c.closed {
		// Its reads fail at once; its subscribers learn why.
		x.closed = errClientClosed
		close(x.done)
		return x
	}
	c.trees = append(c.trees, x.close)
	go x.run(ctx)
	return x
}

// errClientClosed is not transient: a closed client stays closed.
var errClientClosed = errors.New("the world client is closed")

// close stops the tree's goroutine and waits for it.
func (x *tree[T]) close() {
	x.stop()
	<-x.done
}

// run reads the sub tree and follows it until ctx ends, starting again
// from a fresh read whenever the watch breaks.
func (x *tree[T]) run(ctx context.Context) {
	defer close(x.done)
	var b Backoff
	for {
		err := x.follow(ctx, b.Reset)
		if ctx.Err() != nil {
			return
		}
		x.notify(err)
		if !b.Wait(ctx) {
			return
		}
	}
}

// follow reads the sub tree at one revision, then applies the watch's
// events from the next revision on, until the watch breaks. reset is
// called once the read succeeded.
func (x *tree[T]) follow(ctx context.Context, reset func()) error {
	octx, cancel := opContext(ctx)
	r, err := x.c.cli.Get(octx, x.prefix, clientv3.WithPrefix())
	cancel()
	if err != nil {
		return err
	}
	reset()
	keys, groups := map[string]string{}, map[string]map[string]T{}
	for _, kv := range r.Kvs {
		if g, v, ok := x.parse(kv); ok {
			keys[string(kv.Key)] = g
			setEntry(groups, g, string(kv.Key), v)
		}
	}
	// A stream of its own: progress requests (see await) then concern
	// this watch only.
	wctx, wcancel := context.WithCancel(metadata.AppendToOutgoingContext(clientv3.WithRequireLeader(ctx), "mgmt-watch", x.tag))
	defer wcancel()
	x.mu.Lock()
	x.keys, x.groups, x.wctx, x.live = keys, groups, wctx, true
	x.notifyLocked(nil, nil)
	x.advance(r.Header.Revision)
	x.mu.Unlock()
	defer func() {
		x.mu.Lock()
		x.live = false
		x.mu.Unlock()
	}()
	for resp := range x.c.cli.Watch(wctx, x.prefix, clientv3.WithPrefix(), clientv3.WithRev(r.Header.Revision+1)) {
		if err := resp.Err(); err != nil {
			return err
		}
		x.apply(resp)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return errWatchClosed
}

// setEntry files v under key in group g.
func setEntry[T any](groups map[string]map[string]T, g, key string, v T) {
	m := groups[g]
	if m == nil {
		m = map[string]T{}
		groups[g] = m
	}
	m[key] = v
}

// apply applies one watch response, and notifies the subscribers of the
// groups whose entries changed (before the revision advances, so that a
// reader that sees the change finds its notification queued).
func (x *tree[T]) apply(resp clientv3.WatchResponse) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if resp.Created {
		return // its revision may run ahead of events still to come
	}
	var changed []string
	rev := resp.Header.Revision // a progress notification: nothing before it is pending
	for _, ev := range resp.Events {
		k := string(ev.Kv.Key)
		if g, ok := x.keys[k]; ok {
			delete(x.keys, k)
			if delete(x.groups[g], k); len(x.groups[g]) == 0 {
				delete(x.groups, g)
			}
			changed = append(changed, g)
		}
		if ev.Type == clientv3.EventTypePut {
			if g, v, ok := x.parse(ev.Kv); ok {
				x.keys[k] = g
				setEntry(x.groups, g, k, v)
				changed = append(changed, g)
			}
		}
		rev = ev.Kv.ModRevision
	}
	if len(changed) > 0 {
		x.notifyLocked(nil, changed)
	}
	x.advance(rev)
}

// advance records that the entries reflect rev; x.mu is held.
func (x *tree[T]) advance(rev int64) {
	if rev > x.rev {
		x.rev = rev
		close(x.grew)
		x.grew = make(chan struct{})
	}
}

// notify sends err to every subscriber, coalesced with a notification
// still pending.
func (x *tree[T]) notify(err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.notifyLocked(err, nil)
}

// notifyLocked sends err (nil: something changed) to the subscribers of
// the groups changed, or to all of them when changed is nil; x.mu is
// held.
func (x *tree[T]) notifyLocked(err error, changed []string) {
	for s := range x.subs {
		if changed != nil && !s.all && !slices.Contains(changed, s.group) {
			continue
		}
		select {
		case s.ch <- err:
		default:
		}
	}
}

// subscribe returns a channel notified of the changes of group (of every
// group with all): nil once the sub tree has been read (at once if it
// was), after every change, an error when the watch broke. It is closed
// when ctx ends.
func (x *tree[T]) subscribe(ctx context.Context, group string, all bool) <-chan error {
	s := &treeSub{group: group, all: all, ch: make(chan error, 1)}
	x.mu.Lock()
	x.subs[s] = true
	switch {
	case x.closed != nil:
		s.ch <- x.closed
	case x.rev > 0:
		s.ch <- nil // established
	}
	x.mu.Unlock()
	context.AfterFunc(ctx, func() {
		x.mu.Lock()
		delete(x.subs, s)
		close(s.ch)
		x.mu.Unlock()
	})
	return s.ch
}

// await waits until the entries reflect every write the cluster committed
// before the call, asking the watch for progress notifications while it
// lags. The current revision comes from a linearizable read of one key
// (the prefix itself, which holds nothing): its cost does not grow with
// the sub tree.
func (x *tree[T]) await(ctx context.Context) error {
	if x.closed != nil {
		return x.closed
	}
	ctx, cancel := opContext(ctx)
	defer cancel()
	r, err := x.c.cli.Get(ctx, x.prefix, clientv3.WithCountOnly())
	if err != nil {
		return err
	}
	return x.awaitRev(ctx, r.Header.Revision)
}

// awaitRev waits until the entries reflect revision want, asking the
// watch for progress notifications while it lags.
func (x *tree[T]) awaitRev(ctx context.Context, want int64) error {
	for {
		x.mu.Lock()
		rev, grew, wctx := x.rev, x.grew, x.wctx
		x.mu.Unlock()
		if rev >= want {
			return nil
		}
		if wctx != nil {
			x.c.cli.RequestProgress(wctx)
		}
		select {
		case <-grew:
		case <-time.After(time.Second): // ask for progress again
		case <-ctx.Done():
			return fmt.Errorf("%s seen at revision %d, not yet at %d: %w", x.prefix, rev, want, ctx.Err())
		}
	}
}

// current waits, when the entries do not follow the watch (not yet read,
// or read again after the watch broke), until they reflect every write
// committed before the call; while they follow it, it waits only until
// they reflect revision own (this client's last write in the tree, 0 for
// none), without a request, so that a reader woken by a subscription
// reads no key and still sees its own writes.
func (x *tree[T]) current(ctx context.Context, own int64) error {
	x.mu.Lock()
	live := x.live
	x.mu.Unlock()
	if !live {
		return x.await(ctx)
	}
	ctx, cancel := opContext(ctx)
	defer cancel()
	return x.awaitRev(ctx, own)
}

// view calls f with the kept keys' groups and the groups' entries, under
// the tree's lock: f must neither keep nor modify them.
func (x *tree[T]) view(f func(keys map[string]string, groups map[string]map[string]T)) {
	x.mu.Lock()
	defer x.mu.Unlock()
	f(x.keys, x.groups)
}
