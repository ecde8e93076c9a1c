package world

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// ServerConfig describes an embedded etcd member.
type ServerConfig struct {
	Name       string   // member name: the hostname
	DataDir    string   // the member's data; reused when it holds a member
	ClientURLs []string // listened on for clients
	PeerURLs   []string // listened on for peers
	// AdvertiseClientURLs and AdvertisePeerURLs are the URLs given to
	// clients and peers; empty means the listen URLs (which then must not
	// be wildcard addresses).
	AdvertiseClientURLs []string
	AdvertisePeerURLs   []string
	Seeds               []string // client URLs of a cluster to join; none starts a new one
	// TLS, when set, secures peer and client traffic with certificates
	// of the cluster's CA and turns on etcd's authentication: the
	// certificate must be a member's, and clients get the rights of their
	// certificate's identity (see Identity).
	TLS *TLSFiles
	// Namespace is the key prefix of the world in which hosts of a TLS
	// cluster get their rights; empty means DefaultNamespace.
	Namespace string
	// PeerTLS, when set, secures the peer traffic instead of TLS: the
	// throw-away identity of a member alone in its cluster (see
	// Layout.PrivatePeer).
	PeerTLS *TLSFiles
	// PeerPicked says that PeerURLs is the one loopback URL of
	// Layout.PrivatePeer, on a port that was free a moment before, not a
	// URL the user gave: when another process takes that port before etcd
	// listens on it, StartServer tries again on another port, five ports
	// in all (a member joining through seeds, whose peer URL the cluster
	// already lists, does not).
	PeerPicked bool
	Insecure   bool      // allow plain http (on loopback: for a member)
	Log        io.Writer // etcd's own log; nil discards it
	// Logger, when set, receives etcd's own log instead of Log, as
	// records in the format of the tool's log.
	Logger *slog.Logger
	// Logf receives a line for each picked peer port found taken (see
	// PeerPicked); nil discards them.
	Logf  func(format string, v ...any)
	Debug bool // log etcd at info level instead of fatal errors only
	// beforeStart, when set (by tests), is called with the peer URLs
	// each time etcd is about to listen on them.
	beforeStart func(peerURLs []string)
	// ForceNewCluster restarts a member from its data as the only member
	// of its cluster, whatever the URLs it had: for private worlds, whose
	// ports change from run to run.
	ForceNewCluster bool
	// MaxVoters, when positive, caps the voting members: a new member
	// joins as a learner and is promoted only while the cluster has fewer
	// voters; otherwise it removes itself again (ErrClusterFull).
	MaxVoters int
}

// Validate reports missing fields and URLs that do not fit the security
// policy.
func (c *ServerConfig) Validate() error {
	if err := checkHost(c.Name); err != nil {
		return fmt.Errorf("member name: %v", err)
	}
	if c.DataDir == "" {
		return fmt.Errorf("no data directory")
	}
	if len(c.ClientURLs) == 0 || len(c.PeerURLs) == 0 {
		return fmt.Errorf("need client and peer URLs")
	}
	for _, t := range []*TLSFiles{c.TLS, c.PeerTLS} {
		if t == nil {
			continue
		}
		if err := t.Check(); err != nil {
			return err
		}
	}
	if c.TLS != nil {
		if _, err := newAuthority(c); err != nil {
			return err
		}
	}
	peerTLS := c.TLS != nil || c.PeerTLS != nil
	if err := checkListenURLs(c.ClientURLs, c.TLS != nil, c.Insecure); err != nil {
		return err
	}
	if err := checkListenURLs(c.PeerURLs, peerTLS, c.Insecure); err != nil {
		return err
	}
	if err := CheckURLs(c.AdvertisePeerURLs, peerTLS, c.Insecure); err != nil {
		return err
	}
	for _, us := range [][]string{c.Seeds, c.AdvertiseClientURLs} {
		if err := CheckURLs(us, c.TLS != nil, c.Insecure); err != nil {
			return err
		}
	}
	for _, u := range c.PeerURLs {
		if strings.HasPrefix(u, "unix:") {
			return fmt.Errorf("peer URL %q: etcd takes a unix socket for peers only relative to the working directory; use https", u)
		}
	}
	if c.PeerPicked {
		if len(c.PeerURLs) != 1 {
			return fmt.Errorf("a picked peer URL is a single URL, got %d", len(c.PeerURLs))
		}
		if u, err := url.Parse(c.PeerURLs[0]); err != nil || !isLoopback(u.Hostname()) {
			return fmt.Errorf("picked peer URL %q: want a loopback address", c.PeerURLs[0])
		}
	}
	return nil
}

