package system

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
)

func TestGsettingsValues(t *testing.T) {
	for _, c := range []struct {
		typ  string
		v    any
		text string
	}{
		{"bool", true, "true"},
		{"int", json.Number("-7"), "-7"},
		{"str", "it's a \\ \"x\"\n", `'it\'s a \\ "x"\n'`},
		{"custom", "['a', 'b']", "['a', 'b']"},
	} {
		r := &GsettingsRes{Type: c.typ, Value: c.v}
		if got, err := r.text(); err != nil || got != c.text {
			t.Errorf("%s %#v: got %q, %v, want %q", c.typ, c.v, got, err, c.text)
		}
	}
	for _, printed := range []string{`'it\'s'`, `"it's"`, `'\u0069t\'s'`} {
		if s, err := parseGVariantString(printed); err != nil || s != "it's" {
			t.Errorf("%s: got %q, %v", printed, s, err)
		}
	}
	for _, r := range []*GsettingsRes{
		{Type: "bool", Value: "yes"},
		{Type: "int", Value: json.Number("1.5")},
		{Type: "float", Value: 1.5},
		{Type: "custom", Value: ""},
	} {
		r.SetKind("gsettings")
		r.SetName("org.example key")
		if err := r.Validate(); err == nil {
			t.Errorf("%+v: no error", r)
		}
	}
	bad := &GsettingsRes{Type: "bool", Value: true}
	bad.SetKind("gsettings")
	bad.SetName("org.example  key")
	if err := bad.Validate(); err == nil {
		t.Error("a name with two spaces: no error")
	}
}

const testSchema = `<schemalist>
  <schema id="org.mgmt.test" path="/org/mgmt/test/">
    <key name="flag" type="b"><default>false</default></key>
    <key name="label" type="s"><default>'none'</default></key>
    <key name="count" type="i"><default>1</default></key>
    <key name="tags" type="as"><default>[]</default></key>
  </schema>
</schemalist>
`

// gsUser is a throwaway user with a home directory, its session bus at
// /run/user/UID/bus (a dbus-daemon running as the user, which starts
// dconf-service on demand) and a schema directory holding org.mgmt.test.
type gsUser struct {
	name, home string
	uid, gid   int
}

func newGsUser(t *testing.T) *gsUser {
	t.Helper()
	if os.Geteuid() != 0 {
		testneed.Missing(t, "gsettings tests add a user: they need root")
	}
	for _, c := range [][2]string{{"gsettings", "libglib2.0-bin"}, {"glib-compile-schemas", "libglib2.0-bin"},
		{"dbus-daemon", "dbus-daemon"}, {"useradd", "passwd"}} {
		testneed.Command(t, c[0], c[1])
	}
	testneed.Path(t, "/usr/share/dbus-1/services/ca.desrt.dconf.service", "dconf-service")
	u := &gsUser{name: fmt.Sprintf("mgmtgs%d", os.Getpid()%1000000)}
	base, err := os.MkdirTemp("", "mgmt-gsettings-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	u.home = filepath.Join(base, "home")
	run(t, "useradd", "-M", "-d", u.home, "-s", "/usr/sbin/nologin", u.name)
	t.Cleanup(func() { exec.Command("userdel", u.name).Run() })
	pu, err := user.Lookup(u.name)
	if err != nil {
		t.Fatal(err)
	}
	u.uid, _ = strconv.Atoi(pu.Uid)
	u.gid, _ = strconv.Atoi(pu.Gid)
	rundir := "/run/user/" + pu.Uid
	for _, d := range []string{u.home, rundir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, u.uid, u.gid); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.RemoveAll(rundir) })

	schemas := filepath.Join(base, "schemas")
	if err := os.Mkdir(schemas, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(schemas, "org.mgmt.test.gschema.xml"), []byte(testSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, "glib-compile-schemas", schemas)
	t.Setenv("GSETTINGS_SCHEMA_DIR", schemas)
	u.startBus(t, rundir)
	return u
}

func run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// asUser returns a command run as the user in the user's session.
func (u *gsUser) asUser(args ...string) *exec.Cmd {
	cmd := exec.Command(args[0], args[1:]...)
	run := fmt.Sprintf("/run/user/%d", u.uid)
	cmd.Env = []string{"HOME=" + u.home, "USER=" + u.name, "PATH=" + os.Getenv("PATH"), "XDG_RUNTIME_DIR=" + run,
		"DBUS_SESSION_BUS_ADDRESS=unix:path=" + run + "/bus", "GSETTINGS_SCHEMA_DIR=" + os.Getenv("GSETTINGS_SCHEMA_DIR")}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true,
		Credential: &syscall.Credential{Uid: uint32(u.uid), Gid: uint32(u.gid), Groups: []uint32{}}}
	return cmd
}

// startBus starts the user's session bus and waits until it listens.
func (u *gsUser) startBus(t *testing.T, rundir string) {
	t.Helper()
	cmd := u.asUser("dbus-daemon", "--session", "--nofork", "--nopidfile", "--address=unix:path="+rundir+"/bus", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) // the bus and the dconf-service it started
		cmd.Wait()
	})
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		t.Fatalf("the session bus did not start: %v", err)
	}
}

func (u *gsUser) get(t *testing.T, key string) string {
	t.Helper()
	out, err := u.asUser("gsettings", "get", "org.mgmt.test", key).CombinedOutput()
	if err != nil {
		t.Fatalf("gsettings get %s: %v\n%s", key, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (u *gsUser) set(t *testing.T, key, value string) {
	t.Helper()
	if out, err := u.asUser("gsettings", "set", "org.mgmt.test", key, value).CombinedOutput(); err != nil {
		t.Fatalf("gsettings set %s: %v\n%s", key, err, out)
	}
}

// TestGsettingsUserSession sets keys of a real second user through the
// user's own session bus and dconf, and repairs a value the user changes.
func TestGsettingsUserSession(t *testing.T) {
	u := newGsUser(t)
	newGs := func(name, schema, key, typ string, v any) *GsettingsRes {
		r := &GsettingsRes{Schema: schema, Key: key, Type: typ, Value: v, User: u.name}
		r.SetKind("gsettings")
		r.SetName(name)
		return r
	}
	label := newGs("org.mgmt.test label", "", "", "str", "it's \"mgmt\"")
	lh := newHarness(t, label)
	lh.watch()
	lh.check(false, false)
	if got := u.get(t, "label"); got != "'none'" {
		t.Fatalf("noop changed label to %s", got)
	}
	lh.converge()
	for _, r := range []*GsettingsRes{
		newGs("flag", "org.mgmt.test", "flag", "bool", true),
		newGs("count", "org.mgmt.test", "count", "int", json.Number("42")),
		newGs("tags", "org.mgmt.test", "tags", "custom", "['a', 'b']"),
	} {
		newHarness(t, r).converge()
	}
	for key, want := range map[string]string{"label": `"it's \"mgmt\""`, "flag": "true", "count": "42", "tags": "['a', 'b']"} {
		if got := u.get(t, key); got != want {
			t.Errorf("%s = %s, want %s", key, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(u.home, ".config/dconf/user")); err != nil {
		t.Fatalf("dconf wrote no database in the user's home: %v", err)
	}
	lh.drain()
	u.set(t, "label", "'changed by hand'")
	lh.waitEvent("gsettings set by the user")
	lh.converge()
	if got := u.get(t, "label"); got != `"it's \"mgmt\""` {
		t.Fatalf("label not repaired: %s", got)
	}
}
