// Package service tests what an operator meets around the tools: the
// default state directory, the environment variables, --help and
// --version, readiness and reloading under a service manager, the manual
// pages, completion and the Debian package.
package service

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// env returns a prepare function that adds vars to the tool's environment.
func env(vars ...string) func(*exec.Cmd) {
	return func(c *exec.Cmd) { c.Env = append(os.Environ(), vars...) }
}

// TestDefaultStateDir runs upstream's world.getval example without
// --prefix as a second user: the world starts under that user's default
// state directory, made with mode 0700.
func TestDefaultStateDir(t *testing.T) {
	testutil.NeedRoot(t)
	home := testutil.SharedTempDir(t)
	if err := os.Chown(home, testutil.Nobody, testutil.Nobody); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(home, "getval0.mcl")
	os.WriteFile(prog, []byte("import \"world\"\n$v = world.getval(\"greeting\")\nfile \"/tmp/never\" { content => $v->value, }\n"), 0o644)
	// The tools as nobody can run them: the build directory is root's.
	bin := filepath.Join(home, "mcl-compile")
	if out, err := exec.Command("cp", testutil.Bin(t, "mcl-compile"), bin).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	asNobody := func(c *exec.Cmd) {
		c.Path, c.Args[0] = bin, bin
		c.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: testutil.Nobody, Gid: testutil.Nobody}}
	}
	r := testutil.RunWith(t, asNobody, "", "mcl-compile", "--once", prog)
	if r.Code != 0 || !strings.Contains(r.Stdout, `"kind":"file"`) {
		t.Fatalf("mcl-compile --once getval0.mcl without --prefix: exit %d\n%s%s", r.Code, r.Stderr, r.Stdout)
	}
	for _, d := range []string{".local/state/mgmt", ".local/state/mgmt/world"} {
		fi, err := os.Stat(filepath.Join(home, d))
		if err != nil || fi.Mode().Perm() != 0o700 || fi.Sys().(*syscall.Stat_t).Uid != testutil.Nobody {
			t.Errorf("%s: %v, %v; want a directory of uid %d, mode 0700", d, fi.Mode(), err, testutil.Nobody)
		}
	}
	// Another user's state directory is not trusted.
	r = testutil.Run(t, "", "mcl-compile", "--once", "--prefix", filepath.Join(home, ".local/state/mgmt"), prog)
	if r.Code == 0 || !strings.Contains(r.Stderr, "owned by uid 65534") {
		t.Errorf("root with nobody's state directory: exit %d\n%s", r.Code, r.Stderr)
	}
}

// TestMgmtVar sets two variables through MGMT_VAR, one of whose values
// holds a comma.
func TestMgmtVar(t *testing.T) {
	prog := filepath.Join(t.TempDir(), "v.mcl")
	os.WriteFile(prog, []byte("file \"/tmp/never\" { content => \"${a}|${b}\", }\n"), 0o644)
	r := testutil.RunWith(t, env("MGMT_VAR=a=1,b=x,y"), "", "mcl-compile", "--once", "--prefix", t.TempDir(), prog)
	if r.Code != 0 || !strings.Contains(r.Stdout, `"content":"1|x,y"`) {
		t.Errorf("MGMT_VAR=a=1,b=x,y: exit %d\n%s%s", r.Code, r.Stderr, r.Stdout)
	}
	r = testutil.RunWith(t, env("MGMT_VAR=a=1,b=2"), "", "mcl-compile", "--once", "--prefix", t.TempDir(), "--var", "a=3", "--var", "b=4", prog)
	if r.Code != 0 || !strings.Contains(r.Stdout, `"content":"3|4"`) {
		t.Errorf("--var over MGMT_VAR: exit %d\n%s%s", r.Code, r.Stderr, r.Stdout)
	}
	r = testutil.RunWith(t, env("MGMT_VAR=a"), "", "mcl-compile", "--once", prog)
	if r.Code != 2 || !strings.Contains(r.Stderr, `MGMT_VAR: "a" is not name=value`) {
		t.Errorf("MGMT_VAR=a: exit %d\n%s", r.Code, r.Stderr)
	}
}

