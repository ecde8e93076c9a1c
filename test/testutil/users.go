package testutil

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// Nobody is the uid and gid of the second user the tests act as.
const Nobody = 65534

// NeedRoot skips the test unless it runs as root, which it needs to act as
// a second user; in CI (CI=true) it fails instead.
func NeedRoot(t testing.TB) {
	t.Helper()
	Need(t, os.Geteuid() == 0, "root, to act as a second user (uid 65534)")
}

// RunAsNobody runs name with args as uid and gid 65534 to completion and
// returns what it left behind, whether it succeeded or not.
func RunAsNobody(t testing.TB, name string, args ...string) Result {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: Nobody, Gid: Nobody}}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s as uid %d: %v", name, Nobody, err)
	}
	return Result{Stdout: out.String(), Stderr: errb.String(), Code: code}
}

// AsNobody runs name with args as uid and gid 65534 and fails the test if
// it does not succeed.
func AsNobody(t testing.TB, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: Nobody, Gid: Nobody}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v as uid %d: %v\n%s", name, args, Nobody, err, out)
	}
}

// SharedTempDir returns a new directory that other users may enter (mode
// 0755, unlike t.TempDir's), removed when the test ends.
func SharedTempDir(t testing.TB) string {
	t.Helper()
	d, err := os.MkdirTemp("", "mgmt-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// AddUser adds a user with a unique name and a home directory it owns
// (mode 0755, empty, in a directory everyone may enter), both removed
// when the test ends, and returns its name, home and uid. It needs root
// and useradd.
func AddUser(t testing.TB) (string, string, int) {
	t.Helper()
	NeedRoot(t)
	_, err := exec.LookPath("useradd")
	Need(t, err == nil, "useradd (package passwd)")
	name := fmt.Sprintf("mgmtk%08d", rand.IntN(1e8))
	home := filepath.Join(SharedTempDir(t), name)
	if out, err := exec.Command("useradd", "-M", "-d", home, "-s", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
		t.Fatalf("useradd: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("userdel", name).Run() })
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, uid, uid); err != nil {
		t.Fatal(err)
	}
	return name, home, uid
}
