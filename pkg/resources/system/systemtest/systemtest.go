// Package systemtest helps the tests of the system resources: it finds the
// throwaway systemd container booted by scripts/systemd-container/boot.sh,
// runs commands inside it, and builds local apt repositories of tiny
// packages.
//
// Two switches, both environment variables, decide what may run:
//   - MGMT_E2E_MACHINE=<pid>: the host PID of the container's PID 1. Tests
//     that drive the container from the host (its D-Bus socket under
//     /proc/<pid>/root, nsenter) need it and skip without it.
//   - MGMT_SYSTEM_LIVE=1: the test process itself runs inside such a
//     throwaway machine and may install packages, add users, rename the
//     host. Never set it on a machine you care about.
//
// In CI (CI=true) a missing container fails the test, unless
// MGMT_E2E_DEFERRED=1 says that a later step of the same run boots the
// container and runs these tests there.
package systemtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/internal/testneed"
)

// A Machine is the booted test container, seen from the host.
type Machine struct {
	PID  int
	Root string // /proc/PID/root
}

// Find returns the machine named by MGMT_E2E_MACHINE, or skips the test
// when it is unset. A set but dead machine fails the test.
func Find(t testing.TB) *Machine {
	t.Helper()
	v := os.Getenv("MGMT_E2E_MACHINE")
	if v == "" {
		if Deferred() {
			t.Skip("drives the systemd test container: runs in .ci/check.d/30-system-tests.sh")
		}
		testneed.Missing(t, "no systemd test container: MGMT_E2E_MACHINE is unset "+
			"(scripts/systemd-container/build.sh && export MGMT_E2E_MACHINE=$(scripts/systemd-container/boot.sh))")
	}
	pid, err := strconv.Atoi(v)
	if err != nil || pid <= 1 {
		t.Fatalf("MGMT_E2E_MACHINE=%q: want the host PID of the container's PID 1", v)
	}
	m := &Machine{PID: pid, Root: fmt.Sprintf("/proc/%d/root", pid)}
	if _, err := os.Stat(m.Path("/run/dbus/system_bus_socket")); err != nil {
		t.Fatalf("MGMT_E2E_MACHINE=%d: no system bus in the container: %v", pid, err)
	}
	return m
}

// Path returns the host path of path inside the machine.
func (m *Machine) Path(p string) string { return m.Root + p }

// Bus returns the D-Bus address of the machine's system bus.
func (m *Machine) Bus() string {
	return "unix:path=" + m.Path("/run/dbus/system_bus_socket")
}

// Command returns a command running args inside the machine (all its
// namespaces).
func (m *Machine) Command(args ...string) *exec.Cmd {
	return exec.Command("nsenter", append([]string{"-t", strconv.Itoa(m.PID), "-a", "--"}, args...)...)
}

