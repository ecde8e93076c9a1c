package system

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	_ "github.com/mgmtpipe/mgmt/pkg/resources/all"
	"github.com/mgmtpipe/mgmt/pkg/resources/system/systemtest"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// res builds a resource of a graph document.
func res(kind, name string, params map[string]any) *graph.Resource {
	return &graph.Resource{Kind: kind, Name: name, Params: params}
}

// doc encodes one graph document.
func doc(t *testing.T, seq int64, rs []*graph.Resource, edges ...*graph.Edge) string {
	t.Helper()
	b, err := json.Marshal(&graph.Document{Mgmt: graph.Version, Graph: t.Name(), Seq: seq, Resources: rs, Edges: edges})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// needKind checks that a kind and its parameters are registered: a test
// of a kind that is missing fails in CI (CI=true) and is skipped
// elsewhere.
func needKind(t *testing.T, kind string, params ...string) {
	t.Helper()
	s, ok := graph.LookupKind(kind)
	testutil.Need(t, ok, "resource kind "+kind)
	for _, p := range params {
		_, ok := s.Params[p]
		testutil.Need(t, ok, "parameter "+p+" of resource kind "+kind)
	}
}

func inMachine(m *systemtest.Machine, args ...string) string {
	out, _ := m.Command(args...).CombinedOutput()
	return strings.TrimSpace(string(out))
}

func writeUnit(t *testing.T, m *systemtest.Machine, name string) {
	t.Helper()
	unit := "[Unit]\nDescription=mgmt e2e sleeper\n[Service]\nExecStart=/bin/sleep infinity\n" +
		"[Install]\nWantedBy=multi-user.target\n"
	if err := os.WriteFile(m.Path("/etc/systemd/system/"+name+".service"), []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		m.Command("systemctl", "disable", "--now", name).Run()
		os.Remove(m.Path("/etc/systemd/system/" + name + ".service"))
		m.Command("systemctl", "daemon-reload").Run()
	})
}

func TestApplySvc(t *testing.T) {
	m := systemtest.Find(t)
	writeUnit(t, m, "mgmt-e2e-svc")
	svc := func(state, startup string) []*graph.Resource {
		return []*graph.Resource{res("svc", "mgmt-e2e-svc", map[string]any{"state": state, "startup": startup})}
	}
	p := startApply(t, m, nil, doc(t, 1, svc("running", "enabled")))
	p.eventually(30*time.Second, func() string {
		a, e := inMachine(m, "systemctl", "is-active", "mgmt-e2e-svc"), inMachine(m, "systemctl", "is-enabled", "mgmt-e2e-svc")
		if a != "active" || e != "enabled" {
			return fmt.Sprintf("unit is %s/%s, want active/enabled", a, e)
		}
		return ""
	})

	// a manual stop is reverted, with no new input, within a second. The
	// engine may see the unit deactivating and queue its start before the
	// stop job ends: systemd then cancels the stop job and systemctl exits
	// 1 with "canceled", which is the repair winning the race.
	if out, err := m.Command("systemctl", "stop", "mgmt-e2e-svc").CombinedOutput(); err != nil && !strings.Contains(string(out), "canceled") {
		t.Fatalf("in the machine: systemctl stop mgmt-e2e-svc: %v\n%s", err, out)
	}
	start := time.Now()
	p.eventually(10*time.Second, func() string {
		if a := inMachine(m, "systemctl", "is-active", "mgmt-e2e-svc"); a != "active" {
			return "unit is " + a + " after systemctl stop"
		}
		return ""
	})
	took := time.Since(start)
	t.Logf("systemctl stop reverted in %v", took)
	if took > time.Second {
		t.Errorf("systemctl stop reverted in %v, want under a second", took)
	}

	p.send(doc(t, 2, svc("stopped", "disabled")))
	p.eventually(30*time.Second, func() string {
		a, e := inMachine(m, "systemctl", "is-active", "mgmt-e2e-svc"), inMachine(m, "systemctl", "is-enabled", "mgmt-e2e-svc")
		if a == "active" || e != "disabled" {
			return fmt.Sprintf("unit is %s/%s, want inactive/disabled", a, e)
		}
		return ""
	})
}

