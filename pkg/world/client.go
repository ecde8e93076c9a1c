package world

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// DefaultOpTimeout bounds each single request to the cluster when the
// caller's context has no deadline of its own.
const DefaultOpTimeout = 10 * time.Second

// Config describes how a Client reaches the world.
type Config struct {
	// Endpoints are client URLs of cluster members (or proxies).
	Endpoints []string
	// Namespace prefixes every key; empty means DefaultNamespace.
	Namespace string
	// Hostname is this host's name in the world; empty means os.Hostname.
	Hostname string
	// TLS, when set, authenticates the client with a certificate and
	// verifies the members against the CA.
	TLS *TLSFiles
	// LeaseTTL is the time to live, in seconds, of the keys that vanish
	// when this host goes away (scheduler volunteers, converged state).
	// Zero means 10.
	LeaseTTL int64
}

// A Client is a connection to the world. It is safe for concurrent use.
type Client struct {
	cli      *clientv3.Client
	ns       string
	hostname string
	ttl      int64

	mu    sync.Mutex
	lease clientv3.LeaseID // lazily granted, kept alive until Close
	stop  context.CancelFunc
	// schedLeases are the leases of the scheduler entries with a TTL of
	// their own, by namespace, kept alive until released or Close.
	schedLeases map[string]*schedLease
	// The trees the client follows (see tree), each started by its first
	// use, and the functions that stop them.
	exp    *tree[*Exported] // exports addressed to this host or to all
	own    *tree[string]    // this host's exports, their values
	conv   *tree[struct{}]  // converged states, grouped by state
	sched  *tree[volunteer] // scheduler volunteers, grouped by namespace
	mapped *tree[mapEntry]  // per-host map entries, grouped by namespace
	trees  []func()
	closed bool // by Close: no tree starts any more
	// convRev is the revision of this host's last converged state
	// written, which ConvergedState waits for.
	convRev atomic.Int64
}

// Connect returns a client of the cluster reachable at cfg.Endpoints. It
// fails when no endpoint answers before ctx is done.
func Connect(ctx context.Context, cfg Config) (*Client, error) {
	if len(cfg.Endpoints) == 0 {
		return nil, fmt.Errorf("no endpoints to connect to")
	}
	host := cfg.Hostname
	if host == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("hostname: %v", err)
		}
		host = h
	}
	if err := checkHost(host); err != nil {
		return nil, err
	}
	ns, err := normNamespace(cfg.Namespace)
	if err != nil {
		return nil, err
	}
	var tc *tls.Config
	if cfg.TLS != nil {
		if tc, err = cfg.TLS.ClientConfig(); err != nil {
			return nil, err
		}
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:            cfg.Endpoints,
		DialTimeout:          5 * time.Second,
		DialKeepAliveTime:    5 * time.Second,
		DialKeepAliveTimeout: 5 * time.Second,
		TLS:                  tc,
		Logger:               zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", strings.Join(cfg.Endpoints, ","), err)
	}
	ttl := cfg.LeaseTTL
	if ttl <= 0 {
		ttl = 10
	}
	c := &Client{cli: cli, ns: ns, hostname: host, ttl: ttl}
	if err := c.ping(ctx); err != nil {
		cli.Close()
		return nil, err
	}
	return c, nil
}

// ping checks that some endpoint answers a request.
func (c *Client) ping(ctx context.Context) error {
	ctx, cancel := opContext(ctx)
	defer cancel()
	if _, err := c.cli.Get(ctx, c.ns+"/", clientv3.WithCountOnly()); err != nil {
		if derr := dialEndpoints(c.cli.Endpoints()); derr != nil {
			err = derr // why the connection failed, which gRPC only retries
		}
		return fmt.Errorf("cluster at %s unreachable: %w", strings.Join(c.cli.Endpoints(), ","), err)
	}
	return nil
}

// dialEndpoints opens and closes a connection to each endpoint and
// returns the first failure, such as "permission denied" on a unix socket
// of another user.
func dialEndpoints(endpoints []string) error {
	for _, e := range endpoints {
		network, addr, err := netAddr(e)
		if err != nil {
			return err
		}
		conn, err := net.DialTimeout(network, addr, time.Second)
		if err != nil {
			return err
		}
		conn.Close()
	}
	return nil
}

