package system

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

func TestCompareDebVersions(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"1.0", "1.0", 0},
		{"1.0", "1.1", -1},
		{"1.10", "1.9", 1},
		{"1.0~rc1", "1.0", -1},
		{"1.0", "1.0+b1", -1},
		{"1:0.9", "2.0", 1},
		{"2.36-9+deb12u4", "2.36-9+deb12u10", -1},
		{"1.0-1", "1.0-1~bpo1", 1},
		{"1.0a", "1.0", 1},
		{"1.0a", "1.0+", -1},
		{"001", "1", 0},
		{"1.0-0", "1.0", 0},
		{"99999999999999999999", "100000000000000000000", -1},
	} {
		if got := compareDebVersions(tc.a, tc.b); got != tc.want {
			t.Errorf("compare(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := compareDebVersions(tc.b, tc.a); got != -tc.want {
			t.Errorf("compare(%q, %q) = %d, want %d", tc.b, tc.a, got, -tc.want)
		}
	}
}

func FuzzCompareDebVersions(f *testing.F) {
	for _, s := range [][2]string{{"1.0", "1.0~rc1"}, {"1:2-3", "2-3"}, {"a~b", "a"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if x, y := compareDebVersions(a, b), compareDebVersions(b, a); x != -y {
			t.Fatalf("not antisymmetric: %q %q: %d %d", a, b, x, y)
		}
		if compareDebVersions(a, a) != 0 {
			t.Fatalf("%q != itself", a)
		}
	})
}

const aptPolicy = `mgmt-a:
  Installed: 1.0
  Candidate: 1.1
  Version table:
     1.1 500
        500 file:/srv/mgmt-test-repo ./ Packages
 *** 1.0 100
        100 /var/lib/dpkg/status
mgmt-b:
  Installed: (none)
  Candidate: 2:3.0-1
  Version table:
     2:3.0-1 500
        500 file:/srv/mgmt-test-repo ./ Packages
`

