// Package mgmtcluster implements the mgmt-cluster tool: it runs a host of
// the self-managing etcd cluster that holds the shared world (a member, or a
// standby proxy promoted when a member leaves or dies), and talks to a
// running cluster: health, membership, world keys, and the certificates of
// a TLS cluster.
package mgmtcluster

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mgmtpipe/mgmt/internal/cli"
	"github.com/mgmtpipe/mgmt/internal/statedir"
	"github.com/mgmtpipe/mgmt/pkg/world"
)

const name = "mgmt-cluster"

// connFlags are the flags of every command that reaches a cluster.
type connFlags struct {
	Seeds     []string `help:"Client URLs of the cluster (run: of the cluster to join)." placeholder:"URL"`
	Namespace string   `help:"Key prefix of the world." default:"/_mgmt"`
	cli.TLSFlags
	Insecure bool          `help:"Allow plain http on non-loopback addresses (and, for run, to serve it at all)."`
	Timeout  time.Duration `help:"Time to wait for the cluster to answer." default:"5s"`
}

type flags struct {
	cli.VersionFlag
	connFlags
	cli.LogFlags

	Run     runCmd     `cmd:"" help:"Run a host of the cluster: a member, or a standby beyond the ideal size."`
	Status  statusCmd  `cmd:"" help:"Print the health of every member."`
	Members membersCmd `cmd:"" help:"Print the members of the cluster."`
	Get     getCmd     `cmd:"" help:"Print the value of a world key (relative to the namespace, e.g. strings/foo)."`
	Put     putCmd     `cmd:"" help:"Set a world key."`
	Del     delCmd     `cmd:"" help:"Delete a world key."`
	Remove  removeCmd  `cmd:"" help:"Remove a member from the cluster (needs an admin certificate under TLS)."`
	Certs   certsCmd   `cmd:"" help:"Generate a CA and certificates of hosts, members or admins."`

	WorldClient worldClientCmd `cmd:"" name:"world-client" hidden:"" help:"Hold the world's connection for the mgmt-apply that started it, over stdin and stdout."`
}

// env is what a command runs with.
type env struct {
	ctx    context.Context
	conn   *connFlags
	stdin  io.Reader
	stdout io.Writer
	lg     *cli.Logger
	debug  bool // --debug: etcd's own messages at info level too
}

// tls returns the TLS files, or nil when none are configured.
func (c *connFlags) tls() *world.TLSFiles {
	return world.NewTLSFiles(c.TLSCert, c.TLSKey, c.TLSCA)
}

// localPrefix is where the query commands look for the local member
// without --seeds: the state directory of $MGMT_PREFIX (as run reads it),
// or the default one.
func localPrefix() (string, error) {
	if p := os.Getenv("MGMT_PREFIX"); p != "" {
		return p, nil
	}
	return statedir.Default()
}

// defaultURL returns https://127.0.0.1:port.
func defaultURL(port int) string {
	return fmt.Sprintf("https://127.0.0.1:%d", port)
}

// defaultSeeds returns the client URL the local member published under the
// default prefix, or else where it listens by default: the unix socket
// without TLS, port 2379 with it.
func (c *connFlags) defaultSeeds() ([]string, error) {
	prefix, err := localPrefix()
	if err != nil {
		return nil, err
	}
	lay, err := world.PrefixLayout(prefix)
	if err != nil {
		return nil, err
	}
	if b, err := os.ReadFile(lay.URLFile()); err == nil {
		return []string{strings.TrimSpace(string(b))}, nil
	}
	if c.tls() != nil {
		return []string{defaultURL(2379)}, nil
	}
	return []string{lay.ClientURL}, nil
}

// connect returns a client of the cluster at --seeds (default: the local
// member).
func (e *env) connect() (*world.Client, error) {
	seeds := e.conn.Seeds
	if len(seeds) == 0 {
		var err error
		if seeds, err = e.conn.defaultSeeds(); err != nil {
			return nil, err
		}
	}
	t := e.conn.tls()
	if t != nil {
		if err := t.Check(); err != nil {
			return nil, err
		}
	}
	if err := world.CheckURLs(seeds, t != nil, e.conn.Insecure); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(e.ctx, e.conn.Timeout)
	defer cancel()
	return world.Connect(ctx, world.Config{Endpoints: seeds, Namespace: e.conn.Namespace, Hostname: "mgmt-cluster", TLS: t})
}

// Run runs mgmt-cluster with args and its streams and returns the exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f flags
	kctx, code, done := cli.Parse(name, description, &f, args, stdout, stderr)
	if done {
		return code
	}
	e := &env{ctx: ctx, conn: &f.connFlags, stdin: stdin, stdout: stdout,
		lg: cli.NewLogger(name, stderr, f.LogFlags), debug: f.Debug}
	var err error
	switch cmd := kctx.Command(); {
	case cmd == "run":
		err = f.Run.run(e)
	case cmd == "status":
		err = f.Status.run(e)
	case cmd == "members":
		err = f.Members.run(e)
	case strings.HasPrefix(cmd, "get"):
		err = f.Get.run(e)
	case strings.HasPrefix(cmd, "put"):
		err = f.Put.run(e)
	case strings.HasPrefix(cmd, "del"):
		err = f.Del.run(e)
	case strings.HasPrefix(cmd, "remove"):
		err = f.Remove.run(e)
	case strings.HasPrefix(cmd, "certs"):
		err = f.Certs.run(e)
	case cmd == "world-client":
		err = f.WorldClient.run(e)
	default:
		err = fmt.Errorf("unknown command %q", cmd)
	}
	if err != nil {
		e.lg.Fail(err)
		return cli.ExitFail
	}
	return cli.ExitOK
}

