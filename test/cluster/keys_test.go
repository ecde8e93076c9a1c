package cluster

import (
	"strings"
	"testing"
)

// TestKeysConfined checks that mgmt-cluster get, put and del keep their
// keys inside the namespace: a key with "..", "." or empty segments, or a
// leading slash, is refused before anything is sent, and no namespace but
// the default one reaches the default one's keys.
func TestKeysConfined(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts an etcd member")
	}
	m := newHost(t, "m", "http")
	m.start()
	m.waitLog("running as member m", joinTimeout)
	seeds := []string{"--timeout", "3s", "--seeds", m.client}

	refused := [][]string{
		{"--namespace", "/user", "put", "../_mgmt/exports/m9/*/exec/x", "v"},
		{"--namespace", "/user", "put", "a/../../_mgmt/strings/x", "v"},
		{"--namespace", "/user", "put", "/_mgmt/strings/x", "v"},
		{"--namespace", "/user", "put", "a//b", "v"},
		{"--namespace", "/user", "put", "a/./b", "v"},
		{"--namespace", "/user", "del", "../_mgmt/strings/k"},
		{"--namespace", "/user", "get", "../_mgmt/strings/k"},
		{"--namespace", "/user", "get", "--prefix", "../_mgmt"},
		{"put", "a/../exports/m9/*/exec/x", "v"},
		{"--namespace", "/", "put", "_mgmt/strings/x", "v"},
		{"--namespace", "/", "get", "--prefix", "/"},
		{"--namespace", "/_mgmt/exports", "put", "m9/*/exec/x", "v"},
		{"--namespace", "/a/../_mgmt", "put", "strings/x", "v"},
	}
	if r := ctl(t, "", append(seeds, "put", "strings/k", "kept")...); r.Code != 0 {
		t.Fatalf("put: %s", r.Stderr)
	}
	for _, args := range refused {
		r := ctl(t, "", append(seeds, args...)...)
		if r.Code != 1 || r.Stdout != "" || !strings.Contains(r.Stderr, "namespace") && !strings.Contains(r.Stderr, "segment") && !strings.Contains(r.Stderr, "slash") {
			t.Errorf("mgmt-cluster %s: exit %d, stdout %q, stderr %q; want a refusal", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
		}
	}
	r := ctl(t, "", append(seeds, "get", "--prefix", "/")...)
	if r.Code != 0 || r.Stdout != "strings/k\tkept\n" {
		t.Fatalf("the default namespace holds %q (%s), want only strings/k", r.Stdout, r.Stderr)
	}
	r = ctl(t, "", append(seeds, "--namespace", "/user", "get", "--prefix", "/")...)
	if r.Code != 0 || r.Stdout != "" {
		t.Fatalf("the user namespace holds %q (%s), want nothing", r.Stdout, r.Stderr)
	}
}
