package world

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

func TestGenerateCerts(t *testing.T) {
	dir := t.TempDir()
	files, err := GenerateCerts(dir, RoleMember, []string{"h1", "h2"}, []string{"10.1.2.3", "h1.example"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 6 {
		t.Fatalf("wrote %v, want CA and two member pairs", files)
	}
	ca := readCert(t, filepath.Join(dir, CACertFile))
	leaf := readCert(t, filepath.Join(dir, "member", "h1.crt"))
	if !ca.IsCA || leaf.IsCA || leaf.Subject.CommonName != "member/h1" {
		t.Fatalf("CA flags or member CN wrong: %v %v %q", ca.IsCA, leaf.IsCA, leaf.Subject.CommonName)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	for _, name := range []string{"h1", "localhost", "127.0.0.1", "10.1.2.3", "h1.example", MemberSAN} {
		_, err := leaf.Verify(x509.VerifyOptions{DNSName: name, Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth}})
		if err != nil {
			t.Errorf("member/h1.crt for %s: %v", name, err)
		}
	}
	// A second run reuses the CA; host and admin certificates only
	// authenticate clients.
	if _, err := GenerateCerts(dir, RoleHost, []string{"h3"}, nil, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateCerts(dir, RoleAdmin, []string{"ops"}, nil, time.Hour); err != nil {
		t.Fatal(err)
	}
	if again := readCert(t, filepath.Join(dir, CACertFile)); !again.Equal(ca) {
		t.Fatal("the CA was replaced")
	}
	for file, cn := range map[string]string{"h3.crt": "h3", "admin/ops.crt": "admin/ops"} {
		c := readCert(t, filepath.Join(dir, file))
		if c.Subject.CommonName != cn {
			t.Errorf("%s has CN %q, want %q", file, c.Subject.CommonName, cn)
		}
		if _, err := c.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
			t.Errorf("%s not a client certificate of the reused CA: %v", file, err)
		}
		if _, err := c.Verify(x509.VerifyOptions{Roots: pool}); err == nil {
			t.Errorf("%s can serve", file)
		}
		if _, err := c.Verify(x509.VerifyOptions{DNSName: MemberSAN, Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err == nil {
			t.Errorf("%s passes for a member", file)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "h3.key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("h3.key: %v, %v; want mode 0600", fi, err)
	}
	for _, bad := range []struct{ role, name string }{
		{RoleHost, "bad/host"}, {RoleHost, "root"}, {RoleHost, "ca"}, {RoleMember, ""}, {"superuser", "x"},
	} {
		if _, err := GenerateCerts(dir, bad.role, []string{bad.name}, nil, time.Hour); err == nil {
			t.Errorf("GenerateCerts accepted %s %q", bad.role, bad.name)
		}
	}
	os.Remove(filepath.Join(dir, CAKeyFile))
	if _, err := GenerateCerts(dir, RoleHost, []string{"h4"}, nil, time.Hour); err == nil {
		t.Fatal("accepted a CA certificate without its key")
	}
}

func TestIdentity(t *testing.T) {
	for cn, want := range map[string]string{
		"h1": "host h1", "member/m1": "member m1", "admin/ops": "admin ops", "h1.example.com": "host h1.example.com",
		"root": "", "": "", "member/": "", "admin/a/b": "", "other/x": "", "member": "host member",
	} {
		role, name, ok := Identity(cn)
		got := ""
		if ok {
			got = role + " " + name
		}
		if got != want {
			t.Errorf("Identity(%q) = %q, want %q", cn, got, want)
		}
	}
}

func readCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		t.Fatalf("%s: not PEM", path)
	}
	c, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTLSMember starts a member that requires client certificates and
// checks who gets in.
func TestTLSMember(t *testing.T) {
	dir := t.TempDir()
	certs, other := filepath.Join(dir, "certs"), filepath.Join(dir, "other")
	if _, err := GenerateCerts(certs, RoleMember, []string{"m"}, nil, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateCerts(certs, RoleHost, []string{"c"}, nil, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateCerts(other, RoleHost, []string{"c"}, nil, time.Hour); err != nil {
		t.Fatal(err)
	}
	files := func(d, cn string) *TLSFiles {
		return &TLSFiles{Cert: filepath.Join(d, cn+".crt"), Key: filepath.Join(d, cn+".key"), CA: filepath.Join(certs, CACertFile)}
	}
	hostAsMember := ServerConfig{Name: "m", DataDir: filepath.Join(dir, "x"), ClientURLs: []string{freeURL("https")},
		PeerURLs: []string{freeURL("https")}, TLS: files(certs, "c")}
	if err := hostAsMember.Validate(); err == nil || !strings.Contains(err.Error(), "member certificate") {
		t.Fatalf("a host certificate runs a member: %v", err)
	}
	cu := freeURL("https")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := StartServer(ctx, ServerConfig{Name: "m", DataDir: filepath.Join(dir, "m"),
		ClientURLs: []string{cu}, PeerURLs: []string{freeURL("https")}, TLS: files(certs, "member/m")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	connect := func(tf *TLSFiles) error {
		ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
		defer cancel()
		c, err := Connect(ctx, Config{Endpoints: []string{cu}, Hostname: "c", TLS: tf})
		if err == nil {
			defer c.Close()
			err = c.StrSet(ctx, "k", "v")
		}
		return err
	}
	if err := connect(files(certs, "c")); err != nil {
		t.Fatalf("client with a valid certificate: %v", err)
	}
	if err := connect(files(other, "c")); err == nil {
		t.Fatal("a certificate of another CA was accepted")
	}
	// Without a certificate, only trusting the CA: the API refuses the
	// configuration, and the member refuses the connection.
	noCert := files(certs, "c")
	noCert.Cert, noCert.Key = "", ""
	if _, err := noCert.ClientConfig(); err == nil {
		t.Fatal("a TLS configuration without a certificate was accepted")
	}
	pool := x509.NewCertPool()
	pool.AddCert(readCert(t, filepath.Join(certs, CACertFile)))
	raw, err := clientv3.New(clientv3.Config{Endpoints: []string{cu}, TLS: &tls.Config{RootCAs: pool}, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	gctx, gcancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer gcancel()
	if _, err := raw.Get(gctx, "k"); err == nil {
		t.Fatal("a client without a certificate was accepted")
	}
	if err := connect(nil); err == nil {
		t.Fatal("a plain-text client was accepted")
	}
}