// advClient returns the client URLs advertised.
func (c *ServerConfig) advClient() []string {
	if len(c.AdvertiseClientURLs) > 0 {
		return c.AdvertiseClientURLs
	}
	return c.ClientURLs
}

// advPeer returns the peer URLs advertised.
func (c *ServerConfig) advPeer() []string {
	if len(c.AdvertisePeerURLs) > 0 {
		return c.AdvertisePeerURLs
	}
	return c.PeerURLs
}

// CheckURLs reports a URL that is neither http(s)://HOST:PORT nor
// unix:///PATH, https without TLS files, http or unix with them, or plain
// http on a non-loopback address unless insecure.
func CheckURLs(us []string, withTLS, insecure bool) error {
	for _, s := range us {
		u, err := url.Parse(s)
		if err != nil {
			return fmt.Errorf("bad URL %q: %v", s, err)
		}
		if u.Scheme == "unix" {
			if u.Host != "" || !path.IsAbs(u.Path) || u.Path != path.Clean(u.Path) {
				return fmt.Errorf("bad URL %q: want unix:///ABSOLUTE/PATH", s)
			}
			if withTLS {
				return fmt.Errorf("URL %q: TLS is configured, use https", s)
			}
			if len(u.Path) > maxSocketPath {
				return fmt.Errorf("URL %q: a socket path has at most %d bytes", s, maxSocketPath)
			}
			continue
		}
		if u.Scheme != "http" && u.Scheme != "https" || u.Port() == "" || u.Hostname() == "" {
			return fmt.Errorf("bad URL %q: want http(s)://HOST:PORT or unix:///PATH", s)
		}
		if withTLS && u.Scheme != "https" {
			return fmt.Errorf("URL %q: TLS is configured, use https", s)
		}
		if !withTLS && u.Scheme == "https" {
			return fmt.Errorf("URL %q: https needs --tls-cert, --tls-key and --tls-ca", s)
		}
		if u.Scheme == "http" && !insecure && !isLoopback(u.Hostname()) {
			return fmt.Errorf("URL %q: plain http is only allowed on loopback; use TLS or --insecure", s)
		}
	}
	return nil
}

// maxSocketPath is the longest path of a unix socket (sun_path less its
// terminating NUL).
const maxSocketPath = 107

// checkListenURLs applies CheckURLs to URLs a member listens on, and also
// refuses plain http on loopback unless insecure: every local user reaches
// a loopback port, so only TLS or a unix socket in a private directory
// keeps them out of the world.
func checkListenURLs(us []string, withTLS, insecure bool) error {
	if err := CheckURLs(us, withTLS, insecure); err != nil {
		return err
	}
	for _, s := range us {
		if strings.HasPrefix(s, "http:") && !insecure {
			return fmt.Errorf("URL %q: a member serving plain http lets every local user read and write the world; use TLS, a unix:///PATH socket, or --insecure", s)
		}
	}
	return nil
}

// netAddr returns the network and address a client or listen URL stands
// for: "unix" and the socket's path, or "tcp" and HOST:PORT.
func netAddr(s string) (network, addr string, err error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", "", err
	}
	if u.Scheme == "unix" {
		return "unix", u.Path, nil
	}
	return "tcp", u.Host, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// A Server is a running embedded etcd member.
type Server struct {
	cfg  ServerConfig
	etcd *embed.Etcd
	auth *authority // with TLS
}

// HasData reports whether dir holds an etcd member's data.
func HasData(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "member", "wal"))
	return err == nil
}

