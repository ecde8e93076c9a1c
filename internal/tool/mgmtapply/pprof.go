package mgmtapply

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime/debug"
	"time"
)

// gcPercent is mgmt-apply's default GOGC. A long-running agent whose heap
// is mostly its graph (a few KiB per resource, alive for as long as the
// graph runs) trades a little collector work for a heap that grows to 1.5
// times what is live instead of twice: about 15% less peak memory at
// 10,000 files. The GOGC and GOMEMLIMIT environment variables still
// override it, as for any Go program.
const gcPercent = 50

// tuneGC applies gcPercent unless GOGC is set.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
}

// servePprof serves Go's profiling endpoints (/debug/pprof/: heap,
// goroutines, CPU profile, ...) on addr, which must be a loopback address:
// a profile shows the tool's internals (stacks, the command line) to
// whoever reaches the port. It returns the function that stops the server.
func servePprof(addr string, lg *logger) (func(), error) {
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
	lg.logf("profiling endpoints on http://%s/debug/pprof/", ln.Addr())
	return func() { srv.Close() }, nil
}
