package system

import (
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/resources/system/systemtest"
)

// TestMain lets this test binary be the init of the containers that
// TestLiveNspawn boots: as PID 1 of a container it waits for the signal
// that stops it (SIGRTMIN+3 halt, SIGRTMIN+4 power-off, SIGTERM, SIGINT)
// and exits.
func TestMain(m *testing.M) {
	if os.Getpid() == 1 && os.Getenv("container") != "" {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT, syscall.Signal(34+3), syscall.Signal(34+4))
		<-ch
		return
	}
	os.Exit(m.Run())
}

func TestNspawnValidate(t *testing.T) {
	for _, c := range []struct{ name, state string }{
		{"", "running"}, {"a/b", "running"}, {strings.Repeat("a", 65), "running"}, {".x", "running"},
		{"a..b", "running"}, {"ok", "started"},
	} {
		r := &NspawnRes{State: c.state}
		r.SetKind("nspawn")
		r.SetName(c.name)
		if err := r.Validate(); err == nil {
			t.Errorf("%q %q: no error", c.name, c.state)
		}
	}
}

// nspawnImage makes a directory image under /var/lib/machines whose init
// is this test binary (see TestMain).
func nspawnImage(t *testing.T, name string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("/var/lib/machines", name)
	for _, d := range []string{"sbin", "usr/lib", "etc", "proc", "sys", "dev", "run", "tmp", "var"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sh(t, "cp "+self+" "+root+"/sbin/init")
	if err := os.WriteFile(root+"/usr/lib/os-release", []byte("ID=mgmt-test\nNAME=mgmt-test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		exec.Command("machinectl", "terminate", name).Run()
		os.RemoveAll(root)
	})
}

func machineListed(name string) bool {
	out, _ := exec.Command("machinectl", "list", "--no-legend").Output()
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == name {
			return true
		}
	}
	return false
}

// TestLiveNspawn boots a container through machined inside the test
// container (nested systemd-nspawn), powers it off by hand and sees it
// started again, then stops it.
func TestLiveNspawn(t *testing.T) {
	systemtest.Live(t)
	name := "mgmt-nspawn-live"
	nspawnImage(t, name)
	r := &NspawnRes{State: "running"}
	r.SetKind("nspawn")
	r.SetName(name)
	h := newHarness(t, r)
	h.watch()
	h.check(false, false)
	if machineListed(name) {
		t.Fatal("noop started the machine")
	}
	h.converge()
	if !machineListed(name) {
		t.Fatal("the machine is not running")
	}
	h.drain()
	sh(t, "machinectl poweroff "+name)
	h.waitEvent("machinectl poweroff")
	systemtest.Eventually(t, 30*time.Second, func() string {
		if machineListed(name) {
			return "the machine is still running after poweroff"
		}
		return ""
	})
	h.converge()
	if !machineListed(name) {
		t.Fatal("the machine was not started again")
	}
	r.State = "stopped"
	h.converge()
	if machineListed(name) {
		t.Fatal("the machine still runs")
	}

	missing := &NspawnRes{State: "running"}
	missing.SetKind("nspawn")
	missing.SetName("mgmt-no-such-image")
	if _, err := newHarness(t, missing).res.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "no image") {
		t.Fatalf("missing image: got %v", err)
	}
}
