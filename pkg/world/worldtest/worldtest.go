// Package worldtest helps the tests of packages that use the world: it runs
// one embedded etcd member for a test binary and connects clients to it,
// each test in a namespace of its own.
package worldtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/world"
)

var endpoints []string

// Main starts one embedded etcd member, runs the tests, stops the member
// and exits with the tests' code. Call it from TestMain.
func Main(m *testing.M) {
	dir, err := os.MkdirTemp("", "worldtest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cu, pu := freeURL(), freeURL()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	s, err := world.StartServer(ctx, world.ServerConfig{Name: "t", DataDir: filepath.Join(dir, "t"), ClientURLs: []string{cu}, PeerURLs: []string{pu}, Insecure: true})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	endpoints = []string{cu}
	code := m.Run()
	s.Close()
	os.RemoveAll(dir)
	os.Exit(code)
}

// freeURL returns a URL on a loopback port that was free a moment ago.
func freeURL() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	return "http://" + ln.Addr().String()
}

// Connect connects to the member started by Main as host, in t's
// namespace, and closes the client when t ends.
func Connect(t testing.TB, host string) *world.Client {
	t.Helper()
	if endpoints == nil {
		t.Fatal("worldtest.Connect without worldtest.Main in TestMain")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := world.Connect(ctx, world.Config{Endpoints: endpoints, Namespace: Namespace(t), Hostname: host})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// namespaces holds the namespace of each running test.
var namespaces sync.Map

// Namespace returns the namespace of the running test: fresh for every run
// of it, so -count=N starts from an empty world each time.
func Namespace(t testing.TB) string {
	ns, _ := namespaces.LoadOrStore(t, fmt.Sprintf("/test/%s/%d", t.Name(), time.Now().UnixNano()))
	return ns.(string)
}

// Endpoints returns the client URLs of the member started by Main, for a
// test that connects by other means than Connect (another process).
func Endpoints(t testing.TB) []string {
	t.Helper()
	if endpoints == nil {
		t.Fatal("worldtest.Endpoints without worldtest.Main in TestMain")
	}
	return endpoints
}
