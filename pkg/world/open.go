package world

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
)

// OpenConfig says how a tool reaches the world.
type OpenConfig struct {
	// Seeds are client URLs of a cluster. Without seeds, the world is a
	// private single-member etcd whose data lives under Prefix.
	Seeds     []string
	Namespace string
	Hostname  string
	TLS       *TLSFiles
	Insecure  bool
	// Prefix is the tool's state directory: the private member keeps its
	// data in Prefix/server, and Prefix/server.url tells the other tools
	// using the same prefix where to reach it.
	Prefix string
	// Log receives the private member's own log; nil discards it.
	Log io.Writer
	// Logf receives the lines of the private member's start that are not
	// errors (see ServerConfig.Logf); nil discards them.
	Logf func(format string, v ...any)
	// beforeEtcdStart is the private member's ServerConfig.beforeStart
	// (tests).
	beforeEtcdStart func(peerURLs []string)
}

// A Lazy is the world of a tool that may or may not need one: nothing is
// started or dialled until a resource or function first uses it. It
// implements World. Close releases what was started.
type Lazy struct {
	cfg OpenConfig

	mu      sync.Mutex
	client  *Client
	server  *Server
	lock    *os.File
	urlFile string // published by the private member this tool runs
	err     error  // set once closed
}

// Open checks cfg and returns the world, unconnected.
func Open(cfg OpenConfig) (*Lazy, error) {
	if cfg.Hostname == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, err
		}
		cfg.Hostname = h
	}
	if err := checkHost(cfg.Hostname); err != nil {
		return nil, err
	}
	if _, err := normNamespace(cfg.Namespace); err != nil {
		return nil, err
	}
	if cfg.TLS != nil {
		if err := cfg.TLS.Check(); err != nil {
			return nil, err
		}
		if err := checkHostCert(cfg.TLS.Cert, cfg.Hostname); err != nil {
			return nil, err
		}
	}
	if err := CheckURLs(cfg.Seeds, cfg.TLS != nil, cfg.Insecure); err != nil {
		return nil, err
	}
	if len(cfg.Seeds) == 0 && cfg.Prefix == "" {
		return nil, fmt.Errorf("no seeds and no prefix for a private world")
	}
	return &Lazy{cfg: cfg}, nil
}

// checkHostCert reports a certificate that is not the host certificate of
// host: the cluster knows the holder by the certificate's common name and
// lets it write only that host's keys.
func checkHostCert(cert, host string) error {
	role, name, err := certIdentity(cert)
	if err != nil {
		return err
	}
	if role != RoleHost {
		return fmt.Errorf("%s is a certificate of %s %s; the tools need the host certificate of %s", cert, role, name, host)
	}
	if name != host {
		return fmt.Errorf("%s is the certificate of host %s, but this host is %s (--hostname)", cert, name, host)
	}
	return nil
}

// Hostname returns this host's name in the world.
func (l *Lazy) Hostname() string { return l.cfg.Hostname }

// Member reports whether this tool runs the private member itself (an
// etcd server in its own process), rather than being a client of one.
func (l *Lazy) Member() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.server != nil
}

// Started reports whether the world was used (and so connected).
func (l *Lazy) Started() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.client != nil
}

// Client connects on first use and returns the client. A failure is not
// remembered: the next call tries again (the cluster may come up later).
func (l *Lazy) Client(ctx context.Context) (*Client, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.client != nil || l.err != nil {
		return l.client, l.err // connected, or closed
	}
	var c *Client
	var err error
	if len(l.cfg.Seeds) > 0 {
		c, err = Connect(ctx, l.clientConfig(l.cfg.Seeds))
	} else {
		c, err = l.private(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("world: %w", err)
	}
	l.client = c
	return c, nil
}

func (l *Lazy) clientConfig(endpoints []string) Config {
	return Config{Endpoints: endpoints, Namespace: l.cfg.Namespace, Hostname: l.cfg.Hostname, TLS: l.cfg.TLS}
}

// private starts the private member under the prefix, or connects to the
// member another process runs there (it holds the lock of the data
// directory: another tool's private world, or mgmt-cluster run).
func (l *Lazy) private(ctx context.Context) (*Client, error) {
	lay, err := PrefixLayout(l.cfg.Prefix)
	if err != nil {
		return nil, err
	}
	if err := lay.Prepare(); err != nil {
		return nil, err
	}
	if err := lay.CheckOldData(); err != nil {
		return nil, err
	}
	lock, err := LockDataDir(lay.DataDir)
	if errors.Is(err, ErrDataDirBusy) {
		return l.joinPrivate(ctx, lay.URLFile())
	}
	if err != nil {
		return nil, err
	}
	peer, peerTLS, err := lay.PrivatePeer()
	if err != nil {
		lock.Close()
		return nil, err
	}
	s, err := StartServer(ctx, ServerConfig{Name: l.cfg.Hostname, DataDir: lay.DataDir, ClientURLs: []string{lay.ClientURL},
		PeerURLs: []string{peer}, PeerTLS: peerTLS, PeerPicked: true, Log: l.cfg.Log, Logf: l.cfg.Logf, ForceNewCluster: true, beforeStart: l.cfg.beforeEtcdStart})
	if err != nil {
		lock.Close()
		return nil, err
	}
	if err := PublishURL(lay.DataDir, lay.ClientURL); err != nil {
		s.Close()
		lock.Close()
		return nil, err
	}
	c, err := Connect(ctx, l.clientConfig([]string{lay.ClientURL}))
	if err != nil {
		s.Close()
		lock.Close()
		return nil, err
	}
	l.server, l.lock, l.urlFile = s, lock, lay.URLFile()
	return c, nil
}

// ErrDataDirBusy is returned by LockDataDir when another process holds the
// lock.
var ErrDataDirBusy = errors.New("data directory in use by another process")

// LockDataDir takes the lock of a member's data directory dir (the file
// dir.lock), so that one process at a time runs a member there. Closing the
// file releases it.
func LockDataDir(dir string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s: %w", dir, ErrDataDirBusy)
		}
		return nil, err
	}
	return lock, nil
}

