package world

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"sort"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// A volunteer is one host's entry in a namespace.
type volunteer struct {
	host string
	rev  int64 // creation revision: the order of arrival
	opts SchedOpts
}

// SchedulerAdd makes this host volunteer for namespace ns. The entry lives
// on this host's lease, so it vanishes when the host dies or closes.
func (c *Client) SchedulerAdd(ctx context.Context, ns string, opts SchedOpts) error {
	if err := checkKey(ns); err != nil {
		return err
	}
	if err := opts.Validate(); err != nil {
		return err
	}
	var put []clientv3.OpOption
	switch {
	case opts.Persist:
	case opts.TTL > 0:
		lease, err := c.schedLease(ctx, ns, opts.TTL)
		if err != nil {
			return err
		}
		put = append(put, clientv3.WithLease(lease))
	default:
		lease, err := c.hostLease(ctx)
		if err != nil {
			return err
		}
		put = append(put, clientv3.WithLease(lease))
	}
	b, _ := json.Marshal(opts)
	octx, cancel := opContext(ctx)
	defer cancel()
	if _, err := c.cli.Put(octx, c.schedHostKey(c.hostname, ns), string(b), put...); err != nil {
		return err
	}
	if opts.TTL == 0 {
		// The entry no longer needs a lease of its own; dropping the
		// keep alive is enough (the key is on another lease now).
		c.stopSchedLease(ns, false)
	}
	return c.storeSchedule(ctx, ns)
}

// SchedulerWithdraw removes this host from namespace ns.
func (c *Client) SchedulerWithdraw(ctx context.Context, ns string) error {
	if err := checkKey(ns); err != nil {
		return err
	}
	if _, err := c.Delete(ctx, c.schedHostKey(c.hostname, ns)); err != nil {
		return err
	}
	c.stopSchedLease(ns, true)
	return c.storeSchedule(ctx, ns)
}

// SchedulerRelease stops keeping this host's entry of namespace ns alive
// without removing it: an entry with a TTL expires that long after, a
// persistent one stays, one on the host's lease stays while the host
// runs. Close does the same for every entry.
func (c *Client) SchedulerRelease(ns string) {
	c.stopSchedLease(ns, false)
}

// A schedLease is the lease of this host's entry of one namespace with a
// TTL, and the end of its keep alive.
type schedLease struct {
	id   clientv3.LeaseID
	ttl  int
	stop context.CancelFunc
	done chan struct{} // closed when the keep alive's drain ended
}

// schedLease returns the lease of this host's entry of ns with ttl
// seconds to live, granting it and starting its keep alive unless one
// with that TTL runs.
func (c *Client) schedLease(ctx context.Context, ns string, ttl int) (clientv3.LeaseID, error) {
	c.mu.Lock()
	if l := c.schedLeases[ns]; l != nil && l.ttl == ttl {
		select {
		case <-l.done:
		default:
			c.mu.Unlock()
			return l.id, nil
		}
	}
	c.mu.Unlock()
	id, stop, ch, err := c.grantKept(ctx, int64(ttl))
	if err != nil {
		return 0, err
	}
	l := &schedLease{id: id, ttl: ttl, stop: stop, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		for range ch {
		}
	}()
	c.mu.Lock()
	old := c.schedLeases[ns]
	if c.schedLeases == nil {
		c.schedLeases = map[string]*schedLease{}
	}
	c.schedLeases[ns] = l
	c.mu.Unlock()
	if old != nil {
		old.stop()
		<-old.done
	}
	return id, nil
}

// stopSchedLease ends the keep alive of the lease of ns, if any, and
// waits for it; with revoke the lease is revoked too (its key was
// deleted).
func (c *Client) stopSchedLease(ns string, revoke bool) {
	c.mu.Lock()
	l := c.schedLeases[ns]
	delete(c.schedLeases, ns)
	c.mu.Unlock()
	if l == nil {
		return
	}
	l.stop()
	<-l.done
	if revoke {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c.cli.Revoke(ctx, l.id)
		cancel()
	}
}

