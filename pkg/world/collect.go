package world

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/metadata"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// An exportCache holds, for one Client, the exported resources addressed
// to its host or to every host, decoded, and follows the exports tree with
// a single etcd watch: the tree is read once, then each change applies
// only the keys it touched. Without it, every collecting host read the
// whole tree (one key per exporting host and receiver) each time any key
// changed, which costs on the order of hosts³ across a world where every
// host exports to every other one.
//
// Its goroutine starts with the first ResCollect or ResWatch and is
// joined by Client.Close.
type exportCache struct {
	c      *Client
	prefix string

	mu      sync.Mutex
	rev     int64                // the revision entries reflect; 0 before the first read
	entries map[string]*Exported // by key
	wctx    context.Context      // the current watch's, for progress requests
	grew    chan struct{}        // closed and replaced whenever rev advances
	subs    map[*exportSub]bool
	stop    context.CancelFunc
	done    chan struct{}
}

// An exportSub is one ResWatch: a channel of coalesced notifications.
type exportSub struct {
	ch chan error
}

// exports returns the client's export cache, starting it on first use.
func (c *Client) exports() *exportCache {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.exp != nil {
		return c.exp
	}
	ctx, stop := context.WithCancel(context.Background())
	x := &exportCache{c: c, prefix: c.ns + exportsDir, entries: map[string]*Exported{},
		grew: make(chan struct{}), subs: map[*exportSub]bool{}, stop: stop, done: make(chan struct{})}
	c.exp = x
	go x.run(ctx)
	return x
}

// close stops the cache's goroutine and waits for it.
func (x *exportCache) close() {
	x.stop()
	<-x.done
}

