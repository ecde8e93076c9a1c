package world

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
)

// TLSFiles names the PEM files of a host's certificate, its key, and the CA
// that signs every certificate of the cluster. The same certificate serves
// peer and client traffic, as server and as client.
type TLSFiles struct {
	Cert, Key, CA string
}

// NewTLSFiles returns the files, or nil when none is given.
func NewTLSFiles(cert, key, ca string) *TLSFiles {
	if cert == "" && key == "" && ca == "" {
		return nil
	}
	return &TLSFiles{Cert: cert, Key: key, CA: ca}
}

// Check reports a missing or unreadable file.
func (t *TLSFiles) Check() error {
	if t.Cert == "" || t.Key == "" || t.CA == "" {
		return fmt.Errorf("TLS needs a certificate, a key and a CA (--tls-cert, --tls-key, --tls-ca)")
	}
	for _, f := range []string{t.Cert, t.Key, t.CA} {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("TLS: %v", err)
		}
	}
	return nil
}

// info returns the etcd TLS description, with client certificate
// authentication.
func (t *TLSFiles) info() transport.TLSInfo {
	return transport.TLSInfo{CertFile: t.Cert, KeyFile: t.Key, TrustedCAFile: t.CA, ClientCertAuth: true}
}

// ClientConfig returns the TLS configuration of a client of the cluster.
func (t *TLSFiles) ClientConfig() (*tls.Config, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	info := t.info()
	tc, err := info.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("TLS: %v", err)
	}
	return tc, nil
}

// CA file names written by GenerateCerts.
const (
	CACertFile = "ca.crt"
	CAKeyFile  = "ca.key"
)

// GenerateCerts writes into dir a CA (ca.crt, ca.key; an existing pair is
// reused) and, for each name, a certificate and key of the given role (see
// Identity) in the files named after its common name: NAME.crt and
// NAME.key for a host, member/NAME.crt and admin/NAME.crt for the others.
// Host and admin certificates only authenticate clients. A member's
// certificate also serves peers and clients, for the name, "localhost",
// the loopback addresses and the extra names or IP addresses in sans, and
// carries the name MemberSAN that peers require of each other. It returns
// the files written.
func GenerateCerts(dir, role string, names, sans []string, validity time.Duration) ([]string, error) {
	for _, n := range names {
		if err := checkCertName(role, n); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	caCert, caKey, wrote, err := loadOrMakeCA(dir, validity)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		var dns []string
		if role == RoleMember {
			dns = append([]string{n, "localhost", "127.0.0.1", "::1", MemberSAN}, sans...)
		}
		cn := commonName(role, n)
		certPEM, keyPEM, err := makeCert(caCert, caKey, cn, dns, validity, false)
		if err != nil {
			return nil, err
		}
		cf, kf := filepath.Join(dir, cn+".crt"), filepath.Join(dir, cn+".key")
		if err := os.MkdirAll(filepath.Dir(cf), 0o700); err != nil {
			return nil, err
		}
		if err := os.WriteFile(cf, certPEM, 0o644); err != nil {
			return nil, err
		}
		if err := writePrivate(kf, keyPEM); err != nil {
			return nil, err
		}
		wrote = append(wrote, cf, kf)
	}
	return wrote, nil
}

// checkCertName reports a role other than host, member or admin, and a
// name that cannot be one of its identities.
func checkCertName(role, name string) error {
	switch role {
	case RoleHost, RoleMember, RoleAdmin:
	default:
		return fmt.Errorf("unknown role %q, want %s, %s or %s", role, RoleHost, RoleMember, RoleAdmin)
	}
	if err := checkHost(name); err != nil {
		return err
	}
	if role == RoleHost && (name == rootUser || name == "ca") {
		return fmt.Errorf("%q cannot be a host's name: it is reserved", name)
	}
	return nil
}

// Files of the private peer identity written by PrivatePeer.
const (
	peerCAFile   = "peer-ca.crt"
	peerCertFile = "peer.crt"
	peerKeyFile  = "peer.key"
)

// writePeerTLS writes into dir a fresh CA (whose key is thrown away) and a
// loopback certificate it signed, all mode 0600, and returns them.
func writePeerTLS(dir string) (*TLSFiles, error) {
	caPEM, caKeyPEM, err := makeCert(nil, nil, "mgmt private peer CA", nil, 24*time.Hour*3650, true)
	if err != nil {
		return nil, err
	}
	ca, caKey, err := parsePair(caPEM, caKeyPEM)
	if err != nil {
		return nil, err
	}
	certPEM, keyPEM, err := makeCert(ca, caKey, "mgmt private peer", []string{"localhost", "127.0.0.1"}, 24*time.Hour*3650, false)
	if err != nil {
		return nil, err
	}
	t := &TLSFiles{Cert: filepath.Join(dir, peerCertFile), Key: filepath.Join(dir, peerKeyFile), CA: filepath.Join(dir, peerCAFile)}
	for f, b := range map[string][]byte{t.CA: caPEM, t.Cert: certPEM, t.Key: keyPEM} {
		if err := writePrivate(f, b); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// writePrivate replaces the file f by one of mode 0600 holding b.
func writePrivate(f string, b []byte) error {
	os.Remove(f)
	return os.WriteFile(f, b, 0o600)
}

// loadOrMakeCA reads the CA of dir, or creates it.
func loadOrMakeCA(dir string, validity time.Duration) (*x509.Certificate, *ecdsa.PrivateKey, []string, error) {
	cf, kf := filepath.Join(dir, CACertFile), filepath.Join(dir, CAKeyFile)
	certPEM, err1 := os.ReadFile(cf)
	keyPEM, err2 := os.ReadFile(kf)
	if err1 == nil && err2 == nil {
		cert, key, err := parsePair(certPEM, keyPEM)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %v", dir, err)
		}
		return cert, key, nil, nil
	}
	if !errors.Is(err1, os.ErrNotExist) || !errors.Is(err2, os.ErrNotExist) {
		return nil, nil, nil, fmt.Errorf("%s: need both %s and %s, or neither", dir, CACertFile, CAKeyFile)
	}
	certPEM, keyPEM, err := makeCert(nil, nil, "mgmt cluster CA", nil, validity, true)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := os.WriteFile(cf, certPEM, 0o644); err != nil {
		return nil, nil, nil, err
	}
	if err := writePrivate(kf, keyPEM); err != nil {
		return nil, nil, nil, err
	}
	cert, key, err := parsePair(certPEM, keyPEM)
	return cert, key, []string{cf, kf}, err
}

func parsePair(certPEM, keyPEM []byte) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return nil, nil, fmt.Errorf("CA files are not PEM")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, nil, err
	}
	key, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		return nil, nil, err
	}
	return cert, key, nil
}

// makeCert returns a PEM certificate and key: a self-signed CA when isCA,
// otherwise a leaf signed by the CA that authenticates clients and, given
// names (DNS names or IPs), also serves them.
func makeCert(ca *x509.Certificate, caKey *ecdsa.PrivateKey, cn string, names []string, validity time.Duration, isCA bool) ([]byte, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn, Organization: []string{"mgmt"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(validity),
	}
	if isCA {
		tmpl.IsCA = true
		tmpl.BasicConstraintsValid = true
		tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
		ca, caKey = tmpl, key
	} else {
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
		if len(names) > 0 {
			tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
		}
		for _, n := range names {
			if ip := net.ParseIP(n); ip != nil {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			} else {
				tmpl.DNSNames = append(tmpl.DNSNames, n)
			}
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), nil
}
