package mgmtapply

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime/debug"
	"sync"
	"time"

	"github.com/mgmtpipe/mgmt/internal/cli"
	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// releaseWhenConverged returns to the system, once after each graph has
// converged, the memory its loading and first run needed and no longer
// does (decoding, building, the first CheckApply of every resource): an
// agent then idles at what its graph holds rather than at the peak, which
// Go's background scavenger would only come down from over minutes. It
// checks the engine's status every second until the returned function is
// called.
func releaseWhenConverged(e *engine.Engine) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		released := int64(-1) // the seq of the graph last released after
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if st := e.Status(); st.Loaded && !st.Since.IsZero() && st.Seq != released {
				released = st.Seq
				debug.FreeOSMemory()
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// servePprof serves Go's profiling endpoints (/debug/pprof/: heap,
// goroutines, CPU profile, ...) on addr, which must be a loopback address:
// a profile shows the tool's internals (stacks, the command line) to
// whoever reaches the port. It returns the function that stops the server.
func servePprof(addr string, lg *cli.Logger) (func(), error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("--pprof %q: want a loopback address (127.0.0.1:PORT, [::1]:PORT or localhost:PORT)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	lg.Infof("profiling endpoints on http://%s/debug/pprof/", ln.Addr())
	return func() { srv.Close() }, nil
}
