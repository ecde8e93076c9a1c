package system

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
)

// testNetns makes a network namespace of its own (removed when the test ends)
// holding a link, and returns the namespace's name. Addresses come
// from the documentation ranges; nothing is sent anywhere.
func testNetns(t *testing.T, link string) string {
	t.Helper()
	testneed.Command(t, "ip", "iproute2")
	if os.Geteuid() != 0 {
		testneed.Missing(t, "network namespaces need root")
	}
	name := fmt.Sprintf("mgmt-net-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))
	if len(name) > 60 {
		name = name[:60]
	}
	ipCmd(t, "netns", "add", name)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", name).Run() })
	// a veth pair with its peer up, so the link has a carrier (this
	// kernel may lack the dummy driver)
	ipCmd(t, "-n", name, "link", "add", link, "type", "veth", "peer", "name", link+"p")
	ipCmd(t, "-n", name, "link", "set", link+"p", "up")
	return name
}

func ipCmd(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func newNet(ns, link, dir string) *NetRes {
	r := &NetRes{Netns: "/run/netns/" + ns, NetworkDir: dir}
	r.SetKind("net")
	r.SetName(link)
	return r
}

func TestNetLinkAddrsGatewayAndDrift(t *testing.T) {
	ns := testNetns(t, "mgmt0")
	dir := t.TempDir()
	r := newNet(ns, "mgmt0", dir)
	fwd := true
	r.State, r.Addrs, r.Gateway, r.IPForward = "up", &[]string{"192.0.2.10/24", "2001:db8::10/64"}, "192.0.2.1", &fwd
	h := newHarness(t, r)
	h.watch()
	h.check(false, false)
	if strings.Contains(ipCmd(t, "-n", ns, "addr", "show", "mgmt0"), "192.0.2.10") {
		t.Fatal("noop added an address")
	}
	h.converge()
	addrs := ipCmd(t, "-n", ns, "addr", "show", "mgmt0")
	for _, want := range []string{"UP", "inet 192.0.2.10/24", "inet6 2001:db8::10/64"} {
		if !strings.Contains(addrs, want) {
			t.Fatalf("%q missing from\n%s", want, addrs)
		}
	}
	if out := ipCmd(t, "-n", ns, "route", "show", "default"); !strings.Contains(out, "via 192.0.2.1 dev mgmt0") {
		t.Fatalf("default route: %q", out)
	}
	file, _ := os.ReadFile(filepath.Join(dir, "mgmt-mgmt0.network"))
	wantFile := "[Match]\nName=mgmt0\n\n[Network]\nAddress=192.0.2.10/24\nAddress=2001:db8::10/64\nGateway=192.0.2.1\nIPForward=yes\n"
	if string(file) != wantFile {
		t.Fatalf("networkd file\n%s\nwant\n%s", file, wantFile)
	}

	for _, drift := range [][]string{
		{"addr", "del", "192.0.2.10/24", "dev", "mgmt0"},
		{"addr", "add", "198.51.100.7/24", "dev", "mgmt0"},
		{"route", "del", "default"},
		{"route", "del", "192.0.2.0/24", "dev", "mgmt0"},
		{"link", "set", "mgmt0", "down"},
	} {
		h.drain()
		ipCmd(t, append([]string{"-n", ns}, drift...)...)
		h.waitEvent("ip " + strings.Join(drift, " "))
		h.converge()
	}
	addrs = ipCmd(t, "-n", ns, "addr", "show", "mgmt0")
	if strings.Contains(addrs, "198.51.100.7") || !strings.Contains(addrs, "inet 192.0.2.10/24") || !strings.Contains(addrs, "UP") {
		t.Fatalf("after the repairs:\n%s", addrs)
	}
	if out := ipCmd(t, "-n", ns, "route", "show"); !strings.Contains(out, "192.0.2.0/24 dev mgmt0 proto kernel scope link src 192.0.2.10") ||
		!strings.Contains(out, "default via 192.0.2.1") {
		t.Fatalf("routes after the repairs:\n%s", out)
	}

	h.drain()
	os.WriteFile(filepath.Join(dir, "mgmt-mgmt0.network"), []byte("[Match]\nName=mgmt0\n"), 0o644)
	h.waitEvent("networkd file edited")
	h.converge()

	r.State, r.Addrs, r.Gateway = "down", nil, ""
	h.converge()
	if out := ipCmd(t, "-n", ns, "link", "show", "mgmt0"); strings.Contains(out, ",UP") {
		t.Fatalf("link still up: %s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "mgmt-mgmt0.network")); err == nil {
		t.Fatal("the networkd file of a link kept down is still there")
	}
}

func TestNetEmptyAddrsRemovesAll(t *testing.T) {
	ns := testNetns(t, "mgmt1")
	ipCmd(t, "-n", ns, "addr", "add", "192.0.2.20/24", "dev", "mgmt1")
	r := newNet(ns, "mgmt1", t.TempDir())
	r.Addrs = &[]string{}
	h := newHarness(t, r)
	h.converge()
	if strings.Contains(ipCmd(t, "-n", ns, "addr", "show", "mgmt1"), "192.0.2.20") {
		t.Fatal("address not removed")
	}
	missing := newNet(ns, "nosuchlink", t.TempDir())
	missing.State = "up"
	if _, err := missing.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "nosuchlink") {
		t.Fatalf("missing link: got %v", err)
	}
}

func TestNetValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		r    NetRes
	}{
		{"a/b", NetRes{}},
		{"averyveryverylongname", NetRes{}},
		{"eth0", NetRes{State: "on"}},
		{"eth0", NetRes{Addrs: &[]string{"192.0.2.1"}}},
		{"eth0", NetRes{Gateway: "2001:db8::1"}},
	} {
		r := c.r
		r.SetKind("net")
		r.SetName(c.name)
		if err := r.Validate(); err == nil {
			t.Errorf("%s %+v: no error", c.name, c.r)
		}
	}
}
