package cluster

import (
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/world"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// openDir returns a fresh directory every user may enter (mode 0755), so
// that what keeps another user out is the world's own directory, not the
// test's temporary one.
func openDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "mgmt-private-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// toolForNobody copies a built tool where uid 65534 may run it.
func toolForNobody(t *testing.T, dir, tool string) string {
	t.Helper()
	src, err := os.Open(testutil.Bin(t, tool))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst := filepath.Join(dir, tool)
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, src); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestPrivateWorldOwnerOnly starts the private world of a tool without
// seeds (mgmt-apply using the world) and the member of `mgmt-cluster run`
// without TLS, and checks that another local user can neither read where
// they listen nor write to them: a real client run as uid 65534 gets
// "permission denied", and the world holds nothing it tried to write.
func TestPrivateWorldOwnerOnly(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts etcd members")
	}
	testutil.NeedRoot(t)
	base := openDir(t)
	ctlNobody := toolForNobody(t, base, "mgmt-cluster")

	applyPrefix := filepath.Join(base, "apply")
	apply := testutil.Start(t, "mgmt-apply", "--prefix", applyPrefix, "--hostname", "m1")
	apply.Write(`{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"kv","name":"greeting","params":{"value":"hi"}}]}` + "\n")
	apply.WaitLog("kv[greeting]", 0)

	runPrefix := filepath.Join(base, "run")
	run := testutil.Start(t, "mgmt-cluster", "run", "--prefix", runPrefix, "--name", "m2", "--ideal-cluster-size", "1")
	run.WaitLog("running as member m2", 0)

	for _, prefix := range []string{applyPrefix, runPrefix} {
		lay, err := world.PrefixLayout(prefix)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(lay.URLFile())
		if err != nil {
			t.Fatal(err)
		}
		url := strings.TrimSpace(string(b))
		if url != lay.ClientURL {
			t.Fatalf("%s publishes %q, want the unix socket %s", prefix, url, lay.ClientURL)
		}
		checkMode(t, lay.Dir, 0o700)
		checkMode(t, lay.URLFile(), 0o600)
		checkMode(t, strings.TrimPrefix(lay.ClientURL, "unix://"), 0o600)
		checkMode(t, filepath.Join(lay.Dir, "peer.key"), 0o600)

		if r := testutil.RunAsNobody(t, "/bin/cat", lay.URLFile()); r.Code == 0 || !strings.Contains(r.Stderr, "Permission denied") {
			t.Errorf("nobody read %s: exit %d, %q %q", lay.URLFile(), r.Code, r.Stdout, r.Stderr)
		}
		r := testutil.RunAsNobody(t, ctlNobody, "--timeout", "2s", "--seeds", lay.ClientURL, "put", "exports/m9/*/exec/pwn", "id")
		if r.Code != 1 || !strings.Contains(r.Stderr, "permission denied") {
			t.Errorf("nobody's put through %s: exit %d, stderr %q; want permission denied", lay.ClientURL, r.Code, r.Stderr)
		}
		ms, err := members(t, url)
		if err != nil || len(ms) != 1 || len(ms[0].PeerURLs) != 1 {
			t.Fatalf("members of %s: %+v, %v", prefix, ms, err)
		}
		peer := ms[0].PeerURLs[0]
		if r := testutil.RunAsNobody(t, ctlNobody, "--timeout", "2s", "--insecure", "--seeds", strings.Replace(peer, "https:", "http:", 1),
			"put", "exports/m9/*/exec/pwn", "id"); r.Code != 1 {
			t.Errorf("nobody's plain put to the peer port %s: exit %d, stderr %q", peer, r.Code, r.Stderr)
		}
		if err := peerWithoutCert(peer); err == nil {
			t.Errorf("the peer port %s answered a client without a certificate", peer)
		}
		r = ctl(t, "", "--seeds", url, "get", "--prefix", "/")
		if r.Code != 0 || strings.Contains(r.Stdout, "pwn") {
			t.Errorf("the world of %s holds %q (%s)", prefix, r.Stdout, r.Stderr)
		}
	}
	if r := ctl(t, "", "--seeds", "unix://"+applyPrefix+"/world/client.sock", "get", "strings/greeting"); r.Stdout != "hi\n" {
		t.Errorf("the owner reads %q from the private world (%s), want hi", r.Stdout, r.Stderr)
	}
}

// peerWithoutCert asks the peer listener at u for the member list over TLS
// without a client certificate.
func peerWithoutCert(u string) error {
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := c.Get(u + "/members")
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// checkMode fails unless path has exactly the permission bits perm.
func checkMode(t *testing.T, path string, perm os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != perm {
		t.Errorf("%s has mode %04o, want %04o", path, fi.Mode().Perm(), perm)
	}
}