type runCmd struct {
	Name             string   `help:"Member name (default: the hostname)."`
	Prefix           string   `help:"State directory; the member's files go to PREFIX/world (mode 0700); default ${default_prefix}." type:"path"`
	DataDir          string   `help:"Member data directory (default: PREFIX/world/server)." type:"path"`
	ClientURLs       []string `name:"client-urls" help:"URLs to serve clients on (default: unix://PREFIX/world/client.sock, or https://127.0.0.1:2379 with TLS)." placeholder:"URL"`
	ServerURLs       []string `name:"server-urls" help:"URLs to serve peers on (default with TLS: https://127.0.0.1:2380; without: a loopback port only this member's own certificate gets through, which keeps it alone in its cluster)." placeholder:"URL"`
	AdvClientURLs    []string `name:"advertise-client-urls" help:"Client URLs given to others (default: --client-urls)." placeholder:"URL"`
	AdvServerURLs    []string `name:"advertise-server-urls" help:"Peer URLs given to others (default: --server-urls)." placeholder:"URL"`
	IdealClusterSize int      `name:"ideal-cluster-size" help:"Voting members wanted; more hosts wait as standby proxies." default:"5"`
	Prometheus       bool     `help:"Serve Prometheus metrics: etcd's own (etcd_*), Go's and the process's."`
	PrometheusListen string   `name:"prometheus-listen" help:"Address of the Prometheus endpoint." default:"127.0.0.1:9234" placeholder:"ADDR"`

	peerTLS *world.TLSFiles // the throw-away peer identity of a member without TLS, on a port picked free
}

// defaults fills the data directory and URLs left out: without TLS the
// member serves on unix sockets in the private directory of the prefix.
func (r *runCmd) defaults(withTLS bool) error {
	if r.Name == "" {
		h, err := os.Hostname()
		if err != nil {
			return err
		}
		r.Name = h
	}
	if withTLS && len(r.ClientURLs) == 0 {
		r.ClientURLs = []string{defaultURL(2379)}
	}
	if withTLS && len(r.ServerURLs) == 0 {
		r.ServerURLs = []string{defaultURL(2380)}
	}
	if r.DataDir != "" && len(r.ClientURLs) > 0 && len(r.ServerURLs) > 0 {
		return nil
	}
	if r.Prefix == "" {
		var err error
		if r.Prefix, err = statedir.Default(); err != nil {
			return err
		}
	}
	lay, err := world.PrefixLayout(r.Prefix)
	if err != nil {
		return err
	}
	if err := lay.Prepare(); err != nil {
		return err
	}
	if r.DataDir == "" {
		if err := lay.CheckOldData(); err != nil {
			return err
		}
		r.DataDir = lay.DataDir
	}
	if len(r.ClientURLs) == 0 {
		r.ClientURLs = []string{lay.ClientURL}
	}
	if len(r.ServerURLs) == 0 {
		// Alone in its cluster: peers are shut out (see PrivatePeer).
		peer, t, err := lay.PrivatePeer()
		if err != nil {
			return err
		}
		r.ServerURLs, r.peerTLS = []string{peer}, t
	}
	return nil
}

func (r *runCmd) run(e *env) error {
	if err := r.defaults(e.conn.tls() != nil); err != nil {
		return err
	}
	a, err := world.NewAgent(world.AgentConfig{
		Server: world.ServerConfig{
			Name:                r.Name,
			DataDir:             r.DataDir,
			ClientURLs:          r.ClientURLs,
			PeerURLs:            r.ServerURLs,
			AdvertiseClientURLs: r.AdvClientURLs,
			AdvertisePeerURLs:   r.AdvServerURLs,
			Seeds:               e.conn.Seeds,
			TLS:                 e.conn.tls(),
			Namespace:           e.conn.Namespace,
			PeerTLS:             r.peerTLS,
			PeerPicked:          r.peerTLS != nil,
			Insecure:            e.conn.Insecure,
			Logger:              e.lg.Logger,
			Logf:                e.lg.Warnf,
			Debug:               e.debug,
		},
		IdealSize: r.IdealClusterSize,
		Namespace: e.conn.Namespace,
		Logf:      e.lg.Infof,
		State:     notifyState,
	})
	if err != nil {
		return err
	}
	if r.Prometheus {
		// etcd registers its metrics in the default registry, beside
		// the Go and process collectors.
		at, stopMetrics, err := cli.ServeMetrics(r.PrometheusListen, promhttp.HandlerFor(prometheus.DefaultGatherer, promhttp.HandlerOpts{}))
		if err != nil {
			return fmt.Errorf("prometheus: %w", err)
		}
		defer stopMetrics()
		e.lg.Infof("prometheus metrics on http://%s/metrics", at)
	}
	stop := ignoreHangups(e)
	defer stop()
	defer cli.Watchdog()()
	return a.Run(e.ctx)
}

// notifyState tells the service manager, if any, what the host has
// become: ready once it serves as a member or a standby.
func notifyState(state string) {
	switch state {
	case "member", "standby":
		cli.Notify("READY=1", "STATUS=running as "+state)
	case "stopped":
		cli.Notify("STOPPING=1")
	}
}

// ignoreHangups logs each SIGHUP until the returned function is called: a
// member has nothing to read again (its flags are its configuration, and
// it logs to stderr, where there is no file to reopen), and a reload must
// not stop it.
func ignoreHangups(e *env) func() {
	return cli.OnHangup(func() { e.lg.Infof("SIGHUP: nothing to reload (the flags are the configuration)") })
}