func TestApplySvcRefresh(t *testing.T) {
	m := systemtest.Find(t)
	needKind(t, "file", "path", "content")
	writeUnit(t, m, "mgmt-e2e-refresh")
	g := func(seq int64, content string) string {
		rs := []*graph.Resource{
			res("file", "/etc/mgmt-e2e-refresh.conf", map[string]any{"path": "/etc/mgmt-e2e-refresh.conf",
				"content": content, "state": "exists"}),
			res("svc", "mgmt-e2e-refresh", map[string]any{"state": "running"}),
		}
		e := &graph.Edge{From: graph.Ref{Kind: "file", Name: "/etc/mgmt-e2e-refresh.conf"},
			To: graph.Ref{Kind: "svc", Name: "mgmt-e2e-refresh"}, Notify: true}
		return doc(t, seq, rs, e)
	}
	mainPID := func() string { return inMachine(m, "systemctl", "show", "-P", "MainPID", "mgmt-e2e-refresh") }
	p := startApply(t, m, nil, g(1, "one\n"))
	var pid string
	p.eventually(30*time.Second, func() string {
		pid = mainPID()
		b, _ := os.ReadFile(m.Path("/etc/mgmt-e2e-refresh.conf"))
		if pid == "0" || pid == "" || string(b) != "one\n" {
			return fmt.Sprintf("MainPID %q, file %q", pid, b)
		}
		return ""
	})
	p.send(g(2, "two\n"))
	p.eventually(30*time.Second, func() string {
		b, _ := os.ReadFile(m.Path("/etc/mgmt-e2e-refresh.conf"))
		if now := mainPID(); string(b) != "two\n" || now == pid || now == "0" {
			return fmt.Sprintf("file %q, MainPID %s (was %s): no restart", b, now, pid)
		}
		return ""
	})
}

// applyConverged runs mgmt-apply until it has converged for a second (at
// most two minutes, so that a resource that never converges cannot hang
// the suite).
func applyConverged(t *testing.T, m *systemtest.Machine, env []string, docs ...string) string {
	t.Helper()
	cmd := m.Command(append(append([]string{"env"}, env...), mgmtApply(t, m), "--converged-timeout", "1", "--max-runtime", "120")...)
	cmd.Stdin = strings.NewReader(strings.Join(docs, "\n") + "\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mgmt-apply: %v\n%s", err, out)
	}
	return string(out)
}

func dpkgVersion(m *systemtest.Machine, name string) string {
	out := inMachine(m, "dpkg-query", "-W", "-f", "${db:Status-Abbrev}${Version}", name)
	if v, ok := strings.CutPrefix(out, "ii "); ok {
		return v
	}
	return ""
}

func testApplyPkg(t *testing.T, backend string) {
	m := systemtest.Find(t)
	env := []string{"MGMT_PKG_BACKEND=" + backend}
	// fresh names on every run: the machine may have run the test before
	id := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	n := func(s string) string { return "mgmt-e2e-" + backend + "-" + s + "-" + id }
	systemtest.Repo(t, m.Root, systemtest.Deb{Name: n("a"), Version: "1.0"},
		systemtest.Deb{Name: n("b"), Version: "1.0"}, systemtest.Deb{Name: n("c"), Version: "1.0"})
	pkg := func(seq int64, states ...string) string {
		var rs []*graph.Resource
		for i, s := range states {
			// local packages are unsupported for PackageKit: allow them
			rs = append(rs, res("pkg", n(string(rune('a'+i))), map[string]any{"state": s, "allowunsupported": true}))
		}
		return doc(t, seq, rs)
	}
	applyConverged(t, m, env, pkg(1, "installed"))
	if v := dpkgVersion(m, n("a")); v != "1.0" {
		t.Fatalf("after install: version %q, want 1.0", v)
	}
	applyConverged(t, m, env, pkg(2, "uninstalled"))
	if v := dpkgVersion(m, n("a")); v != "" {
		t.Fatalf("after remove: version %q, want none", v)
	}
	applyConverged(t, m, env, pkg(3, "1.0"))
	systemtest.Repo(t, m.Root, systemtest.Deb{Name: n("a"), Version: "1.1"})
	applyConverged(t, m, env, pkg(4, "1.1"))
	if v := dpkgVersion(m, n("a")); v != "1.1" {
		t.Fatalf("after upgrade: version %q, want 1.1", v)
	}

	// three packages in one graph: one transaction
	out := applyConverged(t, m, env, pkg(5, "uninstalled", "uninstalled", "uninstalled"))
	out = applyConverged(t, m, env, pkg(6, "newest", "installed", "installed"))
	if !regexp.MustCompile(`one \w+ transaction for 3 package`).MatchString(out) {
		t.Errorf("the three packages were not installed in one transaction:\n%s", out)
	}
	for _, x := range []string{"a", "b", "c"} {
		if dpkgVersion(m, n(x)) == "" {
			t.Errorf("%s not installed", n(x))
		}
	}
	applyConverged(t, m, env, pkg(7, "uninstalled", "uninstalled", "uninstalled"))
}

