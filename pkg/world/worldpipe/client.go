package worldpipe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
)

// ClientConfig says which child to run and what world it opens.
type ClientConfig struct {
	World Config
	// Path and Args are the child's executable and arguments (mgmt-cluster
	// world-client). An empty Path is an error each use reports: FindErr.
	Path    string
	Args    []string
	FindErr error
	// Stderr receives the child's log.
	Stderr io.Writer
	// Logf receives the client's own messages: a child that ended, a
	// child started again.
	Logf func(format string, args ...any)
}

// openTimeout bounds the wait for a new child's answer to open: the
// world is not dialled then, so a child answers as soon as it runs, which
// on a host loaded with other work can take some seconds.
const openTimeout = time.Minute

// Client is a world served by a child process. Like pkg/world's Lazy, it
// starts nothing until first used; a child that ends (killed, crashed) is
// logged, its requests fail with a transient error, and the next use
// starts a new one, no sooner than a backoff after the end (100ms,
// doubling to 5s, reset by a child that ran a minute). Watches go on
// over the new child, reporting the gap as an error notification. It
// implements worldapi.World and is safe for concurrent use.
type Client struct {
	cfg ClientConfig

	mu        sync.Mutex
	p         *proc // the running child, or nil
	used      bool  // a child was started
	closed    bool
	b         worldapi.Backoff
	notBefore time.Time // no new child before then
	starting  *start    // the start in progress, or nil
}

// Open checks cfg and returns the client, without starting the child.
func Open(cfg ClientConfig) (*Client, error) {
	if err := worldapi.CheckHost(cfg.World.Hostname); err != nil {
		return nil, err
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	return &Client{cfg: cfg}, nil
}

// Check starts the child and lets it check the configuration (the TLS
// files and the identity of the certificate, the seeds' URLs), so that a
// tool with a bad one fails at its start; it connects to nothing.
func (c *Client) Check(ctx context.Context) error {
	_, err := c.proc(ctx)
	return err
}

// Hostname returns this host's name in the world.
func (c *Client) Hostname() string { return c.cfg.World.Hostname }

// Started reports whether the world was used (a child was started).
func (c *Client) Started() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// proc returns the running child, starting one when there is none. The
// start runs under a timeout of its own, not ctx: a caller with a short
// deadline waits for it or gives up, but does not end it, so a child slow
// to start on a loaded host is not killed and started again by every
// caller in turn.
func (c *Client) proc(ctx context.Context) (*proc, error) {
	c.mu.Lock()
	for {
		switch {
		case c.closed:
			c.mu.Unlock()
			return nil, fmt.Errorf("world: closed")
		case c.p != nil:
			p := c.p
			c.mu.Unlock()
			return p, nil
		case c.cfg.Path == "":
			c.mu.Unlock()
			return nil, fmt.Errorf("world: %w", c.cfg.FindErr)
		}
		if c.starting != nil {
			break
		}
		wait := time.Until(c.notBefore)
		if wait <= 0 {
			c.starting = &start{done: make(chan struct{})}
			go c.start(c.starting, c.used)
			c.used = true
			break
		}
		c.mu.Unlock()
		ok := worldapi.Sleep(ctx, wait)
		c.mu.Lock()
		if !ok {
			c.mu.Unlock()
			return nil, ctx.Err()
		}
	}
	st := c.starting
	c.mu.Unlock()
	select {
	case <-st.done:
		return st.p, st.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// A start is one start of a child, which callers wait for.
type start struct {
	done chan struct{} // closed when p or err is set
	p    *proc
	err  error
}

// start starts a child and opens the world in it, then hands the result
// to the callers waiting for st.
func (c *Client) start(st *start, again bool) {
	defer close(st.done)
	if again {
		c.cfg.Logf("world: starting the world client process again")
	}
	p, err := c.open()
	c.mu.Lock()
	c.starting = nil
	closed := c.closed
	switch {
	case err != nil:
		c.notBefore = time.Now().Add(c.b.Next())
	case !closed:
		c.p = p
	}
	c.mu.Unlock()
	if err == nil && closed {
		p.close(5 * time.Second)
		err = fmt.Errorf("world: closed")
	}
	if err == nil {
		st.p = p
	}
	st.err = err
}

// open starts a child and opens the world in it.
func (c *Client) open() (*proc, error) {
	p, err := startProc(c.cfg.Path, c.cfg.Args, c.cfg.Stderr, c.ended)
	if err != nil {
		return nil, fmt.Errorf("world: starting %s: %w", c.cfg.Path, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	w := c.cfg.World
	rep, err := p.call(ctx, request{Op: opOpen, Proto: Version, Open: &w})
	if err == nil && rep.Opened != Version {
		err = fmt.Errorf("%s %s is not a world client: it answered %s without the protocol's version", c.cfg.Path, strings.Join(c.cfg.Args, " "), Version)
	}
	if err == nil {
		return p, nil
	}
	p.close(5 * time.Second)
	if errors.Is(err, context.DeadlineExceeded) {
		// Slow on a loaded host, or not a world client: tried again.
		return nil, &Error{Msg: fmt.Sprintf("world: %s %s did not answer within %v", c.cfg.Path, strings.Join(c.cfg.Args, " "), openTimeout), Temp: true}
	}
	if !strings.HasPrefix(err.Error(), "world: ") {
		err = fmt.Errorf("world: %w", err)
	}
	return nil, err
}

// ended forgets child p, which has ended, and logs it unless the client
// closed it.
func (c *Client) ended(p *proc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.p != p {
		return // closed, or failed to open
	}
	c.p = nil
	if time.Since(p.start) > time.Minute {
		c.b.Reset()
	}
	d := c.b.Next()
	c.notBefore = time.Now().Add(d)
	c.cfg.Logf("world: %v; starting a new one in %v at the earliest", p.end, d.Round(time.Millisecond))
}

// Close ends the child, if one runs: the child closes the world (this
// host's lease is revoked, a private member stops) before it exits.
func (c *Client) Close() error {
	c.mu.Lock()
	p, st := c.p, c.starting
	c.p, c.closed = nil, true
	c.mu.Unlock()
	if st != nil {
		<-st.done // a child it started is closed by start
	}
	if p != nil {
		p.close(10 * time.Second)
	}
	return nil
}

// do runs one call on the child.
func (c *Client) do(ctx context.Context, r request) (reply, error) {
	p, err := c.proc(ctx)
	if err != nil {
		return reply{}, err
	}
	return p.call(ctx, r)
}

// MaxMetrics bounds the metrics text of one answer: the child answers an
// error rather than a longer text, which a parent would not serve (about
// 60 KiB is usual for one member), so that a scrape does not move
// megabytes through the pipe.
const MaxMetrics = 4 << 20

// Metrics returns the metrics of the member the child runs (the private
// world), in Prometheus's text format; nothing when no child runs.
func (c *Client) Metrics(ctx context.Context) ([]byte, error) {
	c.mu.Lock()
	p := c.p
	c.mu.Unlock()
	if p == nil {
		return nil, nil
	}
	r, err := p.call(ctx, request{Op: opMetrics})
	return []byte(r.Text), err
}
