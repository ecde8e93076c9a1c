package resources_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// owner returns the uid and permission bits of p.
func owner(p string) (int, os.FileMode) {
	fi, err := os.Stat(p)
	if err != nil {
		return -1, 0
	}
	return int(fi.Sys().(*syscall.Stat_t).Uid), fi.Mode().Perm()
}

// replace replaces the file p by one holding s, with mode perm, as an
// editor saving atomically does: a program that writes a file in place
// while a resource edits it can lose its write (see the line kind).
func replace(t *testing.T, p, s string, perm os.FileMode) {
	t.Helper()
	tmp := p + ".new"
	if err := os.WriteFile(tmp, []byte(s), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}

// stopApply ends a running mgmt-apply and checks its exit code.
func stopApply(t *testing.T, p *testutil.Proc) {
	t.Helper()
	p.CloseStdin()
	p.Terminate()
}

// A drift is an edit made by hand to a managed file and what the file
// must hold once it is repaired.
type drift struct {
	what, write, want string
}

// repairs makes each drift to the file f (mode perm, owned by uid unless
// it is -1) in turn and waits for the running mgmt-apply p to repair it.
func repairs(t *testing.T, p *testutil.Proc, f string, perm os.FileMode, uid int, drifts []drift) {
	t.Helper()
	for _, d := range drifts {
		replace(t, f, d.write, perm)
		if uid >= 0 {
			os.Chown(f, uid, uid)
		}
		p.Until("repair after "+d.what, func() bool { return read(f) == d.want })
	}
}

// TestLineDrift keeps a line present and another absent in a file of
// another user, and repairs every edit made by hand, keeping the file's
// owner, mode and final newline state.
func TestLineDrift(t *testing.T) {
	testutil.NeedRoot(t)
	dir := t.TempDir()
	f := filepath.Join(dir, "app.conf")
	os.WriteFile(f, []byte("# app\nbad = 1\nport = 80"), 0o640) // no final newline
	os.Chown(f, 65534, 65534)
	rs := []res{
		{Kind: "line", Name: "want", Params: map[string]any{"file": f, "state": "exists", "content": "managed = yes\n"}},
		{Kind: "line", Name: "unwanted", Params: map[string]any{"file": f, "state": "absent", "content": "bad = 1"}},
	}
	p := start(t, "--tmp-prefix")
	p.Write(doc(t, 1, rs, nil))
	p.Until("first repair", func() bool { return read(f) == "# app\nport = 80\nmanaged = yes\n" })
	if uid, mode := owner(f); uid != 65534 || mode != 0o640 {
		t.Fatalf("owner %d mode %v after the edit, want 65534 and 0640", uid, mode)
	}
	repairs(t, p, f, 0o640, 65534, []drift{
		{"line removed", "# app\nport = 80\n", "# app\nport = 80\nmanaged = yes\n"},
		{"unwanted line added", "# app\nport = 80\nmanaged = yes\nbad = 1\n", "# app\nport = 80\nmanaged = yes\n"},
		{"unwanted line last, no newline", "managed = yes\nbad = 1", "managed = yes\n"},
		{"emptied", "", "managed = yes\n"},
	})
	os.Remove(f)
	p.Until("file recreated", func() bool { return read(f) == "managed = yes\n" })
	if _, mode := owner(f); mode != 0o600 {
		t.Fatalf("a recreated file has mode %v, want 0600", mode)
	}
	stopApply(t, p)
}

// TestLinePatternDrift keeps a setting in place by match and after, and
// removes lines by match, repairing every edit made by hand.
func TestLinePatternDrift(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "sshd_config")
	os.WriteFile(f, []byte("# sshd\nPermitRootLogin yes\nX11Forwarding yes"), 0o644) // no final newline
	rs := []res{
		{Kind: "line", Name: "root", Params: map[string]any{"file": f, "state": "exists", "content": "PermitRootLogin no",
			"match": `^#?\s*PermitRootLogin\b`, "after": `^# sshd$`}},
		{Kind: "line", Name: "x11", Params: map[string]any{"file": f, "state": "absent", "match": `^X11`, "match_for_absence": true, "multiple": true}},
	}
	p := start(t, "--tmp-prefix")
	p.Write(doc(t, 1, rs, nil))
	p.Until("first repair", func() bool { return read(f) == "# sshd\nPermitRootLogin no\n" })
	repairs(t, p, f, 0o644, -1, []drift{
		{"setting changed", "# sshd\nPermitRootLogin yes\n", "# sshd\nPermitRootLogin no\n"},
		{"setting commented out, no newline", "# sshd\n#PermitRootLogin no", "# sshd\nPermitRootLogin no\n"},
		{"setting removed", "a\n# sshd\nb\n", "a\n# sshd\nPermitRootLogin no\nb\n"},
		{"lines to remove added", "X11Forwarding no\n# sshd\nPermitRootLogin no\nX11UseLocalhost no", "# sshd\nPermitRootLogin no\n"},
	})
	stopApply(t, p)
}