func TestApplyPkgApt(t *testing.T)        { testApplyPkg(t, "apt") }
func TestApplyPkgPackageKit(t *testing.T) { testApplyPkg(t, "packagekit") }

func TestApplyUserGroup(t *testing.T) {
	m := systemtest.Find(t)
	g := func(seq int64, state, shell string, gid int) string {
		return doc(t, seq, []*graph.Resource{
			res("group", "mgmte2egrp", map[string]any{"state": state, "gid": gid}),
			res("user", "mgmte2e", map[string]any{"state": state, "uid": 4343, "group": "mgmte2egrp",
				"groups": []string{"users"}, "shell": shell}),
		})
	}
	p := startApply(t, m, nil, g(1, "exists", "/bin/sh", 4342))
	want := func(s string) func() string {
		return func() string {
			if id := inMachine(m, "sh", "-c", "id mgmte2e; getent passwd mgmte2e"); !strings.Contains(id, s) {
				return fmt.Sprintf("got %q, want %q", id, s)
			}
			return ""
		}
	}
	p.eventually(30*time.Second, want("uid=4343(mgmte2e) gid=4342(mgmte2egrp) groups=4342(mgmte2egrp),100(users)"))
	p.send(g(2, "exists", "/bin/bash", 4344))
	p.eventually(30*time.Second, want(":4343:4344::/home/mgmte2e:/bin/bash"))

	// a manual userdel is reverted with no new input
	m.Run(t, "userdel", "mgmte2e")
	p.eventually(10*time.Second, want("uid=4343(mgmte2e)"))

	p.send(g(3, "absent", "/bin/bash", 4344))
	p.eventually(30*time.Second, func() string {
		if out, err := m.Command("getent", "passwd", "mgmte2e").Output(); err == nil {
			return "user still exists: " + string(out)
		}
		if out, err := m.Command("getent", "group", "mgmte2egrp").Output(); err == nil {
			return "group still exists: " + string(out)
		}
		return ""
	})
}

func TestApplyHostname(t *testing.T) {
	m := systemtest.Find(t)
	old := inMachine(m, "hostname")
	t.Cleanup(func() { m.Command("hostnamectl", "set-hostname", old).Run() })
	host, _ := os.Hostname()
	applyConverged(t, m, nil, doc(t, 1, []*graph.Resource{res("hostname", "h", map[string]any{"hostname": "mgmt-e2e-renamed"})}))
	if h := inMachine(m, "hostname"); h != "mgmt-e2e-renamed" {
		t.Fatalf("hostname in the container: %q", h)
	}
	if b, _ := os.ReadFile(m.Path("/etc/hostname")); strings.TrimSpace(string(b)) != "mgmt-e2e-renamed" {
		t.Fatalf("/etc/hostname in the container: %q", b)
	}
	if h, _ := os.Hostname(); h != host {
		t.Fatalf("the host's name changed: %q -> %q", host, h)
	}
}

func TestApplyMsgJournal(t *testing.T) {
	m := systemtest.Find(t)
	needKind(t, "msg", "body", "journal")
	tag := fmt.Sprintf("mgmt-e2e-%d", time.Now().UnixNano())
	applyConverged(t, m, nil, doc(t, 1, []*graph.Resource{res("msg", "hello", map[string]any{
		"body": "hello from " + tag, "journal": true, "priority": "Notice"})}))
	systemtest.Eventually(t, 10*time.Second, func() string {
		out, _ := m.Command("journalctl", "--no-pager", "-o", "cat", "--grep", tag).CombinedOutput()
		if !strings.Contains(string(out), "hello from "+tag) {
			return "message not in the container's journal: " + string(out)
		}
		return ""
	})
}

