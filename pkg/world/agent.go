package world

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"go.etcd.io/etcd/client/v3/concurrency"
)

// AgentConfig configures automatic clustering around one host's member.
type AgentConfig struct {
	Server ServerConfig
	// IdealSize is the number of voting members wanted; hosts beyond it
	// wait as standbys (proxying their client URLs to the members) and
	// are promoted when a member leaves or dies. Zero means 5.
	IdealSize int
	// Namespace of the world keys (the promotion lock lives there).
	Namespace string
	// Interval between health checks of a standby; zero means 1s.
	Interval time.Duration
	// DeadAfter is the number of failed health checks in a row after which
	// a standby removes a member and takes its place; zero means 5. Each
	// check waits up to 2s (or Interval) for an answer, so that a busy
	// member is not taken for a dead one.
	DeadAfter int
	// Logf receives one line per state change; nil discards them.
	Logf func(format string, v ...any)
	// State, when set, is called with "member", "standby" or "stopped".
	State func(string)
}

// An Agent runs one host of a self-managing cluster: it starts or restarts
// a member, joins through seeds, waits as a standby when the cluster is
// already at its ideal size, and promotes itself when a member is missing.
type Agent struct {
	cfg AgentConfig
}

// NewAgent returns an agent for cfg, with defaults applied.
func NewAgent(cfg AgentConfig) (*Agent, error) {
	if cfg.IdealSize == 0 {
		cfg.IdealSize = 5
	}
	if cfg.IdealSize < 1 {
		return nil, fmt.Errorf("ideal cluster size must be at least 1, got %d", cfg.IdealSize)
	}
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.DeadAfter <= 0 {
		cfg.DeadAfter = 5
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.State == nil {
		cfg.State = func(string) {}
	}
	if err := cfg.Server.Validate(); err != nil {
		return nil, err
	}
	return &Agent{cfg: cfg}, nil
}

// Run runs the host until ctx is done, then leaves the cluster cleanly
// (a member removes itself and its data; the last member keeps them).
//
// The data directory is locked for the agent's lifetime, and its client
// URL published beside it (see PublishURL), so tools started without seeds
// on the same prefix use this host's member.
func (a *Agent) Run(ctx context.Context) error {
	defer a.cfg.State("stopped")
	dir := a.cfg.Server.DataDir
	lock, err := LockDataDir(dir)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := PublishURL(dir, a.cfg.Server.advClient()[0]); err != nil {
		return err
	}
	defer os.Remove(dir + ".url")
	seeds := a.cfg.Server.Seeds
	for {
		sc := a.cfg.Server
		sc.Seeds = seeds
		release := func() {}
		if !HasData(sc.DataDir) && len(seeds) > 0 {
			var err error
			if seeds, release, err = a.standby(ctx, seeds); err != nil {
				return err
			}
			if ctx.Err() != nil {
				return nil
			}
			sc.Seeds = seeds
		}
		s, err := a.startMember(ctx, sc)
		release()
		if errors.Is(err, errRejoin) {
			continue // no data any more: stand by or join as a new member
		}
		if err != nil {
			return err
		}
		a.cfg.State("member")
		a.cfg.Logf("running as member %s (%x), clients on %v", sc.Name, s.ID(), sc.advClient())
		select {
		case <-ctx.Done():
			lctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := s.Leave(lctx)
			cancel()
			if errors.Is(err, ErrLastMember) {
				a.cfg.Logf("stopped; %v", err)
				return nil
			}
			if err == nil {
				a.cfg.Logf("left the cluster")
			}
			return err
		case <-s.Done():
		}
		// The member stopped by itself: removed from the cluster (it
		// was thought dead) or failed. Start over from the seeds.
		s.Close()
		if len(seeds) == 0 {
			return fmt.Errorf("member %s stopped (removed from the cluster?)", sc.Name)
		}
		a.cfg.Logf("member stopped (removed from the cluster?); joining again")
		if err := os.RemoveAll(sc.DataDir); err != nil {
			return err
		}
	}
}

// errRejoin reports that the member's old data was set aside: the host
// starts over as a newcomer.
var errRejoin = errors.New("rejoin")

// startMember starts the member; when its old data belongs to a member that
// was removed meanwhile, the data is set aside and it returns errRejoin.
func (a *Agent) startMember(ctx context.Context, sc ServerConfig) (*Server, error) {
	s, err := StartServer(ctx, sc)
	if err == nil || len(sc.Seeds) == 0 || !HasData(sc.DataDir) || ctx.Err() != nil {
		return s, err
	}
	present, cerr := a.isMember(ctx, sc)
	if cerr != nil || present {
		return nil, err
	}
	old := fmt.Sprintf("%s.removed-%d", sc.DataDir, time.Now().Unix())
	a.cfg.Logf("member %s was removed from the cluster while down; old data moved to %s", sc.Name, old)
	if err := os.Rename(sc.DataDir, old); err != nil {
		return nil, err
	}
	return nil, errRejoin
}

// isMember reports whether the seeds' cluster lists a member with our
// peer URLs.
func (a *Agent) isMember(ctx context.Context, sc ServerConfig) (bool, error) {
	cli, err := sc.seedClient(sc.Seeds)
	if err != nil {
		return false, err
	}
	defer cli.Close()
	list, err := memberList(ctx, cli)
	if err != nil {
		return false, err
	}
	for _, m := range list.Members {
		if samePeers(m.PeerURLs, sc.advPeer()) {
			return true, nil
		}
	}
	return false, nil
}

// standby waits until this host should become a member: at once when the
// cluster is below its ideal size, otherwise after a member left or died
// (the dead member is removed first). Meanwhile it proxies its client URLs
// to healthy members. It returns the current client URLs of the cluster, to
// join through, and the release of the promotion lock, to call once the
// member joined.
func (a *Agent) standby(ctx context.Context, seeds []string) ([]string, func(), error) {
	c, err := Connect(ctx, Config{Endpoints: seeds, Namespace: a.cfg.Namespace, Hostname: a.cfg.Server.Name, TLS: a.cfg.Server.TLS})
	if err != nil {
		return nil, nil, err
	}
	var px *proxy
	defer func() {
		if px != nil {
			px.close()
		}
	}()
	fails := map[string]int{}
	tick := time.NewTicker(a.cfg.Interval)
	defer tick.Stop()
	for {
		ms, err := c.Status(ctx, max(2*time.Second, a.cfg.Interval))
		if err == nil {
			endpoints, healthy := a.observe(ms, fails)
			c.cli.SetEndpoints(endpoints...)
			dead := ""
			if m := a.deadMember(ms, fails); m != nil && 2*healthy > len(ms)-1 {
				dead = m.ID // removing it keeps a quorum
			}
			if len(ms) < a.cfg.IdealSize || dead != "" {
				live, release, err := a.promote(ctx, c, endpoints, dead)
				if err != nil || release != nil {
					if px != nil {
						px.close()
						px = nil
					}
					c.Close()
					return live, release, err
				}
			}
			if px == nil {
				if px, err = startProxy(a.cfg.Server.ClientURLs); err != nil {
					c.Close()
					return nil, nil, err
				}
				if err := c.setStandby(ctx, a.cfg.Server.advClient()); err != nil {
					a.cfg.Logf("recording the standby: %v", err)
				}
				a.cfg.State("standby")
				a.cfg.Logf("cluster has %d members (ideal %d): standing by, proxying %v", len(ms), a.cfg.IdealSize, a.cfg.Server.ClientURLs)
			}
			px.setBackends(healthyURLs(ms))
		}
		select {
		case <-ctx.Done():
			c.Close()
			return nil, func() {}, nil
		case <-tick.C:
		}
	}
}

// observe updates the failure counts and returns every member's client
// URLs and the number of healthy members.
func (a *Agent) observe(ms []*Member, fails map[string]int) ([]string, int) {
	var endpoints []string
	healthy := 0
	for _, m := range ms {
		endpoints = append(endpoints, m.ClientURLs...)
		if m.Healthy {
			healthy++
			delete(fails, m.ID)
		} else {
			fails[m.ID]++
		}
	}
	return endpoints, healthy
}

func (a *Agent) deadMember(ms []*Member, fails map[string]int) *Member {
	for _, m := range ms {
		if fails[m.ID] >= a.cfg.DeadAfter {
			return m
		}
	}
	return nil
}

func healthyURLs(ms []*Member) []string {
	var out []string
	for _, m := range ms {
		if m.Healthy {
			out = append(out, m.ClientURLs...)
		}
	}
	return out
}

// promote takes the cluster-wide promotion lock, checks that the reason
// still holds, removes the dead member if there is one, and returns the
// endpoints to join through with the release of the lock. A nil release
// means another standby won the race: keep standing by.
func (a *Agent) promote(ctx context.Context, c *Client, endpoints []string, dead string) ([]string, func(), error) {
	sess, err := concurrency.NewSession(c.cli, concurrency.WithTTL(5))
	if err != nil {
		return nil, nil, err
	}
	mu := concurrency.NewMutex(sess, c.ns+"/cluster/promote")
	lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := mu.Lock(lctx); err != nil {
		sess.Close()
		return nil, nil, fmt.Errorf("promotion lock: %v", err)
	}
	release := func() {
		uctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		mu.Unlock(uctx)
		cancel()
		sess.Close()
	}
	live, ok, err := a.recheck(ctx, c, dead)
	if err != nil || !ok {
		release()
		return nil, nil, err
	}
	if len(live) == 0 {
		live = endpoints
	}
	return live, release, nil
}

// recheck runs under the promotion lock: it removes the dead member, if
// any, and reports whether the cluster is still below its ideal size, with
// the client URLs of the remaining members.
func (a *Agent) recheck(ctx context.Context, c *Client, dead string) ([]string, bool, error) {
	ms, err := c.Members(ctx)
	if err != nil {
		return nil, false, err
	}
	if dead != "" {
		var id uint64
		fmt.Sscanf(dead, "%x", &id)
		for _, m := range ms {
			if m.ID != dead {
				continue
			}
			a.cfg.Logf("member %s (%s) is dead: removing it", m.Name, dead)
			err := retryUnhealthy(ctx, func(ctx context.Context) error {
				_, err := c.cli.MemberRemove(ctx, id)
				return err
			})
			if err != nil {
				return nil, false, fmt.Errorf("removing dead member %s: %v", m.Name, err)
			}
			ms = removeID(ms, dead)
		}
	}
	if len(ms) >= a.cfg.IdealSize {
		return nil, false, nil
	}
	a.cfg.Logf("cluster has %d members (ideal %d): joining", len(ms), a.cfg.IdealSize)
	var live []string
	for _, m := range ms {
		live = append(live, m.ClientURLs...)
	}
	return live, true, nil
}

func removeID(ms []*Member, id string) []*Member {
	var out []*Member
	for _, m := range ms {
		if m.ID != id {
			out = append(out, m)
		}
	}
	return out
}
