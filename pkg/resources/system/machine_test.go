package system

import (
	"os"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/resources/system/systemtest"
)

// The tests in this file run on the host and drive the systemd container
// through its D-Bus socket and its root directory: the D-Bus address and the
// account root are configurable, and the host has no /run/systemd/system.

func TestMachineSvcOverBus(t *testing.T) {
	m := systemtest.Find(t)
	unit := "[Unit]\nDescription=driven from the host\n[Service]\nExecStart=/bin/sleep infinity\n" +
		"[Install]\nWantedBy=multi-user.target\n"
	if err := os.WriteFile(m.Path("/etc/systemd/system/mgmt-host-driven.service"), []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		m.Command("systemctl", "disable", "--now", "mgmt-host-driven").Run()
		os.Remove(m.Path("/etc/systemd/system/mgmt-host-driven.service"))
	})
	r := newSvc("mgmt-host-driven", "running", "enabled")
	r.Bus = m.Bus()
	h := newHarness(t, r)
	h.watch()
	h.converge()
	if a := strings.TrimSpace(m.Run(t, "systemctl", "is-active", "mgmt-host-driven")); a != "active" {
		t.Fatalf("is-active in the container: %s", a)
	}
	h.drain()
	m.Run(t, "systemctl", "stop", "mgmt-host-driven")
	h.waitEvent("systemctl stop in the container")
	h.converge()
	r.State, r.Startup = "stopped", "disabled"
	h.converge()
}

func TestMachineHostnameOverBus(t *testing.T) {
	m := systemtest.Find(t)
	old := strings.TrimSpace(m.Run(t, "hostname"))
	host, _ := os.Hostname()
	r := &HostnameRes{StaticHostname: "mgmt-host-driven", TransientHostname: "mgmt-host-driven", Bus: m.Bus()}
	r.SetKind("hostname")
	r.SetName("h")
	h := newHarness(t, r)
	h.watch()
	h.converge()
	if n := strings.TrimSpace(m.Run(t, "hostname")); n != "mgmt-host-driven" {
		t.Fatalf("container hostname %q", n)
	}
	if n, _ := os.Hostname(); n != host {
		t.Fatalf("the host was renamed to %q", n)
	}
	h.drain()
	m.Run(t, "hostnamectl", "set-hostname", "mgmt-drifted")
	h.waitEvent("hostnamectl in the container")
	h.converge()
	r.StaticHostname, r.TransientHostname = old, old
	h.converge()
}

func TestMachineAccountsUnderRoot(t *testing.T) {
	m := systemtest.Find(t)
	g := &GroupRes{State: "exists", Root: m.Root}
	g.SetKind("group")
	g.SetName("mgmtrootgrp")
	u := &UserRes{State: "exists", Group: str("mgmtrootgrp"), Root: m.Root}
	u.SetKind("user")
	u.SetName("mgmtroot")
	gh, uh := newHarness(t, g), newHarness(t, u)
	uh.watch()
	gh.converge()
	uh.converge()
	if out := m.Run(t, "id", "mgmtroot"); !strings.Contains(out, "(mgmtrootgrp)") {
		t.Fatalf("id in the container: %s", out)
	}
	if b, _ := os.ReadFile("/etc/passwd"); strings.Contains(string(b), "mgmtroot") {
		t.Fatal("the user was added to the host")
	}
	uh.drain()
	m.Run(t, "userdel", "mgmtroot")
	uh.waitEvent("userdel in the container")
	uh.converge()
	u.State, g.State = "absent", "absent"
	uh.converge()
	gh.converge()
}

func TestMachinePackageKitSignals(t *testing.T) {
	m := systemtest.Find(t)
	name := "mgmt-pk-signal"
	systemtest.Repo(t, m.Root, systemtest.Deb{Name: name, Version: "1.0"})
	r := newPkg(name, "installed", "packagekit")
	r.Bus = m.Bus()
	h := newHarness(t, r)
	h.watch() // PackageKit's signals only: the host's dpkg database is not the container's
	h.converge()
	if out := m.Run(t, "dpkg-query", "-W", "-f", "${Version}", name); out != "1.0" {
		t.Fatalf("version in the container: %q", out)
	}
	h.drain()
	m.Run(t, "pkcon", "-y", "-p", "remove", name)
	h.waitEvent("pkcon remove in the container")
	h.converge()
	r.State = "uninstalled"
	h.converge()
}
