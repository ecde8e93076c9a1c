package resources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newSysctl sets up a sysctl resource on a /proc/sys stand-in holding the
// given files, and returns it with the stand-in's root.
func newSysctl(t testing.TB, h *harness, name string, s *SysctlRes, files map[string]string) (*SysctlRes, string) {
	t.Helper()
	root := t.TempDir()
	for p, v := range files {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, filepath.Join(root, p), v)
	}
	s.procRoot = root
	return setup(t, h, "sysctl", name, s).(*SysctlRes), root
}

func TestSysctlRuntimeAndPersist(t *testing.T) {
	h := newHarness(t)
	conf := filepath.Join(t.TempDir(), "99-fwd.conf")
	s, root := newSysctl(t, h, "net.ipv4.ip_forward", &SysctlRes{Value: "1", Runtime: true, Persist: true, Path: conf},
		map[string]string{"net/ipv4/ip_forward": "0\n"})
	proc := filepath.Join(root, "net/ipv4/ip_forward")
	checkApply(t, s, false, false)
	if mustRead(t, proc) != "0\n" || exists(conf) {
		t.Fatal("apply=false changed something")
	}
	checkApply(t, s, true, false)
	if got := mustRead(t, proc); got != "1\n" {
		t.Fatalf("live value %q", got)
	}
	if got := mustRead(t, conf); got != "net.ipv4.ip_forward = 1\n" {
		t.Fatalf("conf %q", got)
	}
	if perm := permOf(t, conf); perm != 0o644 {
		t.Fatalf("conf mode %04o", perm)
	}
	checkApply(t, s, true, true)
	if !strings.Contains(h.logged(), "live value 0 -> 1, "+conf) {
		t.Fatalf("log %q", h.logged())
	}
}

func TestSysctlPersistKeepsOtherLines(t *testing.T) {
	h := newHarness(t)
	conf := filepath.Join(t.TempDir(), "sysctl.conf")
	mustWrite(t, conf, "# settings\nvm.swappiness = 10\nnet.ipv4.ip_forward=0\n-net/ipv4/ip_forward = 0\n; old\n")
	s, _ := newSysctl(t, h, "net.ipv4.ip_forward", &SysctlRes{Value: "1", Persist: true, Path: conf}, nil)
	checkApply(t, s, true, false)
	want := "# settings\nvm.swappiness = 10\nnet.ipv4.ip_forward = 1\n; old\n"
	if got := mustRead(t, conf); got != want {
		t.Fatalf("conf\n%s\nwant\n%s", got, want)
	}
	checkApply(t, s, true, true)
}

func TestSysctlVectorValue(t *testing.T) {
	h := newHarness(t)
	s, root := newSysctl(t, h, "net.ipv4.tcp_rmem", &SysctlRes{Value: "4096 131072  6291456", Runtime: true},
		map[string]string{"net/ipv4/tcp_rmem": "4096\t131072\t6291456\n"})
	checkApply(t, s, true, true) // the kernel's tabs are the same list
	mustWrite(t, filepath.Join(root, "net/ipv4/tcp_rmem"), "4096\t87380\t6291456\n")
	checkApply(t, s, true, false)
}

func TestSysctlSlashedName(t *testing.T) {
	h := newHarness(t)
	// Interface eth0.1: the dot is part of a component.
	s, root := newSysctl(t, h, "net.ipv4.conf.eth0/1.rp_filter", &SysctlRes{Value: "2", Runtime: true},
		map[string]string{"net/ipv4/conf/eth0.1/rp_filter": "1\n"})
	checkApply(t, s, true, false)
	if got := mustRead(t, filepath.Join(root, "net/ipv4/conf/eth0.1/rp_filter")); got != "2\n" {
		t.Fatalf("value %q", got)
	}
	if p := sysctlPath("net/ipv4/conf/eth0.1/rp_filter"); p != "net/ipv4/conf/eth0.1/rp_filter" {
		t.Fatalf("slashed name maps to %s", p)
	}
}

func TestSysctlMissing(t *testing.T) {
	h := newHarness(t)
	s, _ := newSysctl(t, h, "net.ipv4.no_such_thing", &SysctlRes{Value: "1", Runtime: true}, nil)
	if _, err := s.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "no sysctl net.ipv4.no_such_thing") {
		t.Fatalf("got %v", err)
	}
}

func TestSysctlValidate(t *testing.T) {
	for name, s := range map[string]*SysctlRes{
		"":             {Value: "1", Runtime: true},
		"a..b":         {Value: "1", Runtime: true},
		".a":           {Value: "1", Runtime: true},
		"a b":          {Value: "1", Runtime: true},
		"a=b":          {Value: "1", Runtime: true},
		"net.a":        {Value: "", Runtime: true},
		"net.b":        {Value: " 1", Runtime: true},
		"net.c":        {Value: "1"},
		"net.d":        {Value: "1", Persist: true, Path: "rel.conf"},
		"net.e":        {Value: "1", Persist: true, Path: "/etc/sysctl.d/x.txt"},
		"net/../etc/x": {Value: "1", Runtime: true},
	} {
		s.SetName(name)
		if err := s.Validate(); err == nil {
			t.Errorf("%q %+v accepted", name, s)
		}
	}
	s := &SysctlRes{Value: "1", Runtime: true, Persist: true}
	s.SetName("net.ipv4.ip_forward")
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if s.path() != "/etc/sysctl.d/99-net.ipv4.ip_forward.conf" {
		t.Fatalf("default path %s", s.path())
	}
}

func TestSysctlWatch(t *testing.T) {
	h := newHarness(t)
	conf := filepath.Join(t.TempDir(), "x.conf")
	s, root := newSysctl(t, h, "kernel.x", &SysctlRes{Value: "1", Runtime: true, Persist: true, Path: conf},
		map[string]string{"kernel/x": "1\n"})
	startWatch(t, h, s)
	expectEvent(t, h, "live value", func() { mustWrite(t, filepath.Join(root, "kernel/x"), "0\n") })
	expectEvent(t, h, "conf file", func() { mustWrite(t, conf, "") })
}
