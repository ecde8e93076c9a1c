// Package puppetagent tests puppet-graph --agent against a real Puppet
// server: Debian's puppetserver (a JVM), started by the test with its own
// CA, a certificate for the test node and an environment of real modules
// from Debian's puppet-module-* packages. The node's catalog fetched from
// the server must give the same graph as the same manifest compiled on the
// node (puppet-graph --engine puppet), and a server that is down must give
// a clear error and exit code 1.
//
// The server takes a minute or more to start and about 800 MB of memory,
// so the test that starts it runs only with MGMT_PUPPETSERVER=1 (CI:
// .ci/check.d/55-puppet-agent.sh). The test of a server that is down needs
// Puppet only and runs in the main suite.
package puppetagent

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// corpusCases are the cases of test/puppetmodules the server's site
// manifest is made of, and the modules they use.
var (
	corpusCases   = []string{"ntp", "memcached", "inifile"}
	corpusModules = []string{"ntp", "memcached", "inifile"}
)

const node = "mgmt-agent-node.test"

// agentConf writes the agent's puppet.conf: its own ssldir and vardir
// under dir, the server on the loopback.
func agentConf(t *testing.T, dir string, port int, extra string) string {
	t.Helper()
	conf := filepath.Join(dir, "puppet.conf")
	writeFiles(t, dir, map[string]string{"puppet.conf": fmt.Sprintf(`[main]
certname = %[2]s
server = localhost
serverport = %[3]d
ssldir = %[1]s/ssl
vardir = %[1]s/var
logdir = %[1]s/log
rundir = %[1]s/run
%[4]s`, dir, node, port, extra)})
	return conf
}

// TestAgentMatchesLocal starts a Puppet server whose site manifest holds
// corpus cases, bootstraps the node's certificate against it (the CA
// certificate given beforehand, not trusted on first use), and compares
// the graph of the catalog the server compiles for the node with the
// graph of the same manifest compiled locally. Then it stops the server:
// the agent must fail clearly.
func TestAgentMatchesLocal(t *testing.T) {
	if os.Getenv("MGMT_PUPPETSERVER") != "1" {
		t.Skip("starts a JVM Puppet server (minutes, ~800 MB): run it with MGMT_PUPPETSERVER=1 (CI: .ci/check.d/55-puppet-agent.sh)")
	}
	testneed.Puppet(t)
	s := newServer(t, corpusModules, node)
	site := siteManifest(t)
	writeFiles(t, s.envDir(), map[string]string{"manifests/site.pp": site})
	s.start(t)

	agentDir := t.TempDir()
	conf := agentConf(t, agentDir, s.port, "")
	ca, err := os.ReadFile(s.caCert())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, agentDir, map[string]string{"ssl/certs/ca.pem": string(ca)})
	began := time.Now()
	if out, err := exec.Command("puppet", "ssl", "bootstrap", "--config", conf, "--waitforcert", "0").CombinedOutput(); err != nil {
		t.Fatalf("puppet ssl bootstrap: %v\n%s\nserver log:\n%s", err, out, tail(s.log, 30))
	}
	t.Logf("certificate of %s signed in %s", node, time.Since(began).Round(time.Second))

	began = time.Now()
	agent := testutil.Run(t, "", "puppet-graph", "--agent", "--puppet-conf", conf)
	if agent.Code != 0 {
		t.Fatalf("puppet-graph --agent: exit %d\n%s\nserver log:\n%s", agent.Code, agent.Stderr, tail(s.log, 30))
	}
	t.Logf("catalog fetched in %s (%s)", time.Since(began).Round(time.Second), s.usage())
	local := testutil.Run(t, "", "puppet-graph", "--engine", "puppet", "--certname", node,
		"--manifest", filepath.Join(s.envDir(), "manifests", "site.pp"),
		"--modulepath", filepath.Join(s.envDir(), "modules"))
	if local.Code != 0 {
		t.Fatalf("puppet-graph --engine puppet: exit %d\n%s", local.Code, local.Stderr)
	}
	got, want := canonical(t, agent.Stdout, "puppetconf", conf), canonical(t, local.Stdout, "modulepath", filepath.Join(s.envDir(), "modules"))
	if got != want {
		t.Fatalf("the agent's graph differs from the local one:\n%s", lineDiff(got, want))
	}
	for _, kind := range []string{`"kind": "svc"`, `"kind": "pkg"`, `"kind": "pippet"`} {
		if !strings.Contains(got, kind) {
			t.Errorf("the graph has no %s resource", kind)
		}
	}

	s.stop()
	down := testutil.Run(t, "", "puppet-graph", "--agent", "--puppet-conf", conf)
	want1 := fmt.Sprintf("puppet-graph: agent: connecting: cannot reach the Puppet server at localhost:%d: Connection refused", s.port)
	if down.Code != 1 || down.Stdout != "" || !strings.Contains(down.Stderr, want1) {
		t.Fatalf("server down: exit %d, stdout %q, stderr %q; want exit 1 and %q", down.Code, down.Stdout, down.Stderr, want1)
	}
}

