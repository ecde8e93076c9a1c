package world

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// AgentConfig configures automatic clustering around one host's member.
type AgentConfig struct {
	Server ServerConfig
	// IdealSize is the number of voting members wanted; hosts beyond it
	// wait as standbys (proxying their client URLs to the members) and
	// are promoted when a member leaves or dies. Zero means 5.
	IdealSize int
	// Namespace of the world keys (the membership lock lives there).
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
	if cfg.Server.Logf == nil {
		cfg.Server.Logf = cfg.Logf
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
	for {
		s, err := a.become(ctx)
		if s == nil && ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, errRejoin) {
			select { // a pause, so that a failing join does not spin
			case <-ctx.Done():
				return nil
			case <-time.After(a.cfg.Interval):
			}
			continue
		}
		if err != nil {
			return err
		}
		a.cfg.State("member")
		a.cfg.Logf("running as member %s (%x), clients on %v", s.Name(), s.ID(), s.ClientURLs())
		select {
		case <-ctx.Done():
			return a.leave(s)
		case <-s.Done():
		}
		if err := a.stopped(s); err != nil {
			return err
		}
	}
}

// errRejoin reports that the host has no member data (any more): it
// starts over as a newcomer, through the standby decision.
var errRejoin = errors.New("rejoin")

// errNameTaken reports a member of the same name with other peer URLs: a
// configuration error, not a race to retry.
var errNameTaken = errors.New("member name taken")

// become makes the host a running member: it restarts the member from its
// data, or stands by until the cluster wants a member and joins it, under
// the membership lock.
func (a *Agent) become(ctx context.Context) (*Server, error) {
	sc := a.cfg.Server
	sc.MaxVoters = a.cfg.IdealSize
	if HasData(sc.DataDir) || len(sc.Seeds) == 0 {
		s, err := StartServer(ctx, sc)
		return s, a.classify(ctx, sc, err)
	}
	lk, live, err := a.standby(ctx)
	if err != nil || lk == nil {
		return nil, err
	}
	defer lk.release()
	sc.Seeds = live
	s, err := StartServer(ctx, sc)
	return s, a.classify(ctx, sc, err)
}

// classify turns a failed start into errRejoin when the host should start
// over as a newcomer, and returns other errors as they are.
func (a *Agent) classify(ctx context.Context, sc ServerConfig, err error) error {
	switch {
	case err == nil || ctx.Err() != nil:
		return err
	case errors.Is(err, ErrRemoved) && HasData(sc.DataDir):
		old := fmt.Sprintf("%s.removed-%d", sc.DataDir, time.Now().UnixNano())
		a.cfg.Logf("member %s was removed from the cluster while down; old data moved to %s", sc.Name, old)
		if err := os.Rename(sc.DataDir, old); err != nil {
			return err
		}
		return errRejoin
	case errors.Is(err, ErrClusterFull), errors.Is(err, ErrJoinBusy):
		a.cfg.Logf("not joining: %v", err)
		return errRejoin
	case len(sc.Seeds) > 0 && !HasData(sc.DataDir) && !errors.Is(err, errNameTaken):
		a.cfg.Logf("joining failed: %v; trying again", err)
		return errRejoin
	}
	return err
}

// stopped handles a member that stopped by itself: removed from the
// cluster (it was thought dead), its data is deleted and the host starts
// over; stopped for another reason, it keeps its data and fails.
func (a *Agent) stopped(s *Server) error {
	removed := s.removed()
	s.Close()
	var cause error
	select {
	case cause = <-s.Err():
	default:
	}
	if !removed {
		return fmt.Errorf("member %s stopped (%v); still a member, data kept", s.Name(), cause)
	}
	if len(a.cfg.Server.Seeds) == 0 {
		return fmt.Errorf("member %s was removed from the cluster", s.Name())
	}
	a.cfg.Logf("member %s was removed from the cluster; joining again", s.Name())
	return os.RemoveAll(a.cfg.Server.DataDir)
}

