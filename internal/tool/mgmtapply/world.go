package mgmtapply

// The world side of mgmt-apply, kept apart from run.go: attachWorld gives
// the engine its World, publishes each graph's exported resources, and
// tells when the whole world has converged.

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/world"
)

// attachedWorld is the world of one mgmt-apply run.
type attachedWorld struct {
	w     *world.Lazy
	seeds bool
	logf  func(string, ...any)
}

// attachWorld opens the world: the cluster at seeds (comma separated), or
// without seeds a private member under prefix, started only when a
// resource or an export first needs it. etcdLog receives the private
// member's own log.
func attachWorld(seeds, prefix, hostname string, etcdLog io.Writer, logf func(string, ...any)) (*attachedWorld, error) {
	var ss []string
	for _, s := range strings.Split(seeds, ",") {
		if s = strings.TrimSpace(s); s != "" {
			ss = append(ss, s)
		}
	}
	w, err := world.Open(world.OpenConfig{Seeds: ss, Prefix: prefix, Hostname: hostname, Log: etcdLog})
	if err != nil {
		return nil, err
	}
	return &attachedWorld{w: w, seeds: len(ss) > 0, logf: logf}, nil
}

// World is the engine's Init.World.
func (a *attachedWorld) World() engine.World { return a.w }

// Loaded publishes the exported resources (Meta:export) of a graph that
// was just loaded, withdrawing those of the previous graph.
func (a *attachedWorld) Loaded(ctx context.Context, doc *graph.Document) {
	if err := a.w.ResExport(ctx, doc.Resources); err != nil {
		a.logf("exporting resources: %v", err)
	}
}

// Converged returns a channel closed once every host of the cluster has
// been converged for timeout (this one included, as eng reports it), or
// nil without seeds: a lone host uses the engine's own converger.
func (a *attachedWorld) Converged(ctx context.Context, eng *engine.Engine, timeout time.Duration) <-chan struct{} {
	if !a.seeds || timeout < 0 {
		return nil
	}
	local := func() bool {
		st := eng.Status()
		return st.Loaded && !st.Since.IsZero()
	}
	return world.ClusterConverged(ctx, a.w, local, timeout, 100*time.Millisecond, a.logf)
}

// Close withdraws this host's exports and leased keys and stops a private
// member.
func (a *attachedWorld) Close() {
	if a.w.Started() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		a.w.ResExport(ctx, nil)
		cancel()
	}
	a.w.Close()
}
