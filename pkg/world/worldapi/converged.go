package worldapi

import (
	"context"
	"time"
)

// AllConverged reports whether every recorded host, and at least one, is
// converged.
func AllConverged(m map[string]bool) bool {
	for _, ok := range m {
		if !ok {
			return false
		}
	}
	return len(m) > 0
}

// A ConvergedState sums up the converged states the world records: a
// host that follows them learns whether the world is converged without
// reading every host's state at each change.
type ConvergedState struct {
	Hosts     int  `json:"hosts,omitempty"`     // hosts that record a state
	Converged int  `json:"converged,omitempty"` // of which converged
	Recorded  bool `json:"recorded,omitempty"`  // this host records a state
	Self      bool `json:"self,omitempty"`      // this host's state: converged
}

// All reports whether this host and every other host that records a
// state are recorded converged.
func (s ConvergedState) All() bool {
	return s.Recorded && s.Self && s.Converged == s.Hosts
}

// ClusterConverged publishes this host's converged state and reports when
// the whole world is converged: it polls local (this host's state) every
// interval, records changes with SetConverged, follows the other hosts, and
// closes the returned channel once every host that records a state, this
// one included, has been converged for timeout without interruption.
// Errors talking to the world go to logf and count as "not converged".
func ClusterConverged(ctx context.Context, w ConvergedWorld, local func() bool, timeout, interval time.Duration, logf func(string, ...any)) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		cc := &clusterConv{w: w, local: local, logf: logf}
		if cc.run(ctx, timeout, interval) {
			close(done)
		}
	}()
	return done
}

// clusterConv is the state of one ClusterConverged loop; its goroutine owns
// it.
type clusterConv struct {
	w     ConvergedWorld
	local func() bool
	logf  func(string, ...any)

	published *bool           // last state written
	state     *ConvergedState // last state read, nil when unknown
	since     time.Time       // when everything became converged
}

// run loops until the world has been converged for timeout (true) or ctx
// ends (false).
func (cc *clusterConv) run(ctx context.Context, timeout, interval time.Duration) bool {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watch := cc.w.ConvergedWatch(wctx)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case err := <-watch:
			if err != nil {
				cc.logf("converged watch: %v", err)
			}
			cc.read(ctx)
		case <-tick.C:
		}
		me := cc.local()
		if cc.published == nil || *cc.published != me {
			if err := cc.w.SetConverged(ctx, me); err != nil {
				// The write may still have landed (a member lost
				// after it took the request): our entry is
				// unknown until written again.
				cc.logf("recording the converged state: %v", err)
				cc.published = nil
			} else {
				cc.published = &me
			}
		}
		all := me && cc.state != nil && cc.state.All()
		switch {
		case !all:
			cc.since = time.Time{}
		case cc.since.IsZero():
			cc.since = time.Now()
		case time.Since(cc.since) >= timeout:
			return true
		}
	}
}

// read reads the world's converged state after a notification of the
// watch. When this host's entry vanished (lease lost) or holds another
// state than it last wrote, it is written again: the write is forgotten.
// The check is made on fresh reads only: one made before the watch
// delivered this host's last write would see the state before it.
func (cc *clusterConv) read(ctx context.Context) {
	st, err := cc.w.ConvergedState(ctx)
	if err != nil {
		cc.logf("converged state: %v", err)
		cc.state = nil
		return
	}
	cc.state = &st
	if !st.Recorded || cc.published != nil && st.Self != *cc.published {
		cc.published = nil
	}
}
