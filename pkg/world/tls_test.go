package world

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

func TestGenerateCerts(t *testing.T) {
	dir := t.TempDir()
	files, err := GenerateCerts(dir, []string{"h1", "h2"}, []string{"10.1.2.3", "h1.example"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 6 {
		t.Fatalf("wrote %v, want CA and two host pairs", files)
	}
	ca := readCert(t, filepath.Join(dir, CACertFile))
	leaf := readCert(t, filepath.Join(dir, "h1.crt"))
	if !ca.IsCA || leaf.IsCA {
		t.Fatal("CA flags wrong")
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	for _, name := range []string{"h1", "localhost", "127.0.0.1", "10.1.2.3", "h1.example"} {
		_, err := leaf.Verify(x509.VerifyOptions{DNSName: name, Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth}})
		if err != nil {
			t.Errorf("h1.crt for %s: %v", name, err)
		}
	}
	// A second run reuses the CA.
	if _, err := GenerateCerts(dir, []string{"h3"}, nil, time.Hour); err != nil {
		t.Fatal(err)
	}
	if again := readCert(t, filepath.Join(dir, CACertFile)); !again.Equal(ca) {
		t.Fatal("the CA was replaced")
	}
	if _, err := readCert(t, filepath.Join(dir, "h3.crt")).Verify(x509.VerifyOptions{Roots: pool}); err != nil {
		t.Fatalf("h3.crt not signed by the reused CA: %v", err)
	}
	if _, err := GenerateCerts(dir, []string{"bad/host"}, nil, time.Hour); err == nil {
		t.Fatal("accepted a hostname with a slash")
	}
	os.Remove(filepath.Join(dir, CAKeyFile))
	if _, err := GenerateCerts(dir, []string{"h4"}, nil, time.Hour); err == nil {
		t.Fatal("accepted a CA certificate without its key")
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
	if _, err := GenerateCerts(certs, []string{"m", "c"}, nil, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateCerts(other, []string{"c"}, nil, time.Hour); err != nil {
		t.Fatal(err)
	}
	files := func(d, h string) *TLSFiles {
		return &TLSFiles{Cert: filepath.Join(d, h+".crt"), Key: filepath.Join(d, h+".key"), CA: filepath.Join(certs, CACertFile)}
	}
	cu := freeURL("https")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := StartServer(ctx, ServerConfig{Name: "m", DataDir: filepath.Join(dir, "m"),
		ClientURLs: []string{cu}, PeerURLs: []string{freeURL("https")}, TLS: files(certs, "m")})
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
