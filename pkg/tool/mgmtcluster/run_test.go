package mgmtcluster

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/world"
)

// syncBuffer is a buffer a running member writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type result struct {
	code           int
	stdout, stderr string
}

// run runs the tool in-process to completion.
func run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errs bytes.Buffer
	code := Run(ctx, args, strings.NewReader(stdin), &out, &errs)
	return result{code, out.String(), errs.String()}
}

// TestMemberAndKeys runs a member of its own cluster in-process on a
// temporary prefix and uses it with the query commands: the keys put are
// read back and deleted, the member is listed; cancelling run stops it
// and Run returns.
func TestMemberAndKeys(t *testing.T) {
	prefix := t.TempDir()
	lay, err := world.PrefixLayout(prefix)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var log syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"run", "--prefix", prefix, "--name", "m1"}, strings.NewReader(""), &log, &log)
	}()
	defer func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("run exited %d:\n%s", code, log.String())
			}
		case <-time.After(2 * time.Minute):
			t.Errorf("run did not stop:\n%s", log.String())
		}
	}()

	seeds := "--seeds=" + lay.ClientURL
	// The member is up once status answers (each try waits --timeout).
	deadline := time.Now().Add(3 * time.Minute)
	for {
		r := run(t, "", "status", seeds, "--timeout", "2s")
		if r.code == 0 {
			break
		}
		select {
		case code := <-done:
			t.Fatalf("run exited %d:\n%s", code, log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the member never answered: %s\n%s", r.stderr, log.String())
		}
		time.Sleep(100 * time.Millisecond) // the next try of an observable state
	}

	if r := run(t, "", "put", seeds, "strings/a", "one"); r.code != 0 {
		t.Fatalf("put: %d %s", r.code, r.stderr)
	}
	if r := run(t, "two\n", "put", seeds, "strings/b", "-"); r.code != 0 {
		t.Fatalf("put from stdin: %d %s", r.code, r.stderr)
	}
	if r := run(t, "", "get", seeds, "strings/a"); r.code != 0 || r.stdout != "one\n" {
		t.Fatalf("get: %d %q %s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "", "get", seeds, "--prefix", "strings/"); r.code != 0 || r.stdout != "strings/a\tone\nstrings/b\ttwo\n\n" {
		t.Fatalf("get --prefix: %d %q %s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "", "del", seeds, "strings/a"); r.code != 0 {
		t.Fatalf("del: %d %s", r.code, r.stderr)
	}
	if r := run(t, "", "get", seeds, "strings/a"); r.code != 1 || !strings.Contains(r.stderr, "mgmt-cluster: strings/a: key not found") {
		t.Fatalf("get of a deleted key: %d %q %s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "", "del", seeds, "strings/a"); r.code != 1 || !strings.Contains(r.stderr, "key not found") {
		t.Fatalf("del of a deleted key: %d %s", r.code, r.stderr)
	}
	if r := run(t, "", "members", seeds, "--json"); r.code != 0 || !strings.Contains(r.stdout, `"m1"`) {
		t.Fatalf("members: %d %q %s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "", "get", seeds, "../escape"); r.code != 1 {
		t.Fatalf("a key outside the namespace: %d %q %s", r.code, r.stdout, r.stderr)
	}
}

// TestRefusals: what the tool refuses before it reaches a cluster.
func TestRefusals(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		code int
		errs string
	}{
		{"plain http off loopback", []string{"get", "--seeds", "http://192.0.2.1:2379", "k"}, 1, "plain http is only allowed on loopback"},
		{"https without TLS files", []string{"get", "--seeds", "https://127.0.0.1:2379", "k"}, 1, "https needs --tls-cert"},
		{"relative socket", []string{"status", "--seeds", "unix://x.sock"}, 1, "want unix:///ABSOLUTE/PATH"},
		{"no command", []string{}, 2, ""},
		{"unknown command", []string{"frobnicate"}, 2, ""},
		{"certs days", []string{"certs", "--dir", t.TempDir(), "--days", "0", "h1"}, 1, "--days must be positive"},
		{"certs san", []string{"certs", "--dir", t.TempDir(), "--san", "x", "h1"}, 1, "--san names where a member serves"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, "", c.args...)
			if r.code != c.code || !strings.Contains(r.stderr, c.errs) {
				t.Fatalf("exit %d, want %d; stderr %q lacks %q", r.code, c.code, r.stderr, c.errs)
			}
		})
	}
}

// TestCerts: certs makes a CA and a host's certificate, the keys readable
// by their owner only, and reuses the CA for the next host.
func TestCerts(t *testing.T) {
	dir := t.TempDir()
	r := run(t, "", "certs", "--dir", dir, "h1")
	if r.code != 0 {
		t.Fatalf("certs: %d %s", r.code, r.stderr)
	}
	for _, f := range []string{"ca.crt", "ca.key", "h1.crt", "h1.key"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".key") && st.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v", f, st.Mode().Perm())
		}
	}
	ca, _ := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if r := run(t, "", "certs", "--dir", dir, "h2"); r.code != 0 || !strings.Contains(r.stdout, "h2.crt") {
		t.Fatalf("certs h2: %d %q %s", r.code, r.stdout, r.stderr)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "ca.crt")); !bytes.Equal(ca, again) {
		t.Fatal("the CA was made again")
	}
}

// TestServerURLInUse: a member told to serve peers on a port another
// process holds fails with the address and its cause; it does not move to
// another port (only the one it picks itself is replaced).
func TestServerURLInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	r := run(t, "", "run", "--prefix", t.TempDir(), "--name", "m1", "--insecure", "--server-urls", "http://"+addr)
	if r.code != 1 || !strings.Contains(r.stderr, "starting etcd member m1: listen tcp "+addr+": bind: address already in use") ||
		strings.Contains(r.stderr, "trying") {
		t.Fatalf("exit %d, stderr %q; want %s in use", r.code, r.stderr, addr)
	}
}