// StartServer starts a member and returns once it is a voting member
// serving clients. With a member's data in DataDir it restarts that member
// (with seeds, it stops with ErrRemoved as soon as the seeds' cluster no
// longer lists it); otherwise, with seeds it adds itself to their cluster
// as a learner, starts, catches up and is promoted (see MaxVoters), and
// without seeds it starts a new single-member cluster.
func StartServer(ctx context.Context, cfg ServerConfig) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, err
	}
	ec, err := cfg.embedConfig()
	if err != nil {
		return nil, err
	}
	var auth *authority
	if cfg.TLS != nil {
		if auth, err = newAuthority(&cfg); err != nil {
			return nil, err
		}
		ec.GRPCAdditionalServerOptions = auth.serverOptions()
	}
	var added uint64 // the learner we added to a cluster, removed on failure
	restart := HasData(cfg.DataDir)
	switch {
	case restart:
		ec.ClusterState = embed.ClusterStateFlagExisting
		ec.ForceNewCluster = cfg.ForceNewCluster
	case len(cfg.Seeds) > 0:
		ec.ClusterState = embed.ClusterStateFlagExisting
		if ec.InitialCluster, added, err = cfg.join(ctx); err != nil {
			return nil, err
		}
	default:
		ec.ClusterState = embed.ClusterStateFlagNew
	}
	e, err := cfg.startEtcd(ec, added == 0)
	if err != nil {
		if added != 0 {
			cfg.abandon(added)
		}
		return nil, fmt.Errorf("starting etcd member %s: %w", ec.Name, err)
	}
	s := &Server{cfg: cfg, etcd: e, auth: auth}
	if err := s.waitReady(ctx, restart && len(cfg.Seeds) > 0); err != nil {
		if added != 0 {
			cfg.abandon(added)
		}
		return nil, err
	}
	if e.Server.IsLearner() {
		if err := s.promote(ctx); err != nil {
			return nil, err
		}
	}
	err = restrictSockets(cfg.ClientURLs)
	if err == nil && auth != nil {
		err = auth.start(ctx, e.Server)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// pickedPeerPorts bounds the ports a member with a picked peer URL tries
// (see ServerConfig.PeerPicked): each is free when picked, and another
// process taking five of them in a row in the moment before etcd listens
// is no race but a host out of ports.
const pickedPeerPorts = 5

// startEtcd starts etcd with ec. When the peer URL was picked and repick
// allows it, a peer port another process took meanwhile is replaced by a
// fresh one, in ec and in c, with a line to Logf; any other error is
// returned as it is.
func (c *ServerConfig) startEtcd(ec *embed.Config, repick bool) (*embed.Etcd, error) {
	for n := 1; ; n++ {
		if c.beforeStart != nil {
			c.beforeStart(c.PeerURLs)
		}
		e, err := embed.StartEtcd(ec)
		if err == nil || !c.PeerPicked || !repick || !listenTaken(err, c.PeerURLs[0]) {
			return e, err
		}
		if n == pickedPeerPorts {
			return nil, fmt.Errorf("%w (each of the %d free ports picked for peers was taken before etcd listened on it)", err, n)
		}
		peer, perr := pickPeerURL()
		if perr != nil {
			return nil, err
		}
		if c.Logf != nil {
			c.Logf("etcd member %s: peer URL %s was taken by another process before etcd listened on it; trying %s", c.Name, c.PeerURLs[0], peer)
		}
		c.PeerURLs = []string{peer}
		if err := c.setPeerURLs(ec); err != nil {
			return nil, err
		}
	}
}

// listenTaken reports whether err is etcd failing to listen on the
// address of URL u because another socket holds it.
func listenTaken(err error, u string) bool {
	_, addr, perr := netAddr(u)
	var op *net.OpError
	return perr == nil && errors.Is(err, syscall.EADDRINUSE) && errors.As(err, &op) &&
		op.Op == "listen" && op.Addr != nil && op.Addr.String() == addr
}

// ErrRemoved is returned by StartServer when the member restarting from
// its data was removed from the cluster meanwhile: its data is of no use
// any more (the member was stopped, the data left in place).
var ErrRemoved = errors.New("removed from the cluster")

// waitReady waits until the member serves clients. With check, the
// seeds are asked every two seconds whether the cluster still lists the
// member: a member removed while it was down may never hear of it from its
// old peers (they may all be gone).
func (s *Server) waitReady(ctx context.Context, check bool) error {
	es, name := s.etcd.Server, s.cfg.Name
	var tick <-chan time.Time
	if check {
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-es.ReadyNotify():
			return nil
		case err := <-s.etcd.Err():
			return s.failedStart(fmt.Errorf("etcd member %s: %v", name, err))
		case <-es.StopNotify():
			return s.failedStart(fmt.Errorf("etcd member %s stopped while starting", name))
		case <-tick:
			if s.goneAt(ctx, s.cfg.Seeds) {
				s.Close()
				return fmt.Errorf("etcd member %s: %w", name, ErrRemoved)
			}
		case <-ctx.Done():
			s.Close()
			return fmt.Errorf("etcd member %s not ready: %v", name, ctx.Err())
		}
	}
}