// SchedulerVolunteering reports whether this host volunteers for ns, and
// with which options.
func (c *Client) SchedulerVolunteering(ctx context.Context, ns string) (SchedOpts, bool, error) {
	var opts SchedOpts
	if err := checkKey(ns); err != nil {
		return opts, false, err
	}
	v, ok, err := c.Get(ctx, c.schedHostKey(c.hostname, ns))
	if ok {
		json.Unmarshal([]byte(v), &opts)
	}
	return opts, ok, err
}

// storeSchedule records the current schedule of ns for inspection.
func (c *Client) storeSchedule(ctx context.Context, ns string) error {
	hosts, err := c.Schedule(ctx, ns)
	if err != nil {
		return err
	}
	return c.Put(ctx, c.ns+schedDir+ns, strings.Join(hosts, ","))
}

// volunteers returns the client's tree of the scheduler's volunteers,
// starting it on first use: every host's entry of every namespace,
// options decoded once, grouped by namespace.
func (c *Client) volunteers() *tree[volunteer] {
	return startTree(c, &c.sched, schedHostDir, "scheduler", func(kv *mvccpb.KeyValue) (string, volunteer, bool) {
		host, ns, ok := strings.Cut(strings.TrimPrefix(string(kv.Key), c.ns+schedHostDir), "/")
		if !ok {
			return "", volunteer{}, false
		}
		v := volunteer{host: host, rev: kv.CreateRevision}
		json.Unmarshal(kv.Value, &v.opts) // bad options fall back to defaults
		return ns, v, true
	})
}

// Schedule returns the hosts chosen for namespace ns, in the order of the
// strategy. It reflects every write committed before the call, read from
// the client's tree of the volunteers.
func (c *Client) Schedule(ctx context.Context, ns string) ([]string, error) {
	if err := checkKey(ns); err != nil {
		return nil, err
	}
	x := c.volunteers()
	if err := x.await(ctx); err != nil {
		return nil, err
	}
	var vs []volunteer
	x.view(func(_ map[string]string, groups map[string]map[string]volunteer) {
		for _, v := range groups[ns] {
			vs = append(vs, v)
		}
	})
	return choose(ns, vs), nil
}

// ScheduleWatch notifies when the schedule of ns may have changed: when a
// volunteer of ns comes, goes or changes its options (the volunteers of
// other namespaces wake nobody here).
func (c *Client) ScheduleWatch(ctx context.Context, ns string) (<-chan error, error) {
	if err := checkKey(ns); err != nil {
		return nil, err
	}
	return c.volunteers().subscribe(ctx, ns, false), nil
}

// choose applies the strategy of the earliest volunteer to vs.
func choose(ns string, vs []volunteer) []string {
	if len(vs) == 0 {
		return []string{}
	}
	sort.Slice(vs, func(i, j int) bool {
		if vs[i].rev != vs[j].rev {
			return vs[i].rev < vs[j].rev
		}
		return vs[i].host < vs[j].host
	})
	opts := vs[0].opts
	switch opts.Strategy {
	case StrategyAlpha:
		sort.Slice(vs, func(i, j int) bool { return vs[i].host < vs[j].host })
	case StrategyHash:
		sum := func(h string) uint64 {
			f := fnv.New64a()
			f.Write([]byte(ns + "\x00" + h))
			return f.Sum64()
		}
		sort.Slice(vs, func(i, j int) bool {
			a, b := sum(vs[i].host), sum(vs[j].host)
			if a != b {
				return a < b
			}
			return vs[i].host < vs[j].host
		})
	}
	if opts.Max > 0 && len(vs) > opts.Max {
		vs = vs[:opts.Max]
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.host
	}
	return out
}

func (c *Client) schedHostKey(host, ns string) string {
	return c.ns + schedHostDir + host + "/" + ns
}
