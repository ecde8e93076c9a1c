package world

import (
	"context"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
)

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
	_, err = c.cli.Put(octx, c.ns+convergedDir+c.hostname, v, clientv3.WithLease(lease))
	return err
}

// Converged returns the converged state of every host that records one.
func (c *Client) Converged(ctx context.Context) (map[string]bool, error) {
	all, err := c.GetPrefix(ctx, c.ns+convergedDir)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for k, v := range all {
		host := strings.TrimPrefix(k, c.ns+convergedDir)
		if host != "" && !strings.Contains(host, "/") {
			out[host] = v == "true"
		}
	}
	return out, nil
}

// ConvergedWatch notifies when any host's converged state changes.
func (c *Client) ConvergedWatch(ctx context.Context) <-chan error {
	return c.watch(ctx, c.ns+convergedDir, true)
}

// AllConverged reports whether every recorded host, and at least one, is
// converged (see worldapi.AllConverged).
func AllConverged(m map[string]bool) bool { return worldapi.AllConverged(m) }

// ClusterConverged publishes this host's converged state and reports when
// the whole world is converged (see worldapi.ClusterConverged).
func ClusterConverged(ctx context.Context, w ConvergedWorld, local func() bool, timeout, interval time.Duration, logf func(string, ...any)) <-chan struct{} {
	return worldapi.ClusterConverged(ctx, w, local, timeout, interval, logf)
}