// opContext applies DefaultOpTimeout when ctx has no deadline.
func opContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, DefaultOpTimeout)
}

// Hostname returns this host's name in the world.
func (c *Client) Hostname() string { return c.hostname }

// Namespace returns the key prefix of the world.
func (c *Client) Namespace() string { return c.ns }

// Etcd returns the underlying etcd client, for tools that need more than the
// world API (membership changes, raw keys).
func (c *Client) Etcd() *clientv3.Client { return c.cli }

// Close revokes this host's lease (so its volunteers and converged state
// vanish at once; scheduler entries with a TTL of their own stay that
// long, persistent ones stay) and closes the connection.
func (c *Client) Close() error {
	c.mu.Lock()
	lease, stop, trees := c.lease, c.stop, c.trees
	c.lease, c.stop, c.trees, c.closed = 0, nil, nil, true
	var nss []string
	for ns := range c.schedLeases {
		nss = append(nss, ns)
	}
	c.mu.Unlock()
	for _, ns := range nss {
		c.SchedulerRelease(ns) // those entries expire after their TTL
	}
	if stop != nil {
		stop()
	}
	for _, stop := range trees {
		stop()
	}
	if lease != 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c.cli.Revoke(ctx, lease)
		cancel()
	}
	return c.cli.Close()
}

// hostLease returns this host's lease, granting it and starting its keep
// alive on first use.
func (c *Client) hostLease(ctx context.Context) (clientv3.LeaseID, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lease != 0 {
		return c.lease, nil
	}
	id, stop, ch, err := c.grantKept(ctx, c.ttl)
	if err != nil {
		return 0, err
	}
	go func() {
		for range ch {
		}
		// The keep alive ended (lease lost or closing): forget the lease
		// so the next user grants a new one.
		c.mu.Lock()
		if c.lease == id {
			c.lease, c.stop = 0, nil
		}
		c.mu.Unlock()
	}()
	c.lease, c.stop = id, stop
	return id, nil
}

// grantKept grants a lease of ttl seconds and starts its keep alive,
// which runs until stop is called or the lease is lost; the caller drains
// ch until it is closed.
func (c *Client) grantKept(ctx context.Context, ttl int64) (clientv3.LeaseID, context.CancelFunc, <-chan *clientv3.LeaseKeepAliveResponse, error) {
	octx, cancel := opContext(ctx)
	defer cancel()
	g, err := c.cli.Grant(octx, ttl)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("lease: %w", err)
	}
	kctx, stop := context.WithCancel(context.Background())
	ch, err := c.cli.KeepAlive(kctx, g.ID)
	if err != nil {
		stop()
		return 0, nil, nil, fmt.Errorf("lease keep alive: %w", err)
	}
	return g.ID, stop, ch, nil
}

// Get returns the value of the raw etcd key k and whether it exists.
func (c *Client) Get(ctx context.Context, k string) (string, bool, error) {
	ctx, cancel := opContext(ctx)
	defer cancel()
	r, err := c.cli.Get(ctx, k)
	if err != nil {
		return "", false, err
	}
	if len(r.Kvs) == 0 {
		return "", false, nil
	}
	return string(r.Kvs[0].Value), true, nil
}

// GetPrefix returns every raw key under prefix with its value.
func (c *Client) GetPrefix(ctx context.Context, prefix string) (map[string]string, error) {
	ctx, cancel := opContext(ctx)
	defer cancel()
	r, err := c.cli.Get(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(r.Kvs))
	for _, kv := range r.Kvs {
		out[string(kv.Key)] = string(kv.Value)
	}
	return out, nil
}

// Put sets the raw etcd key k to v.
func (c *Client) Put(ctx context.Context, k, v string) error {
	ctx, cancel := opContext(ctx)
	defer cancel()
	_, err := c.cli.Put(ctx, k, v)
	return err
}

// Delete removes the raw etcd key k and reports whether it existed.
func (c *Client) Delete(ctx context.Context, k string) (bool, error) {
	ctx, cancel := opContext(ctx)
	defer cancel()
	r, err := c.cli.Delete(ctx, k)
	if err != nil {
		return false, err
	}
	return r.Deleted > 0, nil
}
