package world

import (
	"fmt"
	"io"
	"net"
	"os"
	"sync"
)

// A proxy forwards connections from the client URLs of a standby host to
// the client URLs of healthy members, so clients configured with the
// standby's address keep working before and after its promotion. It works
// on raw streams (TCP or unix sockets): TLS passes through untouched, from
// the client to the member.
type proxy struct {
	lns []net.Listener

	mu       sync.Mutex
	backends []string // client URLs of healthy members
	next     int
	conns    map[net.Conn]struct{}
	closed   bool
	wg       sync.WaitGroup
}

// startProxy listens on every URL of us: a unix socket (made private to
// its owner, replacing a stale one) or a TCP address.
func startProxy(us []string) (*proxy, error) {
	p := &proxy{conns: map[net.Conn]struct{}{}}
	for _, s := range us {
		ln, err := listen(s)
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

// listen listens on the client URL s.
func listen(s string) (net.Listener, error) {
	network, addr, err := netAddr(s)
	if err != nil {
		return nil, err
	}
	if network == "unix" {
		if fi, err := os.Lstat(addr); err == nil && fi.Mode().Type() == os.ModeSocket {
			os.Remove(addr) // left by a member or proxy that was killed
		}
	}
	ln, err := net.Listen(network, addr)
	if err == nil && network == "unix" {
		if err = restrictSocket(addr); err != nil {
			ln.Close()
		}
	}
	return ln, err
}

// setBackends replaces the members connections go to.
func (p *proxy) setBackends(us []string) {
	p.mu.Lock()
	p.backends = us
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
	network, addr, err := netAddr(p.pick())
	if err != nil || addr == "" {
		return
	}
	b, err := net.Dial(network, addr)
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
