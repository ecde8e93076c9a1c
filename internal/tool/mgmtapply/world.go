package mgmtapply

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/world"
)

// openWorld returns the world of --seeds (or, without seeds, the private
// one under the prefix). It is lazy: nothing is dialled or started until a
// resource, or an exported resource, needs it.
func openWorld(f *flags, hostname, prefix string) (*world.Lazy, error) {
	var seeds []string
	for _, s := range strings.Split(f.Seeds, ",") {
		if s = strings.TrimSpace(s); s != "" {
			seeds = append(seeds, s)
		}
	}
	return world.Open(world.OpenConfig{Seeds: seeds, Hostname: hostname, Prefix: prefix})
}

// An exporter publishes, in its own goroutine, the resources of the latest
// graph that carry Meta:export; a newer graph replaces one not yet
// published.
type exporter struct {
	w    *world.Lazy
	lg   *logger
	mu   sync.Mutex
	next []*graph.Resource
	set  bool
	kick chan struct{}
	done chan struct{}
}

func newExporter(ctx context.Context, w *world.Lazy, lg *logger) *exporter {
	x := &exporter{w: w, lg: lg, kick: make(chan struct{}, 1), done: make(chan struct{})}
	go x.loop(ctx)
	return x
}

func (x *exporter) publish(rs []*graph.Resource) {
	x.mu.Lock()
	x.next, x.set = rs, true
	x.mu.Unlock()
	select {
	case x.kick <- struct{}{}:
	default:
	}
}

func (x *exporter) loop(ctx context.Context) {
	defer close(x.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-x.kick:
		}
		x.mu.Lock()
		rs, set := x.next, x.set
		x.set = false
		x.mu.Unlock()
		if set {
			if err := x.w.ResExport(ctx, rs); err != nil && ctx.Err() == nil {
				x.lg.errorf("world: exporting resources: %v", err)
			}
		}
	}
}

// close stops the exporter, withdraws what this host exported and closes
// the world.
func (x *exporter) close(cancel context.CancelFunc) {
	cancel()
	<-x.done
	if x.w.Started() {
		ctx, c := context.WithTimeout(context.Background(), 2*time.Second)
		x.w.ResExport(ctx, nil)
		c()
	}
	x.w.Close()
}
