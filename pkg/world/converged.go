package world

import (
	"context"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
)

// ConvergedState sums up the converged states of the world (see
// worldapi).
type ConvergedState = worldapi.ConvergedState

// SetConverged records whether this host is converged. The entry lives on
// this host's lease and vanishes when the host goes away.
func (c *Client) SetConverged(ctx context.Context, converged bool) error {
	lease, err := c.hostLease(ctx)
	if err != nil {
		return err
	}
	v := "false"
	if converged {
		v = "true"
	}
	octx, cancel := opContext(ctx)
	defer cancel()
	r, err := c.cli.Put(octx, c.ns+convergedDir+c.hostname, v, clientv3.WithLease(lease))
	if err != nil {
		return err
	}
	c.convRev.Store(r.Header.Revision)
	return nil
}

// convergedTree returns the client's tree of the converged states,
// starting it on first use: one entry per host, grouped by state ("true"
// or "false"), so that the number of hosts in each state is the size of
// a group.
func (c *Client) convergedTree() *tree[struct{}] {
	return startTree(c, &c.conv, convergedDir, "converged", func(kv *mvccpb.KeyValue) (string, struct{}, bool) {
		host := strings.TrimPrefix(string(kv.Key), c.ns+convergedDir)
		if host == "" || strings.Contains(host, "/") {
			return "", struct{}{}, false
		}
		if string(kv.Value) == "true" {
			return "true", struct{}{}, true
		}
		return "false", struct{}{}, true
	})
}

// Converged returns the converged state of every host that records one.
// It reflects every write committed before the call.
func (c *Client) Converged(ctx context.Context) (map[string]bool, error) {
	x := c.convergedTree()
	if err := x.await(ctx); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	x.view(func(keys map[string]string, _ map[string]map[string]struct{}) {
		for k, g := range keys {
			out[strings.TrimPrefix(k, c.ns+convergedDir)] = g == "true"
		}
	})
	return out, nil
}

// ConvergedState returns how many hosts record a converged state, how
// many of them are converged, and this host's. While the client's tree of
// the converged states follows its watch the answer comes from it without
// a request: it reflects at least every change ConvergedWatch notified
// before the call, and this client's last SetConverged (it waits for the
// watch to bring it, so that a host comparing its entry with what it
// wrote sees no difference that is not there). Otherwise (the first call,
// or the watch broke) it reflects every write committed before the call.
func (c *Client) ConvergedState(ctx context.Context) (ConvergedState, error) {
	x := c.convergedTree()
	var st ConvergedState
	if err := x.current(ctx, c.convRev.Load()); err != nil {
		return st, err
	}
	x.view(func(keys map[string]string, groups map[string]map[string]struct{}) {
		st.Converged = len(groups["true"])
		st.Hosts = st.Converged + len(groups["false"])
		g, ok := keys[c.ns+convergedDir+c.hostname]
		st.Recorded, st.Self = ok, g == "true"
	})
	return st, nil
}

// ConvergedWatch notifies when any host's converged state changes.
func (c *Client) ConvergedWatch(ctx context.Context) <-chan error {
	return c.convergedTree().subscribe(ctx, "", true)
}

// AllConverged reports whether every recorded host, and at least one, is
// converged (see worldapi.AllConverged).
func AllConverged(m map[string]bool) bool { return worldapi.AllConverged(m) }

// ClusterConverged publishes this host's converged state and reports when
// the whole world is converged (see worldapi.ClusterConverged).
func ClusterConverged(ctx context.Context, w ConvergedWorld, local func() bool, timeout, interval time.Duration, logf func(string, ...any)) <-chan struct{} {
	return worldapi.ClusterConverged(ctx, w, local, timeout, interval, logf)
}