// leaveTimeout bounds a clean leave, waiting for the membership lock
// included (other members may be leaving or joining).
const leaveTimeout = 30 * time.Second

// leave removes the member from the cluster under the membership lock, so
// that members leaving at the same time leave one after the other and the
// last one stays, with its data.
func (a *Agent) leave(s *Server) error {
	ctx, cancel := context.WithTimeout(context.Background(), leaveTimeout)
	defer cancel()
	// The lock is taken and released through the other members: this
	// one is gone once it left.
	var endpoints []string
	for _, m := range s.etcd.Server.Cluster().Members() {
		if !m.IsLearner && m.ID != s.etcd.Server.MemberID() {
			endpoints = append(endpoints, m.ClientURLs...)
		}
	}
	endpoints = append(endpoints, s.ClientURLs()...)
	c, err := Connect(ctx, a.clientConfig(endpoints))
	var lk *memberLock
	if err == nil {
		lk, err = c.lockMembership(ctx, leaveTimeout)
		if err != nil {
			c.Close()
		}
	}
	if err != nil {
		s.Close()
		return fmt.Errorf("leaving the cluster: %v (stopped, still a member; data kept)", err)
	}
	lk.client = c
	err = s.leave(ctx, lk.release)
	switch {
	case errors.Is(err, ErrLastMember):
		a.cfg.Logf("stopped; %v", err)
		return nil
	case err == nil:
		a.cfg.Logf("left the cluster")
	}
	return err
}

func (a *Agent) clientConfig(endpoints []string) Config {
	return Config{Endpoints: endpoints, Namespace: a.cfg.Namespace, Hostname: a.cfg.Server.Name, TLS: a.cfg.Server.TLS}
}

// standby waits until this host should become a member: at once when the
// cluster is below its ideal size, otherwise after a member left or died
// (the dead member is removed first). Meanwhile it proxies its client URLs
// to healthy members. It returns holding the membership lock, to release
// once the member joined, with the client URLs of the cluster to join
// through; or nothing once ctx is done.
func (a *Agent) standby(ctx context.Context) (*memberLock, []string, error) {
	c := a.connect(ctx)
	if c == nil {
		return nil, nil, nil
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
		ms, err := c.Status(ctx, a.checkTimeout())
		if err == nil {
			a.observe(ms, fails)
			if vs := voterURLs(ms, false); len(vs) > 0 {
				c.cli.SetEndpoints(vs...)
			}
			if len(ms) < a.cfg.IdealSize || a.deadMember(ms, fails) != nil {
				lk, live, err := a.promote(ctx, c, fails)
				if lk != nil {
					lk.client = c // closed with the lock
					return lk, live, nil
				}
				if err != nil && ctx.Err() == nil {
					a.cfg.Logf("not promoted yet: %v", err)
				}
			}
			if px == nil {
				if px, err = a.startStandby(ctx, c, len(ms)); err != nil {
					c.Close()
					return nil, nil, err
				}
			}
			px.setBackends(voterURLs(ms, true))
		}
		select {
		case <-ctx.Done():
			c.Close()
			return nil, nil, nil
		case <-tick.C:
		}
	}
}

// connect connects to the seeds, trying again every Interval until ctx is
// done (then it returns nil): the seeds may not be up yet.
func (a *Agent) connect(ctx context.Context) *Client {
	logged := false
	for {
		cctx, cancel := context.WithTimeout(ctx, a.checkTimeout())
		c, err := Connect(cctx, a.clientConfig(a.cfg.Server.Seeds))
		cancel()
		if err == nil {
			return c
		}
		if !logged && ctx.Err() == nil {
			a.cfg.Logf("%v; trying again", err)
			logged = true
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(a.cfg.Interval):
		}
	}
}

// startStandby starts the proxy and records the host as a standby.
func (a *Agent) startStandby(ctx context.Context, c *Client, members int) (*proxy, error) {
	px, err := startProxy(a.cfg.Server.ClientURLs)
	if err != nil {
		return nil, err
	}
	if err := c.setStandby(ctx, a.cfg.Server.advClient()); err != nil {
		a.cfg.Logf("recording the standby: %v", err)
	}
	a.cfg.State("standby")
	a.cfg.Logf("cluster has %d members (ideal %d): standing by, proxying %v", members, a.cfg.IdealSize, a.cfg.Server.ClientURLs)
	return px, nil
}

