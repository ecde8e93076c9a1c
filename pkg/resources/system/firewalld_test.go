package system

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/resources/system/systemtest"
)

func TestFirewalldValidate(t *testing.T) {
	for _, r := range []*FirewalldRes{
		{State: "open"},
		{Services: []string{""}},
		{Ports: []string{"80"}},
		{Ports: []string{"0/tcp"}},
		{Ports: []string{"90-80/tcp"}},
		{Ports: []string{"80/icmp"}},
		{Zone: "a b"},
	} {
		r.SetKind("firewalld")
		r.SetName("fw")
		if err := r.Validate(); err == nil {
			t.Errorf("%+v: no error", r)
		}
	}
}

// firewallCmd runs firewall-cmd and returns its output.
func firewallCmd(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("firewall-cmd", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("firewall-cmd %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestLiveFirewalld opens services and ports in the container's firewalld
// (which runs in a network namespace of its own), and repairs a service
// removed by hand, a port removed by hand and a reload that drops every
// runtime change.
func TestLiveFirewalld(t *testing.T) {
	systemtest.Live(t)
	sh(t, "systemctl start firewalld")
	systemtest.Eventually(t, time.Minute, func() string {
		if out, err := exec.Command("firewall-cmd", "--state").CombinedOutput(); err != nil {
			return "firewalld not running: " + string(out)
		}
		return ""
	})
	zone := firewallCmd(t, "--get-default-zone")
	t.Cleanup(func() { exec.Command("firewall-cmd", "--reload").Run() })
	r := &FirewalldRes{Services: []string{"http", "https"}, Ports: []string{"8080/tcp", "6000-6005/udp"}}
	r.SetKind("firewalld")
	r.SetName("web")
	h := newHarness(t, r)
	h.watch()
	h.check(false, false)
	if strings.Contains(firewallCmd(t, "--zone="+zone, "--list-services"), "https") {
		t.Fatal("noop opened a service")
	}
	h.converge()
	assertOpen := func() {
		t.Helper()
		if s := firewallCmd(t, "--zone="+zone, "--list-services"); !strings.Contains(s, "http") || !strings.Contains(s, "https") {
			t.Fatalf("services of %s: %q", zone, s)
		}
		if p := firewallCmd(t, "--zone="+zone, "--list-ports"); !strings.Contains(p, "8080/tcp") || !strings.Contains(p, "6000-6005/udp") {
			t.Fatalf("ports of %s: %q", zone, p)
		}
	}
	assertOpen()
	for _, drift := range [][]string{
		{"--zone=" + zone, "--remove-service=https"},
		{"--zone=" + zone, "--remove-port=8080/tcp"},
		{"--reload"},
	} {
		h.drain()
		firewallCmd(t, drift...)
		h.waitEvent("firewall-cmd " + strings.Join(drift, " "))
		h.converge()
		assertOpen()
	}

	narrow := &FirewalldRes{State: "absent", Ports: []string{"6001/udp"}}
	narrow.SetKind("firewalld")
	narrow.SetName("narrow")
	if _, err := newHarness(t, narrow).res.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "wider range") {
		t.Fatalf("closing a port inside an open range: got %v", err)
	}
	r.State = "absent"
	h.converge()
	if s := firewallCmd(t, "--zone="+zone, "--list-all"); strings.Contains(s, "8080/tcp") || strings.Contains(s, "https") {
		t.Fatalf("still open:\n%s", s)
	}
}
