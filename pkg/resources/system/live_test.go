package system

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/resources/system/systemtest"
)

// The tests in this file change the machine they run on. They run inside
// the throwaway systemd container (test/system starts them there).

func newSvc(name, state, startup string) *SvcRes {
	r := &SvcRes{State: state, Startup: startup}
	r.SetKind("svc")
	r.SetName(name)
	return r
}

func sh(t *testing.T, cmd string) string {
	t.Helper()
	return systemtest.Run(t, "sh", "-c", cmd)
}

func isActive(unit string) string {
	out, _ := exec.Command("systemctl", "is-active", unit).Output()
	return strings.TrimSpace(string(out))
}

func writeUnit(t *testing.T, name string) { writeUnitTB(t, name) }

func writeUnitTB(t testing.TB, name string) {
	t.Helper()
	unit := "[Unit]\nDescription=mgmt test sleeper\n[Service]\nExecStart=/bin/sleep infinity\n" +
		"[Install]\nWantedBy=multi-user.target\n"
	if err := os.WriteFile("/etc/systemd/system/"+name+".service", []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		exec.Command("systemctl", "disable", "--now", name).Run()
		os.Remove("/etc/systemd/system/" + name + ".service")
		exec.Command("systemctl", "daemon-reload").Run()
	})
}

func TestLiveSvc(t *testing.T) {
	systemtest.Live(t)
	writeUnit(t, "mgmt-live-sleeper")
	r := newSvc("mgmt-live-sleeper", "running", "enabled")
	h := newHarness(t, r)
	h.watch()
	h.check(false, false) // noop: reports, changes nothing
	if s := isActive("mgmt-live-sleeper"); s == "active" {
		t.Fatalf("noop CheckApply started the unit")
	}
	h.converge()
	if s := isActive("mgmt-live-sleeper"); s != "active" {
		t.Fatalf("is-active: got %q, want active", s)
	}
	if out := sh(t, "systemctl is-enabled mgmt-live-sleeper"); strings.TrimSpace(out) != "enabled" {
		t.Fatalf("is-enabled: got %q", out)
	}

	// a manual stop is seen by Watch and repaired
	h.drain()
	sh(t, "systemctl stop mgmt-live-sleeper")
	h.waitEvent("systemctl stop")
	h.converge()

	// refresh restarts: the main PID changes
	pid := sh(t, "systemctl show -P MainPID mgmt-live-sleeper")
	h.refresh = true
	h.check(true, false)
	h.refresh = false
	if pid2 := sh(t, "systemctl show -P MainPID mgmt-live-sleeper"); pid2 == pid {
		t.Fatalf("refresh did not restart the unit (MainPID %s)", strings.TrimSpace(pid))
	}

	r.State, r.Startup = "stopped", "disabled"
	h.converge()
	if s := isActive("mgmt-live-sleeper"); s == "active" {
		t.Fatalf("is-active: got %q after stop", s)
	}
}

func TestLiveSvcMissingUnit(t *testing.T) {
	systemtest.Live(t)
	h := newHarness(t, newSvc("mgmt-no-such-unit", "running", ""))
	ok, err := h.res.CheckApply(t.Context(), true)
	if err == nil || ok || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("got %v, %v; want a not found error", ok, err)
	}
}

// TestLiveSvcRefreshRestart checks what a refresh does to a running unit
// that supports reloading: by default systemd reloads it (the main
// process stays), with refresh "restart" it is restarted (a new main
// process), as Puppet's systemd provider always does.
func TestLiveSvcRefreshRestart(t *testing.T) {
	systemtest.Live(t)
	const name = "mgmt-live-reloadable"
	dir := t.TempDir()
	unit := "[Unit]\nDescription=mgmt test reloadable sleeper\n[Service]\nExecStart=/bin/sleep infinity\n" +
		"ExecReload=/bin/sh -c 'echo reloaded >> " + dir + "/reloads'\n"
	if err := os.WriteFile("/etc/systemd/system/"+name+".service", []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		exec.Command("systemctl", "stop", name).Run()
		os.Remove("/etc/systemd/system/" + name + ".service")
		exec.Command("systemctl", "daemon-reload").Run()
	})
	r := newSvc(name, "running", "")
	h := newHarness(t, r)
	h.converge()
	mainPID := func() string { return strings.TrimSpace(sh(t, "systemctl show -P MainPID "+name)) }

	pid := mainPID()
	h.refresh = true
	h.check(true, false)
	h.refresh = false
	if got := mainPID(); got != pid {
		t.Fatalf("the default refresh restarted the unit (MainPID %s -> %s), want a reload", pid, got)
	}
	if b, _ := os.ReadFile(dir + "/reloads"); string(b) != "reloaded\n" {
		t.Fatalf("the default refresh did not reload the unit once: %q", b)
	}

	r.Refresh = "restart"
	h.refresh = true
	h.check(true, false)
	h.refresh = false
	if got := mainPID(); got == pid || got == "0" {
		t.Fatalf("refresh restart kept MainPID %s, want a new main process", pid)
	}
	if b, _ := os.ReadFile(dir + "/reloads"); string(b) != "reloaded\n" {
		t.Fatalf("refresh restart reloaded the unit: %q", b)
	}
}