// restrictSockets makes the unix sockets among the URLs readable and
// writable by their owner only (the directory they live in should be
// private too).
func restrictSockets(us []string) error {
	for _, u := range us {
		if network, p, err := netAddr(u); err == nil && network == "unix" {
			if err := restrictSocket(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// restrictSocket gives the socket at path to its owner alone.
func restrictSocket(path string) error { return os.Chmod(path, 0o600) }

// embedConfig translates the configuration for etcd.
func (c *ServerConfig) embedConfig() (*embed.Config, error) {
	ec := embed.NewConfig()
	ec.Name = c.Name
	ec.Dir = c.DataDir
	var err error
	if ec.ListenClientUrls, err = parseURLs(c.ClientURLs); err != nil {
		return nil, err
	}
	if ec.AdvertiseClientUrls, err = parseURLs(c.advClient()); err != nil {
		return nil, err
	}
	if err := c.setPeerURLs(ec); err != nil {
		return nil, err
	}
	ec.InitialClusterToken = "mgmt"
	// The JSON gateway would be a second door to the same keys; the tools
	// speak gRPC only.
	ec.EnableGRPCGateway = false
	ec.AutoCompactionMode = embed.CompactorModePeriodic
	ec.AutoCompactionRetention = "1h"
	if c.TLS != nil {
		ec.ClientTLSInfo = c.TLS.info()
		ec.PeerTLSInfo = c.TLS.info()
		// Only members speak raft: hosts' and admins' certificates
		// lack the name.
		ec.PeerTLSInfo.AllowedHostnames = []string{MemberSAN}
	}
	if c.PeerTLS != nil {
		ec.PeerTLSInfo = c.PeerTLS.info()
	}
	// etcd logs errors on every ordinary shutdown: only its fatal
	// messages are shown unless debugging.
	level := zapcore.DPanicLevel
	if c.Debug {
		level = zapcore.InfoLevel
	}
	w := c.Log
	if w == nil {
		w = io.Discard
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	var core zapcore.Core = &slogCore{lg: c.Logger, min: level}
	if c.Logger == nil {
		core = zapcore.NewCore(zapcore.NewConsoleEncoder(enc), zapcore.AddSync(w), level)
	}
	lg := zap.New(core)
	ec.ZapLoggerBuilder = embed.NewZapLoggerBuilder(lg)
	ec.Logger = "zap"
	return ec, nil
}

// setPeerURLs sets the peer URLs of ec, and the initial cluster of this
// member alone.
func (c *ServerConfig) setPeerURLs(ec *embed.Config) error {
	var err error
	if ec.ListenPeerUrls, err = parseURLs(c.PeerURLs); err != nil {
		return err
	}
	if ec.AdvertisePeerUrls, err = parseURLs(c.advPeer()); err != nil {
		return err
	}
	ec.InitialCluster = c.Name + "=" + strings.Join(c.advPeer(), ","+c.Name+"=")
	return nil
}

func parseURLs(us []string) ([]url.URL, error) {
	out := make([]url.URL, 0, len(us))
	for _, s := range us {
		u, err := url.Parse(s)
		if err != nil {
			return nil, err
		}
		out = append(out, *u)
	}
	return out, nil
}

// seedClient connects to the seeds with the member's TLS identity.
func (c *ServerConfig) seedClient(endpoints []string) (*clientv3.Client, error) {
	cc := clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()}
	if c.TLS != nil {
		tc, err := c.TLS.ClientConfig()
		if err != nil {
			return nil, err
		}
		cc.TLS = tc
	}
	return clientv3.New(cc)
}

// failedStart stops a member that failed while starting and returns err,
// or ErrRemoved when the member was removed from the cluster: etcd stops
// a removed member as soon as a peer tells it.
func (s *Server) failedStart(err error) error {
	removed := s.removed()
	s.Close()
	if removed {
		return fmt.Errorf("%v: %w", err, ErrRemoved)
	}
	return err
}

// join adds this member to the seeds' cluster as a learner and returns
// the initial cluster string to start with and the new member's ID. A
// learner does not count towards the quorum, so the cluster stays
// available while it starts and catches up, and etcd admits one learner
// at a time (ErrJoinBusy when another one is pending). A stale member with
// the same peer URLs (one that never started, or lost its data) is removed
// first.
func (c *ServerConfig) join(ctx context.Context) (string, uint64, error) {
	cli, err := c.seedClient(c.Seeds)
	if err != nil {
		return "", 0, err
	}
	defer cli.Close()
	list, err := memberList(ctx, cli)
	if err != nil {
		return "", 0, fmt.Errorf("joining through %s: %v", strings.Join(c.Seeds, ","), err)
	}
	for _, m := range list.Members {
		same := samePeers(m.PeerURLs, c.advPeer())
		if m.Name == c.Name && !same {
			return "", 0, fmt.Errorf("a member named %s already exists with peer URLs %s: %w", c.Name, strings.Join(m.PeerURLs, ","), errNameTaken)
		}
		if same {
			octx, cancel := opContext(ctx)
			_, err := cli.MemberRemove(octx, m.ID)
			cancel()
			if err != nil {
				return "", 0, fmt.Errorf("removing the stale member %x: %v", m.ID, err)
			}
		}
	}
	var add *clientv3.MemberAddResponse
	err = retryUnhealthy(ctx, func(ctx context.Context) error {
		var err error
		add, err = cli.MemberAddAsLearner(ctx, c.advPeer())
		return err
	})
	if err != nil && strings.Contains(err.Error(), "too many learner") {
		return "", 0, fmt.Errorf("adding member %s: %w", c.Name, ErrJoinBusy)
	}
	if err != nil {
		return "", 0, fmt.Errorf("adding member %s: %v", c.Name, err)
	}
	var parts []string
	for _, m := range add.Members {
		name := m.Name
		if m.ID == add.Member.ID {
			name = c.Name
		} else if name == "" {
			name = fmt.Sprintf("%x", m.ID) // added by someone else, not started yet
		}
		for _, p := range m.PeerURLs {
			parts = append(parts, name+"="+p)
		}
	}
	return strings.Join(parts, ","), add.Member.ID, nil
}

// ErrJoinBusy is returned by StartServer when another member is joining
// the cluster (as its one learner): try again later.
var ErrJoinBusy = errors.New("another member is joining")

// ErrClusterFull is returned by StartServer when the learner found the
// cluster at MaxVoters voting members: it removed itself again and deleted
// its data.
var ErrClusterFull = errors.New("the cluster has its voting members")

// promoteTimeout bounds the attempts to promote a learner.
const promoteTimeout = 2 * time.Minute

// promote makes the learner a voting member once it has caught up with
// the leader. It checks first, on the seeds' linearizable member list,
// that the cluster has fewer than MaxVoters voters. No other voter can be
// added between the check and the promotion: members only ever join as
// learners, etcd admits a single learner, and this member is that learner.
// When the cluster is full the learner removes itself, deletes its data
// and returns ErrClusterFull; when it cannot be promoted it is abandoned
// the same way.
func (s *Server) promote(ctx context.Context) error {
	id := uint64(s.etcd.Server.MemberID())
	cli, err := s.cfg.seedClient(s.cfg.Seeds)
	if err != nil {
		s.abandon()
		return err
	}
	defer cli.Close()
	pctx, cancel := context.WithTimeout(ctx, promoteTimeout)
	defer cancel()
	for {
		done, err := s.promoteOnce(pctx, cli, id)
		if done {
			return nil
		}
		if errors.Is(err, ErrClusterFull) || errors.Is(err, ErrRemoved) || pctx.Err() != nil {
			s.abandon()
			return err
		}
		select {
		case <-pctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// promoteOnce checks the member list and asks for the promotion; done
// reports that the member is a voter (perhaps through an earlier attempt
// whose answer was lost).
func (s *Server) promoteOnce(ctx context.Context, cli *clientv3.Client, id uint64) (done bool, err error) {
	list, err := memberList(ctx, cli)
	if err != nil {
		return false, fmt.Errorf("promoting member %s: %v", s.cfg.Name, err)
	}
	voters, found := 0, false
	for _, m := range list.Members {
		if m.ID == id {
			found = true
			if !m.IsLearner {
				return true, nil
			}
		}
		if !m.IsLearner {
			voters++
		}
	}
	if !found {
		return false, fmt.Errorf("promoting member %s: %w", s.cfg.Name, ErrRemoved)
	}
	if s.cfg.MaxVoters > 0 && voters >= s.cfg.MaxVoters {
		return false, fmt.Errorf("promoting member %s: %w", s.cfg.Name, ErrClusterFull)
	}
	octx, cancel := opContext(ctx)
	defer cancel()
	if _, err := cli.MemberPromote(octx, id); err != nil {
		return false, fmt.Errorf("promoting member %s: %v", s.cfg.Name, err)
	}
	return true, nil
}

// abandon stops a learner that will not be promoted and removes it from
// the cluster, with its data once the removal is committed.
func (s *Server) abandon() {
	s.Close()
	s.cfg.abandon(uint64(s.etcd.Server.MemberID()))
}

func samePeers(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	set := map[string]bool{}
	for _, s := range a {
		set[s] = true
	}
	for _, s := range b {
		if !set[s] {
			return false
		}
	}
	return true
}

// abandon removes the learner id, which never became a voter, through
// the seeds (removing a learner never touches the quorum), and deletes its
// data once the removal is committed. It is best effort: a learner left
// behind is restarted from its data, or removed as dead by a standby.
func (c *ServerConfig) abandon(id uint64) {
	cli, err := c.seedClient(c.Seeds)
	if err != nil {
		return
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := cli.MemberRemove(ctx, id); err == nil || strings.Contains(err.Error(), "member not found") {
		os.RemoveAll(c.DataDir)
	}
}

// ID returns the member's ID.
func (s *Server) ID() uint64 { return uint64(s.etcd.Server.MemberID()) }

// Name returns the member's name.
func (s *Server) Name() string { return s.cfg.Name }

// ClientURLs returns the URLs clients reach the member on.
func (s *Server) ClientURLs() []string { return s.cfg.advClient() }

// Done is closed when the member stopped on its own: removed from the
// cluster, or a fatal error.
func (s *Server) Done() <-chan struct{} { return s.etcd.Server.StopNotify() }

// Err returns the error that stopped the member, if any.
func (s *Server) Err() <-chan error { return s.etcd.Err() }

// Close stops the member and keeps its membership and data, as a crash
// would: a restart with the same data directory rejoins.
func (s *Server) Close() {
	if s.auth != nil {
		s.auth.close()
	}
	// Stopping the server first lets Close return for a member that is
	// not ready (waiting for its peers): etcd's Close waits for its
	// client listeners, which wait for the server to be ready or stopping.
	s.etcd.Server.HardStop()
	s.etcd.Close()
}
