package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tlsFlags returns the flags of the certificate with common name cn in
// dir, with the CA of dir.
func tlsFlags(dir, cn string) []string {
	return []string{"--tls-cert", filepath.Join(dir, cn+".crt"), "--tls-key", filepath.Join(dir, cn+".key"), "--tls-ca", filepath.Join(dir, "ca.crt")}
}

// TestTLS runs a member that requires client certificates made by
// `mgmt-cluster certs`, and checks who is let in.
func TestTLS(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts an etcd member")
	}
	dir, other := t.TempDir(), t.TempDir()
	if r := ctl(t, "", "certs", "--dir", dir, "--role", "member", "m1"); r.Code != 0 || !strings.Contains(r.Stdout, "ca.crt") {
		t.Fatalf("certs: %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	if r := ctl(t, "", "certs", "--dir", dir, "h1"); r.Code != 0 || strings.Contains(r.Stdout, "ca.crt") {
		t.Fatalf("certs with the CA there: %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	if r := ctl(t, "", "certs", "--dir", other, "h1"); r.Code != 0 {
		t.Fatalf("certs: %s", r.Stderr)
	}
	m := newHost(t, "m1", "https", tlsFlags(dir, "member/m1")...)
	m.start()
	m.waitLog("running as member m1", joinTimeout)

	dup := append([]string{"run", "--name", "m2", "--data-dir", m.dir}, tlsFlags(dir, "member/m1")...)
	if r := ctl(t, "", dup...); r.Code != 1 || !strings.Contains(r.Stderr, "in use by another process") {
		t.Fatalf("a second member on the same data directory: %d %q", r.Code, r.Stderr)
	}
	if b, err := os.ReadFile(m.dir + ".url"); err != nil || strings.TrimSpace(string(b)) != m.client {
		t.Fatalf("published URL %q, %v; want %s", b, err, m.client)
	}
	hostAsMember := append([]string{"run", "--name", "h1", "--data-dir", t.TempDir()}, tlsFlags(dir, "h1")...)
	if r := ctl(t, "", hostAsMember...); r.Code != 1 || !strings.Contains(r.Stderr, "member certificate") {
		t.Fatalf("a member with a host certificate: %d %q", r.Code, r.Stderr)
	}

	ok := append([]string{"put", "--seeds", m.client, "strings/k", "v"}, tlsFlags(dir, "h1")...)
	if r := ctl(t, "", ok...); r.Code != 0 {
		t.Fatalf("put with a valid certificate: %s", r.Stderr)
	}
	get := append([]string{"get", "--seeds", m.client, "strings/k"}, tlsFlags(dir, "h1")...)
	if r := ctl(t, "", get...); r.Code != 0 || r.Stdout != "v\n" {
		t.Fatalf("get with a valid certificate: %q %s", r.Stdout, r.Stderr)
	}
	bad := append([]string{"get", "--timeout", "2s", "--seeds", m.client, "strings/k"}, tlsFlags(other, "h1")...)
	bad[len(bad)-1] = filepath.Join(dir, "ca.crt")
	if r := ctl(t, "", bad...); r.Code != 1 || r.Stdout != "" {
		t.Fatalf("a certificate of another CA got in: %d %q", r.Code, r.Stdout)
	}
	if r := ctl(t, "", "get", "--timeout", "2s", "--seeds", m.client, "strings/k"); r.Code != 1 || !strings.Contains(r.Stderr, "https needs") {
		t.Fatalf("https without certificates: %d %q", r.Code, r.Stderr)
	}
	plain := strings.Replace(m.client, "https:", "http:", 1)
	if r := ctl(t, "", "get", "--timeout", "2s", "--seeds", plain, "strings/k"); r.Code != 1 || r.Stdout != "" {
		t.Fatalf("a plain-text client got in: %d %q", r.Code, r.Stdout)
	}
}

// TestUsage checks the command-line errors that need no cluster.
func TestUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--name", "x", "--data-dir", t.TempDir(), "--client-urls", "http://10.9.8.7:2379"}, 1, "only allowed on loopback"},
		{[]string{"run", "--name", "x", "--data-dir", t.TempDir(), "--client-urls", "https://127.0.0.1:1"}, 1, "https needs"},
		{[]string{"run", "--name", "a/b", "--data-dir", t.TempDir()}, 1, "invalid hostname"},
		{[]string{"run", "--ideal-cluster-size=-1", "--name", "x", "--data-dir", t.TempDir()}, 1, "at least 1"},
		{[]string{"get"}, 2, "expected \"<key>\""},
		{[]string{"frobnicate"}, 2, "unexpected argument"},
		{[]string{"get", "--seeds", "127.0.0.1:2379", "k"}, 1, "bad URL"},
		{[]string{"--tls-cert", "/nonexistent", "get", "k"}, 1, "TLS"},
		{[]string{"certs", "--dir", t.TempDir(), "--days", "0", "h"}, 1, "--days must be positive"},
		{[]string{"certs", "--dir", t.TempDir(), "root"}, 1, "reserved"},
		{[]string{"certs", "--dir", t.TempDir(), "--role", "god", "h"}, 2, "--role"},
		{[]string{"certs", "--dir", t.TempDir(), "--san", "10.0.0.1", "h"}, 1, "serves nothing"},
	}
	for _, tt := range tests {
		r := ctl(t, "", tt.args...)
		if r.Code != tt.code || !strings.Contains(r.Stderr, tt.want) {
			t.Errorf("mgmt-cluster %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tt.args, " "), r.Code, r.Stderr, tt.code, tt.want)
		}
		if strings.Count(strings.TrimSpace(r.Stderr), "\n") > 1 {
			t.Errorf("mgmt-cluster %s: want a short error, got %q", strings.Join(tt.args, " "), r.Stderr)
		}
	}
}