// TestLiveSvcCommands checks that statuscmd, startcmd, stopcmd and
// restartcmd replace what the resource asks of systemd, each for its own
// action, while the unit is still enabled through systemd (Puppet's service
// type with its systemd provider does the same).
func TestLiveSvcCommands(t *testing.T) {
	systemtest.Live(t)
	writeUnit(t, "mgmt-live-cmds")
	dir := t.TempDir()
	up, restarts := dir+"/up", dir+"/restarts"
	r := newSvc("mgmt-live-cmds", "running", "enabled")
	r.StatusCmd = "test -e " + up
	r.StartCmd = "touch " + up
	r.StopCmd = "rm " + up
	r.RestartCmd = "echo restarted >> " + restarts
	h := newHarness(t, r)
	h.check(false, false) // noop: the status command says stopped
	if _, err := os.Stat(up); err == nil {
		t.Fatal("noop ran the start command")
	}
	h.converge()
	if _, err := os.Stat(up); err != nil {
		t.Fatalf("the start command did not run: %v", err)
	}
	if s := isActive("mgmt-live-cmds"); s == "active" {
		t.Fatal("the unit was started: startcmd must replace the start")
	}
	if out := sh(t, "systemctl is-enabled mgmt-live-cmds"); strings.TrimSpace(out) != "enabled" {
		t.Fatalf("is-enabled: got %q", out)
	}
	h.refresh = true
	h.check(true, false)
	h.refresh = false
	if b, _ := os.ReadFile(restarts); string(b) != "restarted\n" {
		t.Fatalf("a refresh of a running service ran the restart command %q times", b)
	}
	r.State = "stopped"
	h.converge()
	if _, err := os.Stat(up); err == nil {
		t.Fatal("the stop command did not run")
	}
	h.refresh = true
	h.check(true, false) // stopped: a refresh restarts nothing
	h.refresh = false
	if b, _ := os.ReadFile(restarts); string(b) != "restarted\n" {
		t.Fatalf("a refresh of a stopped service ran the restart command: %q", b)
	}
}

// newPkg returns a pkg resource. The test packages come from a local
// repository, which PackageKit reports as unsupported: allow them.
func newPkg(name, state, backend string) *PkgRes {
	r := &PkgRes{State: state, Backend: backend, AllowUnsupported: true}
	r.SetKind("pkg")
	r.SetName(name)
	return r
}

func dpkgVersion(name string) string {
	out, err := exec.Command("dpkg-query", "-W", "-f", "${db:Status-Abbrev} ${Version}", name).Output()
	if err != nil || !strings.HasPrefix(string(out), "ii") {
		return ""
	}
	return strings.TrimSpace(string(out[3:]))
}

func testLivePkg(t *testing.T, backend string) {
	systemtest.Live(t)
	// fresh names on every run: the machine may have run the test before
	id := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	a, b, c := "mgmt-"+backend+"-a-"+id, "mgmt-"+backend+"-b-"+id, "mgmt-"+backend+"-c-"+id
	systemtest.Repo(t, "", systemtest.Deb{Name: a, Version: "1.0"}, systemtest.Deb{Name: b, Version: "1.0"},
		systemtest.Deb{Name: c, Version: "1.0"})

	r := newPkg(a, "installed", backend)
	h := newHarness(t, r)
	h.watch()
	h.converge() // the package is unknown until the index is refreshed
	if v := dpkgVersion(a); v != "1.0" {
		t.Fatalf("%s: installed %q, want 1.0", a, v)
	}

	// removed behind our back: Watch notices
	h.drain()
	sh(t, "dpkg -r "+a)
	h.waitEvent("dpkg -r")
	h.converge()

	// upgrade to a version that appears in the repository later
	systemtest.Repo(t, "", systemtest.Deb{Name: a, Version: "1.1"})
	r.State = "1.1"
	h.converge()
	if v := dpkgVersion(a); v != "1.1" {
		t.Fatalf("%s: installed %q, want 1.1", a, v)
	}
	r.State = "uninstalled"
	h.converge()
	if v := dpkgVersion(a); v != "" {
		t.Fatalf("%s: still installed (%s)", a, v)
	}

	// three resources grouped: one transaction
	g := newPkg(a, "newest", backend)
	for _, n := range []string{b, c} {
		if err := g.GroupRes(newPkg(n, "installed", backend)); err != nil {
			t.Fatal(err)
		}
	}
	gh := newHarness(t, g)
	gh.converge()
	if !gh.logged("transaction for 3 package(s)") {
		t.Fatalf("no single transaction for 3 packages in the log")
	}
	for _, n := range []string{a, b, c} {
		if dpkgVersion(n) == "" {
			t.Fatalf("%s not installed", n)
		}
	}
	for _, m := range g.members() {
		m.State = "uninstalled"
	}
	gh.converge()
}