// PublishURL writes the client URL of the member running in dir to
// dir.url (mode 0600, replaced atomically), where tools using the same
// prefix without seeds find it.
func PublishURL(dir, clientURL string) error {
	tmp := dir + ".url.tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(clientURL + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, dir+".url")
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// joinPrivate connects to the private member of another tool, waiting for
// it to publish its URL.
func (l *Lazy) joinPrivate(ctx context.Context, urlFile string) (*Client, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		b, err := os.ReadFile(urlFile)
		if err == nil {
			u := strings.TrimSpace(string(b))
			cctx, ccancel := context.WithTimeout(ctx, 2*time.Second)
			c, err := Connect(cctx, l.clientConfig([]string{u}))
			ccancel()
			if err == nil {
				return c, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("the private world of %s is locked by another process that does not answer", l.cfg.Prefix)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Close disconnects (withdrawing this host's leased keys) and stops the
// private member if this tool started it.
func (l *Lazy) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var err error
	if l.client != nil {
		err = l.client.Close()
	}
	if l.server != nil {
		os.Remove(l.urlFile)
		l.server.Close()
	}
	if l.lock != nil {
		l.lock.Close()
	}
	l.client, l.server, l.lock = nil, nil, nil
	if l.err == nil {
		l.err = errors.New("world: closed")
	}
	return err
}

// watch connects and returns the watch start opens on the client. When
// the world cannot be reached for a transient reason (Transient), the
// watch is still returned: it reports each failed attempt to connect (so
// that its consumer reads again, and finds the world unreachable too),
// tries again with a Backoff, and once connected forwards the client's
// watch. A watch that fails for good reports its error once. The channel
// closes when ctx ends.
func (l *Lazy) watch(ctx context.Context, start func(*Client) (<-chan error, error)) (<-chan error, error) {
	c, err := l.Client(ctx)
	if err == nil {
		return start(c)
	}
	if !Transient(err) {
		return nil, err
	}
	out := make(chan error, 1)
	out <- err
	go func() {
		defer close(out)
		var b Backoff
		for b.Wait(ctx) {
			c, err := l.Client(ctx)
			if err == nil {
				var in <-chan error
				if in, err = start(c); err == nil {
					for e := range in {
						worldapi.Pass(out, e)
					}
					return
				}
			}
			if ctx.Err() != nil {
				return
			}
			worldapi.Pass(out, err)
			if !Transient(err) {
				<-ctx.Done()
				return
			}
		}
	}()
	return out, nil
}

// The World methods connect on first use and forward to the client.

func (l *Lazy) StrGet(ctx context.Context, key string) (string, bool, error) {
	c, err := l.Client(ctx)
	if err != nil {
		return "", false, err
	}
	return c.StrGet(ctx, key)
}

func (l *Lazy) StrSet(ctx context.Context, key, value string) error {
	c, err := l.Client(ctx)
	if err != nil {
		return err
	}
	return c.StrSet(ctx, key, value)
}

func (l *Lazy) StrDel(ctx context.Context, key string) error {
	c, err := l.Client(ctx)
	if err != nil {
		return err
	}
	return c.StrDel(ctx, key)
}

func (l *Lazy) StrWatch(ctx context.Context, key string) (<-chan error, error) {
	return l.watch(ctx, func(c *Client) (<-chan error, error) { return c.StrWatch(ctx, key) })
}

func (l *Lazy) StrMapGet(ctx context.Context, namespace string) (map[string]string, error) {
	c, err := l.Client(ctx)
	if err != nil {
		return nil, err
	}
	return c.StrMapGet(ctx, namespace)
}

func (l *Lazy) StrMapGetHost(ctx context.Context, namespace string) (string, bool, error) {
	c, err := l.Client(ctx)
	if err != nil {
		return "", false, err
	}
	return c.StrMapGetHost(ctx, namespace)
}

func (l *Lazy) StrMapSet(ctx context.Context, namespace, value string) error {
	c, err := l.Client(ctx)
	if err != nil {
		return err
	}
	return c.StrMapSet(ctx, namespace, value)
}

func (l *Lazy) StrMapDel(ctx context.Context, namespace string) error {
	c, err := l.Client(ctx)
	if err != nil {
		return err
	}
	return c.StrMapDel(ctx, namespace)
}

func (l *Lazy) StrMapWatch(ctx context.Context, namespace string) (<-chan error, error) {
	return l.watch(ctx, func(c *Client) (<-chan error, error) { return c.StrMapWatch(ctx, namespace) })
}

// ResExport does nothing while the world is unused and rs exports
// nothing, so graphs without exports never start a private member.
func (l *Lazy) ResExport(ctx context.Context, rs []*graph.Resource) error {
	if !l.Started() && !worldapi.AnyExported(rs) {
		return nil
	}
	c, err := l.Client(ctx)
	if err != nil {
		return err
	}
	return c.ResExport(ctx, rs)
}

func (l *Lazy) ResCollect(ctx context.Context, kind string) ([]*Exported, error) {
	c, err := l.Client(ctx)
	if err != nil {
		return nil, err
	}
	return c.ResCollect(ctx, kind)
}

func (l *Lazy) ResWatch(ctx context.Context) <-chan error {
	ch, err := l.watch(ctx, func(c *Client) (<-chan error, error) { return c.ResWatch(ctx), nil })
	if err != nil {
		return worldapi.Failed(ctx, err)
	}
	return ch
}

func (l *Lazy) SchedulerAdd(ctx context.Context, ns string, opts SchedOpts) error {
	c, err := l.Client(ctx)
	if err != nil {
		return err
	}
	return c.SchedulerAdd(ctx, ns, opts)
}

func (l *Lazy) SchedulerWithdraw(ctx context.Context, ns string) error {
	c, err := l.Client(ctx)
	if err != nil {
		return err
	}
	return c.SchedulerWithdraw(ctx, ns)
}

// SchedulerRelease releases the entry of ns when connected; without a
// connection there is nothing to keep alive.
func (l *Lazy) SchedulerRelease(ns string) {
	l.mu.Lock()
	c := l.client
	l.mu.Unlock()
	if c != nil {
		c.SchedulerRelease(ns)
	}
}

func (l *Lazy) SchedulerVolunteering(ctx context.Context, ns string) (SchedOpts, bool, error) {
	c, err := l.Client(ctx)
	if err != nil {
		return SchedOpts{}, false, err
	}
	return c.SchedulerVolunteering(ctx, ns)
}

func (l *Lazy) Schedule(ctx context.Context, ns string) ([]string, error) {
	c, err := l.Client(ctx)
	if err != nil {
		return nil, err
	}
	return c.Schedule(ctx, ns)
}

func (l *Lazy) ScheduleWatch(ctx context.Context, ns string) (<-chan error, error) {
	return l.watch(ctx, func(c *Client) (<-chan error, error) { return c.ScheduleWatch(ctx, ns) })
}

func (l *Lazy) SetConverged(ctx context.Context, converged bool) error {
	c, err := l.Client(ctx)
	if err != nil {
		return err
	}
	return c.SetConverged(ctx, converged)
}

func (l *Lazy) Converged(ctx context.Context) (map[string]bool, error) {
	c, err := l.Client(ctx)
	if err != nil {
		return nil, err
	}
	return c.Converged(ctx)
}

func (l *Lazy) ConvergedState(ctx context.Context) (ConvergedState, error) {
	c, err := l.Client(ctx)
	if err != nil {
		return ConvergedState{}, err
	}
	return c.ConvergedState(ctx)
}

func (l *Lazy) ConvergedWatch(ctx context.Context) <-chan error {
	ch, err := l.watch(ctx, func(c *Client) (<-chan error, error) { return c.ConvergedWatch(ctx), nil })
	if err != nil {
		return worldapi.Failed(ctx, err)
	}
	return ch
}

var _ World = (*Lazy)(nil)