// siteManifest joins the corpus cases into one manifest.
func siteManifest(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, c := range corpusCases {
		src, err := os.ReadFile(filepath.Join(testutil.Root(), "test", "puppetmodules", "cases", c+".pp"))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(src)
		b.WriteString("\n")
	}
	return b.String()
}

// TestAgentServerDown runs the agent with a certificate of a CA of the
// test's own against a port nothing listens on, and without any
// certificate: both exit 1 with a clear error and write no graph.
func TestAgentServerDown(t *testing.T) {
	testneed.Puppet(t)
	dir := t.TempDir()
	port := testutil.FreePort(t)
	conf := agentConf(t, dir, port, "certificate_revocation = false\n")
	writeCerts(t, filepath.Join(dir, "ssl"), node)
	res := testutil.Run(t, "", "puppet-graph", "--agent", "--puppet-conf", conf)
	want := fmt.Sprintf("puppet-graph: agent: connecting: cannot reach the Puppet server at localhost:%d: Connection refused", port)
	if res.Code != 1 || res.Stdout != "" || !strings.Contains(res.Stderr, want) {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and %q", res.Code, res.Stdout, res.Stderr, want)
	}

	bare := t.TempDir()
	res = testutil.Run(t, "", "puppet-graph", "--agent", "--puppet-conf", agentConf(t, bare, port, ""))
	want = "puppet-graph: agent: loading the agent's certificate (puppet ssl bootstrap makes it): "
	if res.Code != 1 || res.Stdout != "" || !strings.Contains(res.Stderr, want) {
		t.Fatalf("no certificate: exit %d, stdout %q, stderr %q; want exit 1 and %q", res.Code, res.Stdout, res.Stderr, want)
	}
}

// writeCerts writes a CA certificate, and a certificate and key for
// certname signed by it, where Puppet's ssldir keeps them.
func writeCerts(t *testing.T, ssldir, certname string) {
	t.Helper()
	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mgmt test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: certname},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caTmpl, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(typ string, b []byte) string { return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b})) }
	writeFiles(t, ssldir, map[string]string{
		"certs/ca.pem":                      enc("CERTIFICATE", caDER),
		"certs/" + certname + ".pem":        enc("CERTIFICATE", der),
		"private_keys/" + certname + ".pem": enc("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key)),
	})
}

// canonical decodes a graph and encodes it again without its source (the
// agent's says --agent) and without how its pippet resources start Puppet,
// which must be the given setting and value: with the agent's puppet.conf
// (whose libdir holds the synced plugins) or the local module path.
func canonical(t *testing.T, s, setting, value string) string {
	t.Helper()
	docs, err := graph.ReadAll(strings.NewReader(s), "stdout")
	if err != nil || len(docs) != 1 {
		t.Fatalf("decoding a graph: %v (%d documents)", err, len(docs))
	}
	d := docs[0]
	d.Source = ""
	for _, r := range d.Resources {
		if r.Kind != "pippet" {
			continue
		}
		if got := r.Params[setting]; got != value || len(r.Params) != 4 {
			t.Errorf("%s: pippet's Puppet starts with %v, want only %s %s", r.Name, r.Params, setting, value)
		}
		delete(r.Params, setting)
	}
	var b bytes.Buffer
	if err := graph.Encode(&b, d, graph.JSON); err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.MarshalIndent(v, "", " ")
	return string(out)
}

// lineDiff shows the lines only one side has.
func lineDiff(got, want string) string {
	count := map[string]int{}
	for _, l := range strings.Split(want, "\n") {
		count[l]++
	}
	var b strings.Builder
	for _, l := range strings.Split(got, "\n") {
		if count[l] > 0 {
			count[l]--
			continue
		}
		b.WriteString("+agent " + l + "\n")
	}
	for l, n := range count {
		for ; n > 0; n-- {
			b.WriteString("-local " + l + "\n")
		}
	}
	return b.String()
}