func TestLivePkgApt(t *testing.T) { testLivePkg(t, "apt") }

// TestLivePkgRefused checks allowunsupported (PackageKit) and allownonfree
// (apt): the packages are refused until the option allows them.
func TestLivePkgRefused(t *testing.T) {
	systemtest.Live(t)
	id := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	local, nonfree := "mgmt-local-"+id, "mgmt-nonfree-"+id
	systemtest.Repo(t, "", systemtest.Deb{Name: local, Version: "1.0"},
		systemtest.Deb{Name: nonfree, Version: "1.0", Section: "non-free/misc"})
	for _, tc := range []struct {
		r    *PkgRes
		want string
		set  func(*PkgRes)
	}{
		{newPkg(local, "installed", "packagekit"), "set allownonfree or allowunsupported",
			func(r *PkgRes) { r.AllowUnsupported = true }},
		{newPkg(nonfree, "installed", "apt"), "is non-free (section non-free/misc)",
			func(r *PkgRes) { r.AllowNonFree = true }},
	} {
		tc.r.AllowUnsupported = false
		h := newHarness(t, tc.r)
		_, err := tc.r.CheckApply(t.Context(), true)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: got %v, want an error containing %q", tc.r, err, tc.want)
		}
		if dpkgVersion(tc.r.Name()) != "" {
			t.Fatalf("%s was installed", tc.r.Name())
		}
		tc.set(tc.r)
		h.converge()
		tc.r.State = "uninstalled"
		h.converge()
	}
}
func TestLivePkgPackageKit(t *testing.T) { testLivePkg(t, "packagekit") }

// TestLivePkgDowngrade: a version state older than the installed one is
// refused, the package left alone, until allowdowngrade is set; then the
// package is downgraded, with either backend.
func TestLivePkgDowngrade(t *testing.T) {
	systemtest.Live(t)
	// apt only: PackageKit resolves the newest version of a package, so
	// an older version is "not available" there, whatever allowdowngrade
	// says (the kind's doc says so)
	for _, backend := range []string{"apt"} {
		id := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
		name := "mgmt-down-" + backend + "-" + id
		systemtest.Repo(t, "", systemtest.Deb{Name: name, Version: "1.0"}, systemtest.Deb{Name: name, Version: "1.1"})
		r := newPkg(name, "1.1", backend)
		h := newHarness(t, r)
		h.converge()
		r.State = "1.0"
		_, err := r.CheckApply(t.Context(), true)
		if err == nil || !strings.Contains(err.Error(), "set allowdowngrade") {
			t.Fatalf("%s: downgrade without allowdowngrade: got %v", backend, err)
		}
		if v := dpkgVersion(name); v != "1.1" {
			t.Fatalf("%s: %s is at %q after a refused downgrade", backend, name, v)
		}
		r.AllowDowngrade = true
		h.converge()
		if v := dpkgVersion(name); v != "1.0" {
			t.Fatalf("%s: %s at %q, want 1.0", backend, name, v)
		}
		r.State = "uninstalled"
		h.converge()
	}
}

func u32(v uint32) *uint32 { return &v }
func str(s string) *string { return &s }