// TestApplyPkgAutoEdges checks the automatic edges from a package to the
// unit it ships (svc) and to a file it ships, before the package is
// installed (its .deb is read from the local repository), and that the
// graph then applies in that order.
func TestApplyPkgAutoEdges(t *testing.T) {
	m := systemtest.Find(t)
	needKind(t, "file", "path", "content")
	id := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	name := "mgmt-e2e-unitpkg-" + id
	unit := "[Unit]\nDescription=shipped by " + name + "\n[Service]\nExecStart=/bin/sleep infinity\n"
	systemtest.Repo(t, m.Root, systemtest.Deb{Name: name, Version: "1.0", Files: map[string]string{
		"/lib/systemd/system/" + name + ".service": unit,
		"/etc/" + name + ".conf":                   "default\n",
	}})
	m.Run(t, "apt-get", "update", "-q")
	t.Cleanup(func() {
		m.Command("systemctl", "stop", name).Run()
		m.Command("apt-get", "remove", "-y", "-q", name).Run()
	})
	d := doc(t, 1, []*graph.Resource{
		res("pkg", name, map[string]any{"state": "installed", "allowunsupported": true}),
		res("svc", name, map[string]any{"state": "running"}),
		res("file", "/etc/"+name+".conf", map[string]any{"path": "/etc/" + name + ".conf", "content": "managed\n", "state": "exists"}),
	})
	cmd := m.Command(mgmtApply(t, m), "--print-graph")
	cmd.Stdin = strings.NewReader(d + "\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mgmt-apply --print-graph: %v\n%s", err, out)
	}
	var g graph.Document
	if err := json.Unmarshal([]byte(strings.SplitN(strings.TrimSpace(string(out)), "\n", 2)[0]), &g); err != nil {
		t.Fatalf("decoding the printed graph: %v\n%s", err, out)
	}
	has := func(fromKind, toKind, toName string) bool {
		for _, e := range g.Edges {
			if e.From == (graph.Ref{Kind: fromKind, Name: name}) && e.To == (graph.Ref{Kind: toKind, Name: toName}) {
				return true
			}
		}
		return false
	}
	if !has("pkg", "svc", name) || !has("pkg", "file", "/etc/"+name+".conf") {
		t.Fatalf("missing automatic edges pkg -> svc and pkg -> file in:\n%s", out)
	}
	applyConverged(t, m, nil, d)
	if a := inMachine(m, "systemctl", "is-active", name); a != "active" {
		t.Fatalf("%s is %s after apply", name, a)
	}
	if b, _ := os.ReadFile(m.Path("/etc/" + name + ".conf")); string(b) != "managed\n" {
		t.Fatalf("conf file: %q", b)
	}
}

// TestApplyNoop checks that --noop reports but changes nothing.
func TestApplyNoop(t *testing.T) {
	m := systemtest.Find(t)
	writeUnit(t, m, "mgmt-e2e-noop")
	id := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	name := "mgmt-e2e-noop-" + id
	systemtest.Repo(t, m.Root, systemtest.Deb{Name: name, Version: "1.0"})
	d := doc(t, 1, []*graph.Resource{
		res("svc", "mgmt-e2e-noop", map[string]any{"state": "running"}),
		res("pkg", name, map[string]any{"state": "installed"}),
		res("user", "mgmtnoop", map[string]any{"state": "exists"}),
	})
	cmd := m.Command(mgmtApply(t, m), "--noop", "--converged-timeout", "1", "--max-runtime", "120")
	cmd.Stdin = strings.NewReader(d + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mgmt-apply --noop: %v\n%s", err, out)
	}
	if a := inMachine(m, "systemctl", "is-active", "mgmt-e2e-noop"); a == "active" {
		t.Error("--noop started the unit")
	}
	if v := dpkgVersion(m, name); v != "" {
		t.Errorf("--noop installed %s", name)
	}
	if _, err := m.Command("getent", "passwd", "mgmtnoop").Output(); err == nil {
		t.Error("--noop added the user")
	}
}

// TestApplyMount mounts a tmpfs with its /etc/fstab entry in the
// container, then removes both.
func TestApplyMount(t *testing.T) {
	m := systemtest.Find(t)
	mount := func(seq int64, state string) string {
		return doc(t, seq, []*graph.Resource{res("mount", "/mnt/mgmt-e2e", map[string]any{
			"state": state, "device": "mgmt-e2e-tmpfs", "type": "tmpfs",
			"options": map[string]string{"size": "2m"}, "freq": 0, "passno": 0})})
	}
	t.Cleanup(func() { m.Command("umount", "/mnt/mgmt-e2e").Run() })
	applyConverged(t, m, nil, mount(1, "exists"))
	if out := inMachine(m, "findmnt", "-n", "-o", "FSTYPE,SOURCE", "/mnt/mgmt-e2e"); strings.Join(strings.Fields(out), " ") != "tmpfs mgmt-e2e-tmpfs" {
		t.Fatalf("findmnt in the container: %q", out)
	}
	if b, _ := os.ReadFile(m.Path("/etc/fstab")); !strings.Contains(string(b), "mgmt-e2e-tmpfs /mnt/mgmt-e2e tmpfs size=2m 0 0") {
		t.Fatalf("fstab in the container:\n%s", b)
	}
	applyConverged(t, m, nil, mount(2, "absent"))
	if out := inMachine(m, "findmnt", "-n", "/mnt/mgmt-e2e"); out != "" {
		t.Fatalf("still mounted: %q", out)
	}
	if b, _ := os.ReadFile(m.Path("/etc/fstab")); strings.Contains(string(b), "mgmt-e2e") {
		t.Fatalf("fstab still has the entry:\n%s", b)
	}
}