// Run runs args inside the machine and returns the combined output,
// failing the test on a non-zero exit.
func (m *Machine) Run(t testing.TB, args ...string) string {
	t.Helper()
	out, err := m.Command(args...).CombinedOutput()
	if err != nil {
		t.Fatalf("in the machine: %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Install builds a Go package of the module in dir (a command, or with
// test a test binary) without cgo, copies it to /opt/mgmt/name inside the
// machine and returns that path.
func (m *Machine) Install(t testing.TB, dir, name, pkg string, test bool) string {
	t.Helper()
	tmp := filepath.Join(t.TempDir(), name)
	args := []string{"build", "-o", tmp, pkg}
	if test {
		args = []string{"test", "-c", "-o", tmp, pkg}
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	data, err := os.ReadFile(tmp)
	if err != nil {
		t.Fatal(err)
	}
	dst := m.Path("/opt/mgmt/" + name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst+".new", data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dst+".new", dst); err != nil {
		t.Fatal(err)
	}
	return "/opt/mgmt/" + name
}

// Live lets the test run only when MGMT_SYSTEM_LIVE=1 says that this
// process runs inside a throwaway machine it may change. Elsewhere it skips
// when the test runs inside the container from another place
// (TestResourcesInMachine in test/system, with MGMT_E2E_MACHINE set, or
// the later CI check when Deferred), and otherwise is a missing part.
func Live(t testing.TB) {
	t.Helper()
	if os.Getenv("MGMT_SYSTEM_LIVE") == "1" {
		return
	}
	const why = "changes the system: runs only inside the throwaway systemd container (MGMT_SYSTEM_LIVE=1, see test/system)"
	if os.Getenv("MGMT_E2E_MACHINE") != "" || Deferred() {
		t.Skip(why)
	}
	testneed.Missing(t, "%s", why)
}

// Deferred reports whether the container tests are left to a later step
// of the same run (MGMT_E2E_DEFERRED=1): .ci/run sets it for `make test`
// because .ci/check.d/30-system-tests.sh boots the container and runs them
// there, where a skip fails the check.
func Deferred() bool { return os.Getenv("MGMT_E2E_DEFERRED") == "1" }

// Run runs a command on this machine and fails the test on error.
func Run(t testing.TB, args ...string) string {
	t.Helper()
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// A Deb describes a tiny package: name, version, section (default misc)
// and files (path inside the package -> content).
type Deb struct {
	Name, Version, Section string
	Files                  map[string]string
}

// RepoDir is where a Repo lives inside the system it serves.
const RepoDir = "/srv/mgmt-test-repo"

// Repo writes the packages into a flat apt repository under root
// (root+RepoDir, added to root's apt sources as a trusted file: source),
// adding them to what the repository already holds. It uses dpkg-deb and
// writes the Packages index itself, so it needs no dpkg-dev.
func Repo(t testing.TB, root string, debs ...Deb) {
	t.Helper()
	dir := root + RepoDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range debs {
		buildDeb(t, dir, d)
	}
	writeIndex(t, dir)
	src := "deb [trusted=yes] file:" + RepoDir + " ./\n"
	if err := os.WriteFile(root+"/etc/apt/sources.list.d/mgmt-test.list", []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

func buildDeb(t testing.TB, dir string, d Deb) {
	t.Helper()
	tree := t.TempDir()
	files := d.Files
	if files == nil {
		files = map[string]string{"/usr/share/doc/" + d.Name + "/version": d.Version + "\n"}
	}
	for p, c := range files {
		full := filepath.Join(tree, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctl := fmt.Sprintf("Package: %s\nVersion: %s\nArchitecture: all\nMaintainer: mgmt tests <tests@example.invalid>\n"+
		"Priority: optional\nSection: %s\nDescription: tiny package for the mgmt system tests\n", d.Name, d.Version,
		orMisc(d.Section))
	if err := os.MkdirAll(tree+"/DEBIAN", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tree+"/DEBIAN/control", []byte(ctl), 0o644); err != nil {
		t.Fatal(err)
	}
	deb := fmt.Sprintf("%s/%s_%s_all.deb", dir, d.Name, d.Version)
	Run(t, "dpkg-deb", "--build", "--root-owner-group", "-Zgzip", tree, deb)
}

func orMisc(s string) string {
	if s == "" {
		return "misc"
	}
	return s
}

// writeIndex writes the Packages file of every .deb in dir.
func writeIndex(t testing.TB, dir string) {
	t.Helper()
	debs, _ := filepath.Glob(dir + "/*.deb")
	sort.Strings(debs)
	var idx bytes.Buffer
	for _, deb := range debs {
		ctl := Run(t, "dpkg-deb", "--field", deb)
		data, err := os.ReadFile(deb)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&idx, "%sFilename: ./%s\nSize: %d\nSHA256: %s\n\n", strings.TrimRight(ctl, "\n")+"\n",
			filepath.Base(deb), len(data), hex.EncodeToString(sum[:]))
	}
	if err := os.WriteFile(dir+"/Packages", idx.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Eventually calls cond until it returns "" or the deadline passes, then
// fails with the last message. It waits on an observable condition: the
// short pause between attempts only spaces the checks.
func Eventually(t testing.TB, d time.Duration, cond func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		msg := cond()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", d, msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