func TestLiveUserGroup(t *testing.T) {
	systemtest.Live(t)
	g := &GroupRes{State: "exists", GID: u32(4242)}
	g.SetKind("group")
	g.SetName("mgmtlivegrp")
	gh := newHarness(t, g)
	gh.watch()
	gh.converge()

	u := &UserRes{State: "exists", UID: u32(4243), Group: str("mgmtlivegrp"), Groups: []string{"users"},
		Shell: str("/bin/sh"), HomeDir: str("/home/mgmtlive")}
	u.SetKind("user")
	u.SetName("mgmtlive")
	uh := newHarness(t, u)
	uh.watch()
	uh.converge()
	if out := sh(t, "id mgmtlive"); !strings.Contains(out, "uid=4243(mgmtlive) gid=4242(mgmtlivegrp)") ||
		!strings.Contains(out, "(users)") {
		t.Fatalf("id: %s", out)
	}

	// changed
	u.Shell = str("/bin/bash")
	u.Groups = nil
	uh.converge()
	if out := sh(t, "getent passwd mgmtlive"); !strings.HasSuffix(strings.TrimSpace(out), "/bin/bash") {
		t.Fatalf("getent: %s", out)
	}

	// a manual userdel is noticed and reverted
	uh.drain()
	sh(t, "userdel mgmtlive")
	uh.waitEvent("userdel")
	uh.converge()

	g.GID = u32(4244)
	gh.converge()
	u.State, g.State = "absent", "absent"
	uh.converge()
	gh.converge()
	if out, err := exec.Command("getent", "passwd", "mgmtlive").Output(); err == nil {
		t.Fatalf("user still there: %s", out)
	}
}

func TestLiveHostname(t *testing.T) {
	systemtest.Live(t)
	old, _ := os.Hostname()
	r := &HostnameRes{Hostname: "mgmt-live-host", PrettyHostname: "mgmt live host"}
	r.SetKind("hostname")
	r.SetName("h")
	h := newHarness(t, r)
	h.watch()
	h.converge()
	if n, _ := os.Hostname(); n != "mgmt-live-host" {
		t.Fatalf("hostname %q", n)
	}
	if b, _ := os.ReadFile("/etc/hostname"); strings.TrimSpace(string(b)) != "mgmt-live-host" {
		t.Fatalf("/etc/hostname: %q", b)
	}
	h.drain()
	sh(t, "hostname mgmt-drifted")
	h.waitEvent("sethostname")
	h.converge()
	r.Hostname, r.PrettyHostname = old, ""
	h.converge()
}

func TestLiveMount(t *testing.T) {
	systemtest.Live(t)
	fstab := t.TempDir() + "/fstab"
	r := &MountRes{State: "exists", Device: "mgmt-tmpfs", Type: "tmpfs",
		Options: map[string]string{"size": "1m", "mode": "0700"}, Fstab: fstab}
	r.SetKind("mount")
	r.SetName("/mnt/mgmt-live")
	h := newHarness(t, r)
	h.watch()
	h.converge()
	if out := sh(t, "findmnt -n -o FSTYPE,SOURCE /mnt/mgmt-live"); strings.Join(strings.Fields(out), " ") != "tmpfs mgmt-tmpfs" {
		t.Fatalf("findmnt: %q", out)
	}
	h.drain()
	sh(t, "umount /mnt/mgmt-live")
	h.waitEvent("umount")
	h.converge()
	r.State = "absent"
	h.converge()
	if b, _ := os.ReadFile(fstab); strings.Contains(string(b), "mgmt-live") {
		t.Fatalf("fstab still has the entry: %s", b)
	}
}

var _ engine.Groupable = (*PkgRes)(nil)

func TestLiveSvcSession(t *testing.T) {
	systemtest.Live(t)
	// root's user manager and its session bus (dbus-user-session)
	sh(t, "systemctl start user@0.service")
	systemtest.Eventually(t, 10*time.Second, func() string {
		if _, err := os.Stat("/run/user/0/bus"); err != nil {
			return err.Error()
		}
		return ""
	})
	unit := "[Unit]\nDescription=mgmt user unit\n[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=default.target\n"
	if err := os.WriteFile("/etc/systemd/user/mgmt-user-sleeper.service", []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	user := "XDG_RUNTIME_DIR=/run/user/0 systemctl --user "
	t.Cleanup(func() {
		exec.Command("sh", "-c", user+"disable --now mgmt-user-sleeper").Run()
		os.Remove("/etc/systemd/user/mgmt-user-sleeper.service")
	})
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/0/bus")
	r := newSvc("mgmt-user-sleeper", "running", "enabled")
	r.Session = true
	h := newHarness(t, r)
	h.watch()
	h.converge()
	if out := sh(t, user+"is-active mgmt-user-sleeper; "+user+"is-enabled mgmt-user-sleeper"); out != "active\nenabled\n" {
		t.Fatalf("user unit: %q", out)
	}
	if isActive("mgmt-user-sleeper") == "active" {
		t.Fatal("the unit runs in the system manager")
	}
	h.drain()
	sh(t, user+"stop mgmt-user-sleeper")
	h.waitEvent("systemctl --user stop")
	h.converge()
	r.State, r.Startup = "stopped", "disabled"
	h.converge()
}
