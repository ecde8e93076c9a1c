package cli

import (
	"net"
	"net/http"
	"time"
)

// ServeMetrics serves metrics with h (in the Prometheus text format) on
// http://addr/metrics, and returns the address it listens on (addr may
// ask for port 0) and the function that stops it.
//
// The endpoint has no authentication: the metrics name resource kinds and
// counts, not contents, and addr should be a loopback address or one only
// the scraper reaches.
func ServeMetrics(addr string, h http.Handler) (net.Addr, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ln)
	}()
	return ln.Addr(), func() {
		srv.Close()
		<-done
	}, nil
}