func TestParseAptPolicy(t *testing.T) {
	got := parseAptPolicy([]byte(aptPolicy))
	want := map[string]pkgState{
		"mgmt-a": {installed: "1.0", candidate: "1.1", versions: []string{"1.1", "1.0"}},
		"mgmt-b": {candidate: "2:3.0-1", versions: []string{"2:3.0-1"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func FuzzParseAptPolicy(f *testing.F) {
	f.Add([]byte(aptPolicy))
	f.Add([]byte("x:\n  Version table:\n *** \n"))
	f.Fuzz(func(t *testing.T, b []byte) { parseAptPolicy(b) })
}

func TestPKStatesDeduplicates(t *testing.T) {
	got := pkStates([]pkPackage{
		{info: 2, id: "mgmt-a;1.1;all;local"},
		{info: 2, id: "mgmt-a;1.1;all;local"}, // PackageKit repeats IDs
		{info: 1, id: "mgmt-a;1.0;all;installed"},
		{info: 2, id: "mgmt-b;1.0;all;local"},
	})
	a := got["mgmt-a"]
	if a.installed != "1.0" || a.candidate != "1.1" || !slices.Equal(a.versions, []string{"1.0", "1.1"}) ||
		a.installedID != "mgmt-a;1.0;all;installed" || a.ids["1.1"] != "mgmt-a;1.1;all;local" {
		t.Fatalf("mgmt-a: %+v", a)
	}
	if b := got["mgmt-b"]; b.installed != "" || b.candidate != "1.0" {
		t.Fatalf("mgmt-b: %+v", b)
	}
}

func TestDecidePkg(t *testing.T) {
	inst := pkgState{installed: "1.0", candidate: "1.1", versions: []string{"1.0", "1.1"}}
	none := pkgState{candidate: "1.1", versions: []string{"1.1"}}
	unknown := pkgState{}
	for _, tc := range []struct {
		state string
		st    pkgState
		want  pkgAction
	}{
		{"installed", inst, pkgAction{}},
		{"installed", none, pkgAction{install: true}},
		{"installed", unknown, pkgAction{install: true, refresh: true}},
		{"uninstalled", inst, pkgAction{remove: true}},
		{"uninstalled", none, pkgAction{}},
		{"newest", inst, pkgAction{install: true, version: "1.1"}},
		{"newest", pkgState{installed: "1.1", candidate: "1.1"}, pkgAction{}},
		{"1.0", inst, pkgAction{}},
		{"1.1", inst, pkgAction{install: true, version: "1.1"}},
		{"2.0", inst, pkgAction{install: true, version: "2.0", refresh: true}},
		{"0.9", pkgState{installed: "1.0", versions: []string{"0.9", "1.0"}}, pkgAction{install: true, version: "0.9", downgrade: true, from: "1.0"}},
	} {
		tc.want.name = "p"
		if got := decidePkg("p", tc.state, tc.st); got != tc.want {
			t.Errorf("%s with %+v: got %+v, want %+v", tc.state, tc.st, got, tc.want)
		}
	}
}

func TestPkgGrouping(t *testing.T) {
	a, b, c := newPkg("a", "installed", ""), newPkg("b", "newest", ""), newPkg("c", "installed", "")
	c.AllowUntrusted = true
	if err := a.GroupRes(b); err != nil {
		t.Fatal(err)
	}
	if err := a.GroupCmp(c); err == nil {
		t.Fatal("grouped resources with different options")
	}
	if err := newPkg("d", "installed", "").GroupCmp(b); err == nil {
		t.Fatal("grouped an already grouped resource")
	}
	if names := []string{a.members()[0].Name(), a.members()[1].Name()}; !slices.Equal(names, []string{"a", "b"}) {
		t.Fatalf("members %v", names)
	}
	if err := a.Cmp(newPkg("a", "installed", "")); err == nil {
		t.Fatal("a group compared equal to a lone resource")
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		r   engine.Res
		bad string
	}{
		{newPkg("ok-name+1.0", "installed", ""), ""},
		{newPkg("bad name", "installed", ""), "invalid package name"},
		{newPkg("x", "", ""), "state is empty"},
		{newPkg("x", "installed", "yum"), "backend"},
		{newSvc("sshd", "running", "enabled"), ""},
		{newSvc("sshd", "started", ""), "state: got \"started\""},
		{newSvc("a/b", "", ""), "invalid unit name"},
		{&UserRes{State: "exists", GID: u32(1), Group: str("g")}, "set one"},
		{&UserRes{State: "exists", Shell: str("sh")}, "absolute path"},
		{&UserRes{State: "exists", Comment: str("a:b")}, "invalid comment"},
		{&UserRes{State: "exists", Comment: str("Full Name, Room 1")}, ""},
		{&GroupRes{State: "gone"}, "state"},
		{&HostnameRes{Hostname: "bad_host"}, "invalid host name"},
		{&MountRes{State: "exists", Type: "tmpfs"}, "device and type"},
		{&MountRes{State: "absent"}, ""},
	} {
		r := tc.r
		if r.Name() == "" {
			r.SetName(map[bool]string{true: "/mnt/x", false: "x"}[r.Kind() == "" && isMount(r)])
		}
		err := r.Validate()
		switch {
		case tc.bad == "" && err != nil:
			t.Errorf("%T %s: %v", r, r.Name(), err)
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)):
			t.Errorf("%T %s: got %v, want %q", r, r.Name(), err, tc.bad)
		}
	}
}

func isMount(r engine.Res) bool { _, ok := r.(*MountRes); return ok }

func TestUserArgs(t *testing.T) {
	groups := map[string]groupEntry{
		"staff": {name: "staff", gid: 50},
		"users": {name: "users", gid: 100, members: []string{"bob"}},
		"audio": {name: "audio", gid: 29, members: []string{"bob", "eve"}},
	}
	bob := &passwdEntry{name: "bob", uid: 1001, gid: 50, comment: "Bob", home: "/home/bob", shell: "/bin/sh"}
	r := &UserRes{State: "exists", UID: u32(1001), Group: str("staff"), Groups: []string{"users", "audio"},
		HomeDir: str("/home/bob"), Shell: str("/bin/sh"), Comment: str("Bob")}
	r.SetName("bob")
	if args, err := r.userArgs(bob, groups); err != nil || len(args) != 0 {
		t.Fatalf("in sync: got %v, %v", args, err)
	}
	r.Groups, r.Shell, r.UID, r.AllowDuplicateUID, r.Comment = []string{"users"}, str("/bin/bash"), u32(7), true, str("Bob B")
	args, _ := r.userArgs(bob, groups)
	want := []string{"--uid", "7", "--non-unique", "--groups", "users", "--shell", "/bin/bash", "--comment", "Bob B"}
	if !slices.Equal(args, want) {
		t.Fatalf("got %v, want %v", args, want)
	}
	r.Group = str("nogroup")
	if _, err := r.userArgs(bob, groups); err == nil || !strings.Contains(err.Error(), "nogroup does not exist") {
		t.Fatalf("missing group: %v", err)
	}
}

func TestAccountFiles(t *testing.T) {
	root := t.TempDir()
	mustWrite(t, root+"/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n+nis::::::\nbob:x:1001:50:Bob,,,:/home/bob:/bin/sh\n")
	mustWrite(t, root+"/etc/group", "# comment\nstaff:x:50:\naudio:x:29:eve,bob\n")
	users, err := readPasswd(root)
	if err != nil || len(users) != 2 || users["bob"].uid != 1001 || users["bob"].shell != "/bin/sh" || users["bob"].comment != "Bob,,," {
		t.Fatalf("passwd: %+v, %v", users, err)
	}
	groups, err := readGroup(root)
	if err != nil || !slices.Equal(supplementaryGroups(groups, "bob"), []string{"audio"}) {
		t.Fatalf("group: %+v, %v", groups, err)
	}
	mustWrite(t, root+"/etc/passwd", "broken:x:1\n")
	if _, err := readPasswd(root); err == nil || !strings.Contains(err.Error(), "/etc/passwd:1:1: got 3 fields, want 7") {
		t.Fatalf("broken passwd: %v", err)
	}
}

func TestEditFstab(t *testing.T) {
	in := "# /etc/fstab\nUUID=1 / ext4 defaults 0 1\n/dev/sdb1 /mnt/my\\040disk ext4 ro 0 2\n"
	out, ch := editFstab(in, "/mnt/my disk", "/dev/sdc1 /mnt/my\\040disk ext4 rw 0 2")
	if !ch || out != "# /etc/fstab\nUUID=1 / ext4 defaults 0 1\n/dev/sdc1 /mnt/my\\040disk ext4 rw 0 2\n" {
		t.Fatalf("replace: %v %q", ch, out)
	}
	if again, ch := editFstab(out, "/mnt/my disk", "/dev/sdc1 /mnt/my\\040disk ext4 rw 0 2"); ch || again != out {
		t.Fatalf("idempotence: %v %q", ch, again)
	}
	out, ch = editFstab(out, "/mnt/my disk", "")
	if !ch || out != "# /etc/fstab\nUUID=1 / ext4 defaults 0 1\n" {
		t.Fatalf("remove: %v %q", ch, out)
	}
	if out, ch = editFstab("", "/x", "a /x tmpfs defaults 0 0"); !ch || out != "a /x tmpfs defaults 0 0\n" {
		t.Fatalf("add to empty: %q", out)
	}
}

func FuzzEditFstab(f *testing.F) {
	f.Add("UUID=1 / ext4 defaults 0 1\n", "/mnt/x", "tmpfs /mnt/x tmpfs defaults 0 0")
	f.Fuzz(func(t *testing.T, text, mp, line string) {
		if strings.ContainsAny(line, "\n") || mp == "" {
			return
		}
		line = "dev " + fstabEscape(mp) + " " + strings.Join(fstabFields(line), "_") + " 0 0"
		out, _ := editFstab(text, mp, line)
		if again, ch := editFstab(out, mp, line); ch || again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", text, out, again)
		}
	})
}

func TestMountinfoAndOptions(t *testing.T) {
	mi := "22 1 0:21 / / rw - ext4 /dev/vda rw\n" +
		"40 22 0:35 / /mnt/my\\040disk rw,relatime shared:1 - tmpfs mgmt-tmpfs rw,size=1024k\n"
	if m, ok := parseMountinfo(mi, "/mnt/my disk"); !ok || m != (liveMount{source: "mgmt-tmpfs", fstype: "tmpfs"}) {
		t.Fatalf("got %+v %v", m, ok)
	}
	if _, ok := parseMountinfo(mi, "/mnt"); ok {
		t.Fatal("found /mnt")
	}
	if s := optionString(map[string]string{"size": "1m", "ro": "", "mode": "0700"}); s != "mode=0700,ro,size=1m" {
		t.Fatalf("options %q", s)
	}
	if s := optionString(nil); s != "defaults" {
		t.Fatalf("options %q", s)
	}
	if s := fstabUnescape(fstabEscape(`a b\c`)); s != `a b\c` {
		t.Fatalf("escape round trip: %q", s)
	}
}

func TestMachineInfo(t *testing.T) {
	in := "# x\nCHASSIS=vm\nPRETTY_HOSTNAME=\"Old\"\n"
	out := setMachineInfo(in, "PRETTY_HOSTNAME", "New name")
	if out != "# x\nCHASSIS=vm\nPRETTY_HOSTNAME=\"New name\"\n" || machineInfo(out)["PRETTY_HOSTNAME"] != "New name" {
		t.Fatalf("got %q", out)
	}
	if out := setMachineInfo("", "PRETTY_HOSTNAME", "A"); out != "PRETTY_HOSTNAME=\"A\"\n" {
		t.Fatalf("got %q", out)
	}
}

func TestSvcUnitAndSignals(t *testing.T) {
	r := newSvc("sshd", "running", "")
	if r.Unit() != "sshd.service" || newSvc("x.socket", "", "").Unit() != "x.socket" {
		t.Fatalf("unit names: %s", r.Unit())
	}
	for _, tc := range []struct {
		sig  *dbus.Signal
		want bool
	}{
		{&dbus.Signal{Name: "org.freedesktop.DBus.Properties.PropertiesChanged"}, true},
		{&dbus.Signal{Name: "org.freedesktop.systemd1.Manager.Reloading", Body: []any{true}}, false},
		{&dbus.Signal{Name: "org.freedesktop.systemd1.Manager.Reloading", Body: []any{false}}, true},
		{&dbus.Signal{Name: "org.freedesktop.systemd1.Manager.UnitFilesChanged"}, true},
		{&dbus.Signal{Name: "org.freedesktop.systemd1.Manager.UnitNew", Body: []any{"sshd.service", dbus.ObjectPath("/u")}}, false},
		{&dbus.Signal{Name: "org.freedesktop.systemd1.Manager.JobRemoved", Body: []any{uint32(1), dbus.ObjectPath("/j"), "sshd.service", "done"}}, false},
	} {
		if got := r.relevant(tc.sig); got != tc.want {
			t.Errorf("%s %v: got %v", tc.sig.Name, tc.sig.Body, got)
		}
	}
}

func TestAutoEdgesAndSchema(t *testing.T) {
	r := newSvc("nginx", "running", "")
	ae, _ := r.AutoEdges()
	files := ae.Next()
	if files[0].GetKind() != "file" || files[0].GetName() != "/etc/systemd/system/nginx.service" {
		t.Fatalf("file uid %s %s", files[0].GetKind(), files[0].GetName())
	}
	if !ae.Test(make([]bool, len(files))) {
		t.Fatal("stopped after the file batch")
	}
	pk := ae.Next()
	owned := newPkgFileUID("/lib/systemd/system/nginx.service") // as a pkg resource lists it
	match := func(u engine.ResUID) bool {
		return u.GetKind() == owned.GetKind() && u.GetName() == owned.GetName() && u.IFF(owned)
	}
	if !slices.ContainsFunc(pk, match) || ae.Test(nil) || ae.Next() != nil {
		t.Fatal("the pkg batch does not match the package shipping the unit file")
	}
	u := &UserRes{State: "absent", Group: str("staff"), Groups: []string{"audio"}}
	ue, _ := u.AutoEdges()
	if b := ue.Next(); len(b) != 2 || !b[0].IsReversed() || b[1].GetName() != "audio" {
		t.Fatalf("user edges %v", b)
	}
	for kind, params := range map[string][]string{
		"pkg":      {"state", "allowuntrusted", "allownonfree", "allowunsupported"},
		"svc":      {"state", "startup", "session"},
		"user":     {"uid", "gid", "group", "groups", "homedir", "shell", "state", "allowduplicateuid"},
		"group":    {"gid", "state"},
		"hostname": {"hostname", "pretty_hostname", "static_hostname", "transient_hostname"},
		"mount":    {"device", "type", "options", "freq", "passno", "state"},
	} {
		s, ok := graph.LookupKind(kind)
		if !ok {
			t.Fatalf("kind %s not registered", kind)
		}
		for _, p := range params {
			if _, ok := s.Params[p]; !ok {
				t.Errorf("%s has no parameter %s", kind, p)
			}
		}
		if _, ok := s.Params["bus"]; ok {
			t.Errorf("%s exposes its Go-only Bus field", kind)
		}
	}
}

func mustWrite(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
