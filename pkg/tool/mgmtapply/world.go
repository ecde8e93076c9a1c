package mgmtapply

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mgmtpipe/mgmt/internal/cli"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
	"github.com/mgmtpipe/mgmt/pkg/world/worldpipe"
)

// openWorld returns the world of --seeds (or, without seeds, the private
// one under the prefix), held by a child process, mgmt-cluster
// world-client, so that mgmt-apply links no etcd client. It is lazy:
// nothing is started until a resource, or an exported resource, needs
// it; only a world configured by flags (--seeds, TLS) starts the child at
// once, so that a bad configuration stops the tool before anything runs.
func openWorld(ctx context.Context, f *flags, hostname, prefix string, stderr io.Writer, lg *cli.Logger) (*worldpipe.Client, error) {
	path, ferr := f.WorldClient, error(nil)
	if path == "" {
		if path, ferr = worldpipe.Find(worldClient); ferr != nil {
			ferr = fmt.Errorf("%v: mgmt-apply runs it to reach the world (install it beside mgmt-apply, or name it with --world-client)", ferr)
		}
	}
	w, err := worldpipe.Open(worldpipe.ClientConfig{
		World: worldpipe.Config{Seeds: cli.List(f.Seeds), Hostname: hostname, Prefix: prefix,
			TLSCert: f.TLSCert, TLSKey: f.TLSKey, TLSCA: f.TLSCA},
		Path: path, Args: []string{"world-client"}, FindErr: ferr, Stderr: stderr, Logf: lg.Errorf,
	})
	if err != nil {
		return nil, fmt.Errorf("world: %v", err)
	}
	if f.Seeds == "" && f.TLSCert == "" && f.TLSKey == "" && f.TLSCA == "" {
		return w, nil
	}
	// A child that did not answer in time (a loaded host) or died is not
	// a bad configuration: it is started again on first use.
	if err := w.Check(ctx); err != nil {
		if !worldapi.Transient(err) || ctx.Err() != nil {
			w.Close()
			return nil, err
		}
		lg.Errorf("%v (started again when the world is used)", err)
	}
	return w, nil
}

// worldClient is the tool whose world-client command holds the world.
const worldClient = "mgmt-cluster"

// An exporter publishes, in its own goroutine, the resources of the latest
// graph that carry Meta:export; a newer graph replaces one not yet
// published. Under --noop it writes no export to the world and withdraws
// none at exit (a preview beside the running daemon of the same host must
// not touch the daemon's exports): it logs what it would have exported.
type exporter struct {
	w    *worldpipe.Client
	lg   *cli.Logger
	noop bool
	mu   sync.Mutex
	next []*graph.Resource
	set  bool
	kick chan struct{}
	done chan struct{}
}

func newExporter(ctx context.Context, w *worldpipe.Client, lg *cli.Logger, noop bool) *exporter {
	x := &exporter{w: w, lg: lg, noop: noop, kick: make(chan struct{}, 1), done: make(chan struct{})}
	if noop {
		close(x.done)
		return x
	}
	go x.loop(ctx)
	return x
}

func (x *exporter) publish(all []*graph.Resource) {
	// Only the exported resources are kept: the graph's others may be
	// let go of while the exporter waits.
	var rs []*graph.Resource
	for _, r := range all {
		if r.Meta != nil && len(r.Meta.Export) > 0 {
			rs = append(rs, r)
		}
	}
	if x.noop {
		if len(rs) > 0 {
			x.lg.Infof("noop: not exporting %d resource(s) to the world", len(rs))
		}
		return
	}
	x.mu.Lock()
	x.next, x.set = rs, true
	x.mu.Unlock()
	select {
	case x.kick <- struct{}{}:
	default:
	}
}

// loop publishes each graph it is kicked with. A world that does not
// answer (worldapi.Transient) delays the export, it does not lose it: the
// same resources are exported again with backoff until the world answers
// or a newer graph replaces them; the outage and its end are logged.
func (x *exporter) loop(ctx context.Context) {
	defer close(x.done)
	var b worldapi.Backoff
	var retry <-chan time.Time
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-x.kick:
		case <-retry:
		}
		x.mu.Lock()
		rs, set := x.next, x.set
		x.next, x.set = nil, false
		x.mu.Unlock()
		if !set {
			continue
		}
		retry = nil
		err := x.w.ResExport(ctx, rs)
		switch {
		case ctx.Err() != nil:
			return
		case err == nil:
			if failing {
				x.lg.Infof("world: exporting resources: the world answers again")
			}
			failing = false
			b.Reset()
		case worldapi.Transient(err):
			d := b.Next()
			x.lg.Errorf("world: exporting resources: %v (retrying in %v)", err, d.Round(time.Millisecond))
			failing = true
			x.mu.Lock()
			if !x.set {
				x.next, x.set = rs, true
			}
			x.mu.Unlock()
			retry = time.After(d)
		default:
			x.lg.Errorf("world: exporting resources: %v", err)
		}
	}
}

// close stops the exporter, withdraws what this host exported and closes
// the world.
func (x *exporter) close(cancel context.CancelFunc) {
	cancel()
	<-x.done
	if x.w.Started() && !x.noop {
		ctx, c := context.WithTimeout(context.Background(), 2*time.Second)
		x.w.ResExport(ctx, nil)
		c()
	}
	x.w.Close()
}
