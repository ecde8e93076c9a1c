package world

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A portThief takes the peer port of the first n starts of etcd (all of
// them when n is negative) between the moment the port is picked and the
// moment etcd listens on it, as any other process may: in turn with a
// listener, and with the local end of an outgoing connection, which the
// kernel takes from the same range of ports.
type portThief struct {
	t     *testing.T
	n     int
	mu    sync.Mutex
	peers []string // the peer URL of each start, in order
	lines []string // the lines logged by the member's start
}

// stealPeerPorts returns a thief of the first n peer ports (all when n is
// negative): its before is the beforeStart of the member's configuration.
func stealPeerPorts(t *testing.T, n int) *portThief {
	return &portThief{t: t, n: n}
}

func (p *portThief) before(peerURLs []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.peers = append(p.peers, peerURLs[0])
	if p.n >= 0 && len(p.peers) > p.n {
		return
	}
	_, addr, err := netAddr(peerURLs[0])
	if err != nil {
		p.t.Errorf("peer URL %s: %v", peerURLs[0], err)
		return
	}
	var c io.Closer
	if len(p.peers)%2 == 1 {
		c, err = net.Listen("tcp", addr)
	} else {
		c, err = p.connectFrom(addr)
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		return // taken already, by someone else
	}
	if err != nil {
		p.t.Errorf("taking the peer port %s: %v", addr, err)
		return
	}
	p.t.Cleanup(func() { c.Close() })
}

// connectFrom opens a connection from addr to a listener of its own.
func (p *portThief) connectFrom(addr string) (io.Closer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p.t.Cleanup(func() { ln.Close() })
	local, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{LocalAddr: local, Timeout: 10 * time.Second}
	return d.Dial("tcp", ln.Addr().String())
}

func (p *portThief) logf(format string, v ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines = append(p.lines, fmt.Sprintf(format, v...))
}

// check reports starts other than want, a peer URL tried twice, or other
// than one line logged for each port taken before the last start.
func (p *portThief) check(want int) {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.peers) != want {
		p.t.Fatalf("etcd started %d times with peer URLs %v, want %d", len(p.peers), p.peers, want)
	}
	seen := map[string]bool{}
	for _, u := range p.peers {
		if seen[u] || !strings.Contains(u, "://127.0.0.1:") {
			p.t.Fatalf("peer URLs %v: want distinct loopback ports", p.peers)
		}
		seen[u] = true
	}
	if len(p.lines) != want-1 {
		p.t.Fatalf("logged %q, want %d lines", p.lines, want-1)
	}
	for i, l := range p.lines {
		if !strings.Contains(l, p.peers[i]+" was taken by another process") || !strings.Contains(l, "trying "+p.peers[i+1]) {
			p.t.Fatalf("line %d: %q, want %s taken and %s tried", i, l, p.peers[i], p.peers[i+1])
		}
	}
}

// TestPrivatePeerTaken starts the private world of a tool while another
// process holds the peer port picked for it: the member starts on another
// port, says so, and serves writes and reads.
func TestPrivatePeerTaken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	thief := stealPeerPorts(t, 2)
	w, err := Open(OpenConfig{Prefix: t.TempDir(), Hostname: "a", Logf: thief.logf, beforeEtcdStart: thief.before})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.StrSet(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := w.StrGet(ctx, "k"); err != nil || !ok || v != "v" {
		t.Fatalf("read %q, %v, %v; want v", v, ok, err)
	}
	if !w.Member() {
		t.Fatal("the tool does not run its private member")
	}
	thief.check(3)
}

// TestPrivatePeerAlwaysTaken: when every port picked is taken, the start
// gives up after pickedPeerPorts of them with the cause kept.
func TestPrivatePeerAlwaysTaken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	thief := stealPeerPorts(t, -1)
	w, err := Open(OpenConfig{Prefix: t.TempDir(), Hostname: "a", Logf: thief.logf, beforeEtcdStart: thief.before})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	err = w.StrSet(ctx, "k", "v")
	if !errors.Is(err, syscall.EADDRINUSE) || !strings.Contains(err.Error(), fmt.Sprintf("each of the %d free ports", pickedPeerPorts)) {
		t.Fatalf("got %v, want address in use after %d ports", err, pickedPeerPorts)
	}
	if Transient(err) {
		t.Fatalf("%v is taken for transient", err)
	}
	thief.check(pickedPeerPorts)
}

// TestAgentPrivatePeerTaken: the same for the member of mgmt-cluster run
// alone in its cluster, whose agent logs the line.
func TestAgentPrivatePeerTaken(t *testing.T) {
	thief := stealPeerPorts(t, 1)
	lay, err := PrefixLayout(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := lay.Prepare(); err != nil {
		t.Fatal(err)
	}
	peer, peerTLS, err := lay.PrivatePeer()
	if err != nil {
		t.Fatal(err)
	}
	cfg := ServerConfig{Name: "m", DataDir: lay.DataDir, ClientURLs: []string{lay.ClientURL},
		PeerURLs: []string{peer}, PeerTLS: peerTLS, PeerPicked: true, beforeStart: thief.before}
	states := make(chan string, 4)
	a, err := NewAgent(AgentConfig{Server: cfg, IdealSize: 1, Logf: thief.logf, State: func(s string) { states <- s }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	select {
	case s := <-states:
		if s != "member" {
			t.Fatalf("the agent became %s, want member", s)
		}
	case err := <-done:
		t.Fatalf("the agent stopped: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("the agent never became a member")
	}
	cctx, ccancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer ccancel()
	c, err := Connect(cctx, Config{Endpoints: []string{lay.ClientURL}, Hostname: "t"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.StrSet(cctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := c.StrGet(cctx, "k"); err != nil || !ok || v != "v" {
		t.Fatalf("read %q, %v, %v; want v", v, ok, err)
	}
	// The agent's log also has its own lines: only the start's count.
	thief.mu.Lock()
	var lines []string
	for _, l := range thief.lines {
		if strings.Contains(l, "taken by another process") {
			lines = append(lines, l)
		}
	}
	thief.lines = lines
	thief.mu.Unlock()
	thief.check(2)
}

// TestGivenPeerTaken: a peer URL the user gave is never replaced; a busy
// port fails the start with the address and its cause.
func TestGivenPeerTaken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	thief := stealPeerPorts(t, -1)
	peer := freeURL("http")
	dir := t.TempDir()
	_, err := StartServer(ctx, ServerConfig{Name: "m", DataDir: dir + "/m", ClientURLs: []string{freeURL("http")},
		PeerURLs: []string{peer}, Insecure: true, Logf: thief.logf, beforeStart: thief.before})
	if err == nil {
		t.Fatal("a member started on a peer port another process holds")
	}
	addr := strings.TrimPrefix(peer, "http://")
	if !errors.Is(err, syscall.EADDRINUSE) || !strings.Contains(err.Error(), "starting etcd member m: listen tcp "+addr+": bind: address already in use") {
		t.Fatalf("got %v, want %s in use", err, addr)
	}
	thief.check(1)
}