// run reads the tree and follows it until ctx ends, starting again from a
// fresh read (after a pause growing with repeated failures) whenever the
// watch breaks: a member lost, or history compacted past the cache's
// revision.
func (x *exportCache) run(ctx context.Context) {
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

// follow reads the tree at one revision, then applies the watch's events
// from the next revision on, until the watch breaks. reset is called once
// the read succeeded.
func (x *exportCache) follow(ctx context.Context, reset func()) error {
	octx, cancel := opContext(ctx)
	r, err := x.c.cli.Get(octx, x.prefix, clientv3.WithPrefix())
	cancel()
	if err != nil {
		return err
	}
	reset()
	entries := make(map[string]*Exported)
	for _, kv := range r.Kvs {
		if e := x.c.parseExport(string(kv.Key), string(kv.Value)); e != nil {
			entries[e.Key] = e
		}
	}
	// A stream of its own: progress requests (see await) then concern
	// this watch only.
	wctx, wcancel := context.WithCancel(metadata.AppendToOutgoingContext(clientv3.WithRequireLeader(ctx), "mgmt-watch", "exports"))
	defer wcancel()
	x.mu.Lock()
	x.entries, x.wctx = entries, wctx
	x.notifyLocked(nil)
	x.advance(r.Header.Revision)
	x.mu.Unlock()
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

// apply applies one watch response, and notifies the subscribers when an
// entry of this host changed (before the revision advances, so that a
// ResCollect that sees the change finds its notification queued).
func (x *exportCache) apply(resp clientv3.WatchResponse) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if resp.Created {
		return // its revision may run ahead of events still to come
	}
	changed := false
	rev := resp.Header.Revision // a progress notification: nothing before it is pending
	for _, ev := range resp.Events {
		k := string(ev.Kv.Key)
		if ev.Type == clientv3.EventTypeDelete {
			if _, ok := x.entries[k]; ok {
				delete(x.entries, k)
				changed = true
			}
		} else if e := x.c.parseExport(k, string(ev.Kv.Value)); e != nil {
			x.entries[k] = e
			changed = true
		}
		rev = ev.Kv.ModRevision
	}
	if changed {
		x.notifyLocked(nil)
	}
	x.advance(rev)
}

// advance records that the entries reflect rev; x.mu is held.
func (x *exportCache) advance(rev int64) {
	if rev > x.rev {
		x.rev = rev
		close(x.grew)
		x.grew = make(chan struct{})
	}
}

// parseExport returns the entry of the key k with value v, or nil when it
// is not an exported resource addressed to this host or to every host.
func (c *Client) parseExport(k, v string) *Exported {
	from, to, kind, name, ok := parseExportKey(strings.TrimPrefix(k, c.ns+exportsDir))
	if !ok || (to != c.hostname && to != ExportAll) {
		return nil
	}
	e := &Exported{From: from, To: to, Key: k, Res: &graph.Resource{Kind: kind, Name: name}}
	if r, err := decodeExported(kind, name, v); err != nil {
		e.Err = err
	} else {
		e.Res = r
	}
	return e
}

// notify sends err (nil: something changed) to every subscriber, coalesced
// with a notification still pending.
func (x *exportCache) notify(err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.notifyLocked(err)
}

// notifyLocked is notify with x.mu held.
func (x *exportCache) notifyLocked(err error) {
	for s := range x.subs {
		select {
		case s.ch <- err:
		default:
		}
	}
}

// subscribe returns a channel notified as ResWatch describes, closed when
// ctx ends.
func (x *exportCache) subscribe(ctx context.Context) <-chan error {
	s := &exportSub{ch: make(chan error, 1)}
	x.mu.Lock()
	x.subs[s] = true
	if x.rev > 0 {
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
// before the call (a linearizable read of the current revision), asking
// the watch for progress notifications while it lags.
func (x *exportCache) await(ctx context.Context) error {
	ctx, cancel := opContext(ctx)
	defer cancel()
	r, err := x.c.cli.Get(ctx, x.prefix, clientv3.WithCountOnly())
	if err != nil {
		return err
	}
	want := r.Header.Revision
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
			return fmt.Errorf("the exported resources seen at revision %d, not yet at %d: %w", rev, want, ctx.Err())
		}
	}
}

// collect returns the entries of kind ("" for any), one per exporting
// host, kind and name (the copy addressed to this host wins over the one
// to every host), sorted by kind, name and exporting host.
func (x *exportCache) collect(kind string) []*Exported {
	x.mu.Lock()
	byID := map[string]*Exported{}
	for _, e := range x.entries {
		if kind != "" && e.Res.Kind != kind {
			continue
		}
		id := e.From + "\x00" + e.Res.Kind + "\x00" + e.Res.Name
		if old, dup := byID[id]; dup && old.To != ExportAll {
			continue
		}
		byID[id] = e
	}
	x.mu.Unlock()
	out := make([]*Exported, 0, len(byID))
	for _, e := range byID {
		cp := *e
		out = append(out, &cp)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Res.Kind != b.Res.Kind {
			return a.Res.Kind < b.Res.Kind
		}
		if a.Res.Name != b.Res.Name {
			return a.Res.Name < b.Res.Name
		}
		return a.From < b.From
	})
	return out
}

// ResCollect returns the resources exported to this host (or to every host)
// of the given kind ("" for any kind), sorted by kind, name and exporting
// host. Resources this host exported to itself are included. An entry the
// collecting host must not apply is returned with Err set (see Exported),
// so that the caller can report it; the others are unaffected by it.
//
// The result reflects every write committed before the call. It comes
// from the client's cache of the exports (see exportCache), which the
// first call fills with one read of the whole tree and a watch keeps up to
// date; the resources are shared with the cache and must not be modified.
func (c *Client) ResCollect(ctx context.Context, kind string) ([]*Exported, error) {
	x := c.exports()
	if err := x.await(ctx); err != nil {
		return nil, err
	}
	return x.collect(kind), nil
}

// ResWatch notifies when the resources exported to this host may have
// changed: nil once the exports have been read, and after every change of
// an entry addressed to this host or to every host (changes addressed to
// other hosts wake nobody here); an error when the watch broke (it is then
// read again and followed after a pause). The channel closes when ctx is
// done.
func (c *Client) ResWatch(ctx context.Context) <-chan error {
	return c.exports().subscribe(ctx)
}