// checkTimeout is how long one health check waits for a member.
func (a *Agent) checkTimeout() time.Duration { return max(2*time.Second, a.cfg.Interval) }

// observe updates the failure counts of the members.
func (a *Agent) observe(ms []*Member, fails map[string]int) {
	seen := map[string]bool{}
	for _, m := range ms {
		seen[m.ID] = true
		if m.Healthy {
			delete(fails, m.ID)
		} else {
			fails[m.ID]++
		}
	}
	for id := range fails {
		if !seen[id] {
			delete(fails, id) // removed meanwhile
		}
	}
}

// deadMember returns a member that failed DeadAfter checks in a row and
// whose removal keeps a quorum of healthy voters (a learner never counts
// towards the quorum), or nil.
func (a *Agent) deadMember(ms []*Member, fails map[string]int) *Member {
	voters, healthy := 0, 0
	for _, m := range ms {
		if !m.Learner {
			voters++
			if m.Healthy {
				healthy++
			}
		}
	}
	for _, m := range ms {
		if fails[m.ID] >= a.cfg.DeadAfter && !m.Healthy && (m.Learner || 2*healthy > voters-1) {
			return m
		}
	}
	return nil
}

// voterURLs returns the client URLs of the voting members (learners serve
// no ordinary requests), of the healthy ones only when healthy is set.
func voterURLs(ms []*Member, healthy bool) []string {
	var out []string
	for _, m := range ms {
		if !m.Learner && (m.Healthy || !healthy) {
			out = append(out, m.ClientURLs...)
		}
	}
	return out
}

// lockWait bounds a standby's wait for the membership lock; it then looks
// at the cluster again.
const lockWait = 30 * time.Second

// promote takes the membership lock and checks again, on fresh health
// checks, that the cluster wants a member: it removes the dead member if
// there is one (one per promotion) and returns the lock with the client
// URLs to join through. A nil lock means the cluster wants no member any
// more (another standby was faster): keep standing by.
func (a *Agent) promote(ctx context.Context, c *Client, fails map[string]int) (*memberLock, []string, error) {
	lk, err := c.lockMembership(ctx, lockWait)
	if err != nil {
		return nil, nil, err
	}
	ms, err := c.Status(ctx, a.checkTimeout())
	if err == nil {
		ms, err = a.removeDead(ctx, c, ms, fails)
	}
	if err != nil || len(ms) >= a.cfg.IdealSize {
		lk.release()
		return nil, nil, err
	}
	live := voterURLs(ms, true)
	if len(live) == 0 || !lk.held(ctx) {
		lk.release()
		return nil, nil, fmt.Errorf("membership lock lost or no healthy member to join through")
	}
	a.cfg.Logf("cluster has %d members (ideal %d): joining", len(ms), a.cfg.IdealSize)
	return lk, live, nil
}

// removeDead runs under the membership lock with fresh health checks ms:
// it removes one member that was dead before the lock and still is, when
// its removal keeps a quorum, and returns the remaining members.
func (a *Agent) removeDead(ctx context.Context, c *Client, ms []*Member, fails map[string]int) ([]*Member, error) {
	a.observe(ms, fails)
	m := a.deadMember(ms, fails)
	if m == nil {
		return ms, nil
	}
	a.cfg.Logf("member %s (%s) is dead: removing it", orUnnamed(m.Name), m.ID)
	if err := c.removeID(ctx, m.ID); err != nil {
		return nil, fmt.Errorf("removing dead member %s: %v", orUnnamed(m.Name), err)
	}
	var out []*Member
	for _, x := range ms {
		if x != m {
			out = append(out, x)
		}
	}
	return out, nil
}

func orUnnamed(name string) string {
	if name == "" {
		return "(not started)"
	}
	return name
}
