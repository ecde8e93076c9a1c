package world

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// tlsWorld is a TLS member with the certificates of its cluster.
type tlsWorld struct {
	certs     string
	client    string // client URL
	peer      string // peer URL
	server    *Server
	namespace string
}

// files returns the TLS files of the certificate with common name cn.
func (w *tlsWorld) files(cn string) *TLSFiles {
	return &TLSFiles{Cert: filepath.Join(w.certs, cn+".crt"), Key: filepath.Join(w.certs, cn+".key"), CA: filepath.Join(w.certs, CACertFile)}
}

// connect connects as the holder of the certificate cn, known as host.
func (w *tlsWorld) connect(t *testing.T, cn, host string) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Connect(ctx, Config{Endpoints: []string{w.client}, Namespace: w.namespace, Hostname: host, TLS: w.files(cn)})
	if err != nil {
		t.Fatalf("connecting as %s: %v", cn, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// startTLSWorld starts member m1 of a new TLS cluster whose CA also signed
// hosts h1 and h2 and the admin ops.
func startTLSWorld(t *testing.T) *tlsWorld {
	t.Helper()
	dir := t.TempDir()
	w := &tlsWorld{certs: filepath.Join(dir, "certs"), client: freeURL("https"), peer: freeURL("https"), namespace: "/tls"}
	for role, names := range map[string][]string{RoleMember: {"m1"}, RoleHost: {"h1", "h2"}, RoleAdmin: {"ops"}} {
		if _, err := GenerateCerts(w.certs, role, names, nil, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := StartServer(ctx, ServerConfig{Name: "m1", DataDir: filepath.Join(dir, "m1"), ClientURLs: []string{w.client},
		PeerURLs: []string{w.peer}, TLS: w.files("member/m1"), Namespace: w.namespace})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	w.server = s
	return w
}

// TestTLSAuthorization checks who may write what in a TLS cluster: a host
// writes its own keys and the shared ones, reads everything, and can
// neither write nor delete another host's keys nor manage members; the
// admin may do all of it.
func TestTLSAuthorization(t *testing.T) {
	w := startTLSWorld(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	h1, h2, ops := w.connect(t, "h1", "h1"), w.connect(t, "h2", "h2"), w.connect(t, "admin/ops", "ops")

	exp := []*graph.Resource{{Kind: "exec", Name: "hello", Params: map[string]any{"cmd": "true"}, Meta: &graph.Meta{Export: []string{"*"}}}}
	if err := h1.ResExport(ctx, exp); err != nil {
		t.Fatalf("h1 exports: %v", err)
	}
	got, err := h2.ResCollect(ctx, "exec")
	if err != nil || len(got) != 1 || got[0].From != "h1" {
		t.Fatalf("h2 collects %v, %v", names(got), err)
	}
	own := []func() error{
		func() error { return h2.StrSet(ctx, "shared", "from h2") },
		func() error { return h2.StrMapSet(ctx, "up", "yes") },
		func() error { return h2.SetConverged(ctx, true) },
		func() error { return h2.SchedulerAdd(ctx, "web", SchedOpts{}) },
		func() error { return h2.ResExport(ctx, exp) },
	}
	for i, f := range own {
		if err := f(); err != nil {
			t.Errorf("h2's own write %d: %v", i, err)
		}
	}
	if m, err := h1.StrMapGet(ctx, "up"); err != nil || m["h2"] != "yes" {
		t.Errorf("h1 reads h2's map entry: %v, %v", m, err)
	}
	h1Key := w.namespace + "/exports/h1/*/exec/hello"
	forged := []string{
		w.namespace + "/exports/h1/*/exec/forged",
		w.namespace + "/mapped/h1/up",
		w.namespace + "/converged/h1",
		w.namespace + "/scheduler/hostname/h1/web",
		w.namespace + "/cluster/standby/h1",
		"/_mgmt/strings/x",
	}
	for _, k := range forged {
		if err := h2.Put(ctx, k, "forged"); err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("h2 put %s: %v, want permission denied", k, err)
		}
	}
	if _, err := h2.Delete(ctx, h1Key); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("h2 deleted h1's export: %v", err)
	}
	if v, ok, err := h1.Get(ctx, h1Key); err != nil || !ok || !strings.Contains(v, `"cmd":"true"`) {
		t.Errorf("h1's export after h2's attempts: %q %v %v", v, ok, err)
	}
	if err := h2.RemoveMember(ctx, "m1"); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("a host removed a member: %v", err)
	}
	if err := ops.Put(ctx, w.namespace+"/exports/h1/*/exec/by-admin", "{}"); err != nil {
		t.Errorf("the admin writes anywhere: %v", err)
	}
	if _, err := ops.Delete(ctx, w.namespace+"/exports/h1/*/exec/by-admin"); err != nil {
		t.Errorf("the admin deletes anywhere: %v", err)
	}
	if err := h1.Close(); err != nil {
		t.Errorf("h1 revoking its lease and closing: %v", err)
	}
}

// TestTLSPeers checks that the peer port of a TLS member takes only member
// certificates, so that no host speaks raft.
func TestTLSPeers(t *testing.T) {
	w := startTLSWorld(t)
	get := func(cn string) error {
		tc, err := w.files(cn).ClientConfig()
		if err != nil {
			return err
		}
		tc.ServerName = "127.0.0.1"
		c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: tc}}
		resp, err := c.Get(w.peer + "/members")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
	if err := get("member/m1"); err != nil {
		t.Fatalf("a member certificate on the peer port: %v", err)
	}
	for _, cn := range []string{"h1", "admin/ops"} {
		if err := get(cn); err == nil {
			t.Errorf("the %s certificate got through the peer port", cn)
		}
	}
}