// TestClusterPrefixEnv runs a member with MGMT_PREFIX and reaches it with
// mgmt-cluster put and get under the same environment: get's --prefix is
// a yes-or-no flag that MGMT_PREFIX must not set.
func TestClusterPrefixEnv(t *testing.T) {
	prefix := t.TempDir()
	e := env("MGMT_PREFIX=" + prefix)
	m := testutil.StartWith(t, e, "mgmt-cluster", "run")
	m.WaitLines(`running as member`, 1)
	if r := testutil.RunWith(t, e, "", "mgmt-cluster", "put", "strings/svc-test", "hello"); r.Code != 0 {
		t.Fatalf("put: exit %d\n%s", r.Code, r.Stderr)
	}
	if r := testutil.RunWith(t, e, "", "mgmt-cluster", "get", "strings/svc-test"); r.Code != 0 || r.Stdout != "hello\n" {
		t.Errorf("get with MGMT_PREFIX: exit %d\n%s%s", r.Code, r.Stderr, r.Stdout)
	}
	if r := testutil.RunWith(t, e, "", "mgmt-cluster", "get", "--prefix", "strings/"); r.Code != 0 || r.Stdout != "strings/svc-test\thello\n" {
		t.Errorf("get --prefix with MGMT_PREFIX: exit %d\n%s%q", r.Code, r.Stderr, r.Stdout)
	}
}

// TestHelpDefaults checks that --help shows each flag's default and
// environment variable.
func TestHelpDefaults(t *testing.T) {
	r := testutil.Run(t, "", "mgmt-apply", "--help")
	out := strings.Join(strings.Fields(r.Stdout), " ")
	for _, want := range []string{"(default: -1; $MGMT_CONVERGED_TIMEOUT)", "(default: 30m; $MGMT_RECHECK)", "(default: 127.0.0.1:9233; $MGMT_PROMETHEUS_LISTEN)", "default /var/lib/mgmt as root"} {
		if r.Code != 0 || !strings.Contains(out, want) {
			t.Errorf("mgmt-apply --help lacks %q: exit %d\n%s", want, r.Code, r.Stdout)
		}
	}
}

// TestVersion builds mgmt-apply as go build and go install do, without a
// version given at link time: --version names the commit it was built
// from, read from the build information.
func TestVersion(t *testing.T) {
	root := testutil.Root()
	// The go command stamps the commit of a clone, not of a git worktree
	// (whose .git is a file).
	fi, err := os.Stat(filepath.Join(root, ".git"))
	testutil.Need(t, err == nil && fi.IsDir(), "a git clone of the project, for the commit in the build information")
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "mgmt-apply")
	cmd := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "./cmd/mgmt-apply")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	// the commit alone, or the pseudo-version the go command makes of it
	// (v0.0.0-TIME-COMMIT)
	v, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "mgmt-apply ")
	if err != nil || !ok || !(strings.HasPrefix(v, string(head[:12])) || strings.Contains(v, "-"+string(head[:12]))) {
		t.Errorf("--version: %q, %v; want mgmt-apply %s[-dirty] or a pseudo-version of it", out, err, head[:12])
	}
}

// TestReadfileNamesPath checks that os.readfile's error names the file,
// whether the file or its directory is missing.
func TestReadfileNamesPath(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{filepath.Join(dir, "nofile"), filepath.Join(dir, "nodir", "nofile")} {
		prog := filepath.Join(dir, "rf.mcl")
		os.WriteFile(prog, []byte("import \"os\"\nfile \"/tmp/never\" { content => os.readfile(\""+p+"\"), }\n"), 0o644)
		r := testutil.Run(t, "", "mcl-compile", "--once", "--prefix", dir, prog)
		if r.Code != 1 || !strings.Contains(r.Stderr, "rf.mcl:2:32: runtime error: ") || !strings.Contains(r.Stderr, p+": no such file or directory") {
			t.Errorf("os.readfile(%q): exit %d\n%s", p, r.Code, r.Stderr)
		}
	}
}