// TestSSHAuthorizedKeyDrift manages the authorized_keys of a throwaway
// user: the .ssh directory and the file are created for the user, and a
// key removed, re-commented or replaced by hand is put back.
func TestSSHAuthorizedKeyDrift(t *testing.T) {
	name, home, uid := testutil.AddUser(t)
	typ, blob := testutil.SSHKey(t)
	want := typ + " " + blob + " deploy"
	rs := []res{{Kind: "ssh:authorized_key", Name: "deploy", Params: map[string]any{
		"state": "exists", "user": name, "type": typ, "key": blob, "comment": "deploy"}}}
	f := filepath.Join(home, ".ssh", "authorized_keys")
	p := start(t, "--tmp-prefix")
	p.Write(doc(t, 1, rs, nil))
	p.Until("key written", func() bool { return read(f) == want+"\n" })
	checkOwned(t, uid, map[string]os.FileMode{filepath.Dir(f): 0o700, f: 0o600})
	for _, drift := range []struct{ what, write, want string }{
		{"other comment", "# keys\n" + typ + " " + blob + " someone-else\n", "# keys\n" + want + "\n"},
		{"key removed", "# keys\n", "# keys\n" + want + "\n"},
		{"options added", `command="/bin/sh" ` + want + "\n# keys\n", want + "\n# keys\n"},
	} {
		replace(t, f, drift.write, 0o600)
		p.Until("repair after "+drift.what, func() bool { return read(f) == drift.want })
	}
	os.RemoveAll(filepath.Dir(f))
	p.Until(".ssh recreated", func() bool { return read(f) == want+"\n" })
	stopApply(t, p)
}

// TestJSONEditDrift keeps two values of a JSON file and repairs edits by
// hand.
func TestJSONEditDrift(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "settings.json")
	os.WriteFile(f, []byte(`{"theme": "dark", "editor": {"tabs": 8}}`), 0o644)
	rs := []res{{Kind: "json:edit", Name: f, Params: map[string]any{"edits": []string{`.editor.tabs = 4`, `del(.telemetry)`}}}}
	p := start(t, "--tmp-prefix")
	p.Write(doc(t, 1, rs, nil))
	repaired := "{\n\t\"editor\": {\n\t\t\"tabs\": 4\n\t},\n\t\"theme\": \"dark\"\n}\n"
	p.Until("first edit", func() bool { return read(f) == repaired })
	replace(t, f, `{"theme": "light", "editor": {"tabs": 2}, "telemetry": true}`, 0o644)
	p.Until("repair", func() bool { return strings.Contains(read(f), `"tabs": 4`) && !strings.Contains(read(f), "telemetry") })
	if !strings.Contains(read(f), `"theme": "light"`) {
		t.Fatalf("an unmanaged value was changed: %s", read(f))
	}
	stopApply(t, p)
}

// TestSysctlDriftInNetns sets net.ipv4.ip_forward inside a network
// namespace of mgmt-apply's own (never the host's), with its conf file in
// a temporary directory, and repairs a value set by hand in that
// namespace.
func TestSysctlDriftInNetns(t *testing.T) {
	testutil.NeedRoot(t)
	for tool, pkg := range map[string]string{"nsenter": "util-linux", "sysctl": "procps"} {
		_, err := exec.LookPath(tool)
		testutil.Need(t, err == nil, tool+" (package "+pkg+")")
	}
	hostBefore := read("/proc/sys/net/ipv4/ip_forward")
	conf := filepath.Join(t.TempDir(), "99-forward.conf")
	rs := []res{{Kind: "sysctl", Name: "net.ipv4.ip_forward", Params: map[string]any{"value": "1", "path": conf}}}
	p := testutil.StartWith(t, func(c *exec.Cmd) {
		c.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	}, "mgmt-apply", "--tmp-prefix")
	inNetns := func(args ...string) string {
		out, err := exec.Command("nsenter", append([]string{"--net=/proc/" + strconv.Itoa(p.Pid()) + "/ns/net"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("nsenter %v: %v: %s", args, err, out)
		}
		return string(out)
	}
	p.Write(doc(t, 1, rs, nil))
	forward := func() string { return inNetns("cat", "/proc/sys/net/ipv4/ip_forward") }
	p.Until("forwarding on", func() bool { return forward() == "1\n" && read(conf) == "net.ipv4.ip_forward = 1\n" })
	inNetns("sh", "-c", "echo 0 > /proc/sys/net/ipv4/ip_forward")
	p.Until("live value repaired", func() bool { return forward() == "1\n" })
	inNetns("sysctl", "-q", "-w", "net.ipv4.ip_forward=0")
	p.Until("repaired after sysctl -w", func() bool { return forward() == "1\n" })
	replace(t, conf, "net.ipv4.ip_forward = 0\n", 0o644)
	p.Until("conf file repaired", func() bool { return read(conf) == "net.ipv4.ip_forward = 1\n" })
	stopApply(t, p)
	if got := read("/proc/sys/net/ipv4/ip_forward"); got != hostBefore {
		t.Fatalf("the host's ip_forward changed from %q to %q", hostBefore, got)
	}
}

// TestJSONEditWorldDrift edits a JSON object in a world key of a real
// cluster member and repairs a value another client sets there.
func TestJSONEditWorldDrift(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd member")
	}
	c, client := testutil.StartMember(t)
	get := func() string {
		return testutil.Run(t, "", "mgmt-cluster", "--seeds", client, "get", "strings/app/cfg").Stdout
	}
	rs := []res{{Kind: "json:edit", Name: "cfg", Params: map[string]any{"store": "etcd:///app/cfg", "edits": []string{`.replicas = 3`}}}}
	p := start(t, "--tmp-prefix", "--seeds", client)
	p.Write(doc(t, 1, rs, nil))
	want := "{\n\t\"replicas\": 3\n}\n"
	p.Until("key set", func() bool { return get() == want+"\n" || get() == want })
	if r := testutil.Run(t, `{"replicas": 1, "image": "v2"}`, "mgmt-cluster", "--seeds", client, "put", "strings/app/cfg", "-"); r.Code != 0 {
		t.Fatalf("put: %s", r.Stderr)
	}
	p.Until("key repaired", func() bool {
		return strings.Contains(get(), `"replicas": 3`) && strings.Contains(get(), `"image": "v2"`)
	})
	stopApply(t, p)
	c.Signal(syscall.SIGTERM)
	c.Wait()
}
