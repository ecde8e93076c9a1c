package world

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
)

// A proxy forwards TCP connections from the client URLs of a standby host
// to the client URLs of healthy members, so clients configured with the
// standby's address keep working before and after its promotion. It works
// on raw TCP: TLS passes through untouched, from the client to the member.
type proxy struct {
	lns []net.Listener

	mu       sync.Mutex
	backends []string // host:port of healthy members
	next     int
	conns    map[net.Conn]struct{}
	closed   bool
	wg       sync.WaitGroup
}

// startProxy listens on the host:port of every URL of us.
func startProxy(us []string) (*proxy, error) {
	p := &proxy{conns: map[net.Conn]struct{}{}}
	for _, s := range us {
		u, err := url.Parse(s)
		if err != nil {
			p.close()
			return nil, err
		}
		ln, err := net.Listen("tcp", u.Host)
		if err != nil {
			p.close()
			return nil, fmt.Errorf("proxy: %v", err)
		}
		p.lns = append(p.lns, ln)
		p.wg.Add(1)
		go p.serve(ln)
	}
	return p, nil
}

// setBackends replaces the members connections go to.
func (p *proxy) setBackends(us []string) {
	var hs []string
	for _, s := range us {
		if u, err := url.Parse(s); err == nil && u.Host != "" {
			hs = append(hs, u.Host)
		}
	}
	p.mu.Lock()
	p.backends = hs
	p.mu.Unlock()
}

func (p *proxy) pick() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.backends) == 0 {
		return ""
	}
	p.next = (p.next + 1) % len(p.backends)
	return p.backends[p.next]
}

// track records c as open, or reports false when the proxy is closed.
func (p *proxy) track(c net.Conn, open bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !open {
		delete(p.conns, c)
		return true
	}
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *proxy) serve(ln net.Listener) {
	defer p.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

// forward copies bytes both ways between c and a backend until either
// side closes.
func (p *proxy) forward(c net.Conn) {
	defer c.Close()
	addr := p.pick()
	if addr == "" {
		return
	}
	b, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	defer b.Close()
	if !p.track(c, true) {
		return
	}
	defer p.track(c, false)
	done := make(chan struct{}, 2)
	go func() { io.Copy(b, c); done <- struct{}{} }()
	go func() { io.Copy(c, b); done <- struct{}{} }()
	<-done
}

// close stops listening and cuts the open connections, so their clients
// reconnect (to the member this host is about to become).
func (p *proxy) close() {
	for _, ln := range p.lns {
		ln.Close()
	}
	p.wg.Wait()
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
}
