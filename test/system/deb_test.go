package system

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/resources/system/systemtest"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestDebInMachine builds the Debian package (dist/deb/build.sh), installs
// it in the container with dpkg, checks its units with systemd-analyze
// verify, starts both (systemctl start returns once the tool said
// READY=1), reloads mgmt-apply after changing its program, and removes
// the package.
func TestDebInMachine(t *testing.T) {
	m := systemtest.Find(t)
	out := t.TempDir()
	build := exec.Command(filepath.Join(testutil.Root(), "dist", "deb", "build.sh"), out)
	build.Env = append(os.Environ(), "BIN="+testutil.Tools(t), "VERSION=v0.0.1-test")
	b, err := build.CombinedOutput()
	if err != nil {
		t.Fatalf("dist/deb/build.sh: %v\n%s", err, b)
	}
	deb := strings.TrimSpace(string(b))
	data, err := os.ReadFile(deb)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(m.Path("/tmp/mgmt-test.deb"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		m.Command("systemctl", "stop", "mgmt-apply", "mgmt-cluster").Run()
		m.Command("dpkg", "--purge", "mgmt").Run()
		m.Command("rm", "-rf", "/etc/mgmt", "/var/lib/mgmt", "/tmp/mgmt-test.deb", "/tmp/mgmt-deb-out").Run()
	})
	m.Run(t, "dpkg", "-i", "/tmp/mgmt-test.deb")
	for _, p := range []string{"/usr/bin/mgmt-apply", "/usr/bin/mcl-compile", "/lib/systemd/system/mgmt-apply.service",
		"/lib/systemd/system/mgmt-cluster.service", "/usr/share/man/man1/mgmt-cluster.1.gz",
		"/usr/share/bash-completion/completions/mgmt-apply", "/usr/share/zsh/vendor-completions/_mgmt-apply",
		"/usr/share/fish/vendor_completions.d/mgmt-apply.fish", "/usr/share/doc/mgmt/docs/operating.md"} {
		if _, err := os.Stat(m.Path(p)); err != nil {
			t.Errorf("installed package: %v", err)
		}
	}
	if v := inMachine(m, "dpkg-query", "-W", "-f", "${Version}", "mgmt"); v != "0.0.1+test" {
		t.Errorf("the package's version: %q, want 0.0.1+test", v)
	}
	m.Run(t, "systemd-analyze", "verify", "--man=no", "/lib/systemd/system/mgmt-apply.service", "/lib/systemd/system/mgmt-cluster.service")

	// The cluster member: ready once it serves; the tools of root reach
	// it without flags.
	m.Run(t, "systemctl", "start", "mgmt-cluster")
	if s := inMachine(m, "systemctl", "show", "-p", "ActiveState", "-p", "StatusText", "mgmt-cluster"); !strings.Contains(s, "ActiveState=active") || !strings.Contains(s, "StatusText=running as member") {
		t.Errorf("mgmt-cluster.service after start: %q", s)
	}
	m.Run(t, "mgmt-cluster", "put", "strings/greeting", "hello")

	// The pipeline: ready once mgmt-apply enforces the first graph.
	program := func(content string) {
		src := "import \"world\"\n$g = world.getval(\"greeting\")\n" +
			"file \"/tmp/mgmt-deb-out\" { content => \"" + content + " \" + $g->value, state => \"exists\", }\n"
		if err := os.MkdirAll(m.Path("/etc/mgmt"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(m.Path("/etc/mgmt/main.mcl"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	program("one")
	m.Run(t, "systemctl", "start", "mgmt-apply")
	if s := inMachine(m, "systemctl", "show", "-p", "ActiveState", "-p", "StatusText", "mgmt-apply"); !strings.Contains(s, "ActiveState=active") || !strings.Contains(s, "StatusText=enforcing graph \"main\" seq ") {
		t.Errorf("mgmt-apply.service after start: %q", s)
	}
	content := func(want string) func() string {
		return func() string {
			b, _ := os.ReadFile(m.Path("/tmp/mgmt-deb-out"))
			if string(b) != want {
				return "/tmp/mgmt-deb-out holds " + string(b) + ", want " + want + "\n" + inMachine(m, "journalctl", "-u", "mgmt-apply", "--no-pager", "-n", "30")
			}
			return ""
		}
	}
	systemtest.Eventually(t, 30*time.Second, content("one hello"))
	pid := inMachine(m, "systemctl", "show", "-p", "MainPID", "mgmt-apply")
	program("two")
	m.Run(t, "systemctl", "reload", "mgmt-apply")
	systemtest.Eventually(t, 30*time.Second, content("two hello"))
	if p := inMachine(m, "systemctl", "show", "-p", "MainPID", "mgmt-apply"); p != pid {
		t.Errorf("the reload restarted mgmt-apply: %s, then %s", pid, p)
	}
	m.Run(t, "systemctl", "stop", "mgmt-apply", "mgmt-cluster")
	m.Run(t, "dpkg", "-r", "mgmt")
	if _, err := os.Stat(m.Path("/usr/bin/mgmt-apply")); err == nil {
		t.Errorf("dpkg -r left /usr/bin/mgmt-apply")
	}
}
