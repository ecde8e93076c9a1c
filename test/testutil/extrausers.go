package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// ExtraAccount is a user, its primary group and a group it is a member
// of, all of libnss-extrausers only.
type ExtraAccount struct {
	User, UID, Group, GID, Supp, SuppGID string
}

// NeedExtraUsers adds an ExtraAccount to /var/lib/extrausers for the
// test, and takes it out again at its end. It needs root, and
// libnss-extrausers named in nsswitch.conf for passwd and group
// (.ci/setup.d/45-nss-extrausers.sh); without them the test fails in CI
// and is skipped elsewhere.
func NeedExtraUsers(t testing.TB) ExtraAccount {
	t.Helper()
	Need(t, os.Geteuid() == 0, "root, to add accounts to /var/lib/extrausers")
	ns, _ := os.ReadFile("/etc/nsswitch.conf")
	for _, db := range []string{"passwd", "group"} {
		ok := false
		for _, line := range strings.Split(string(ns), "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == db+":" && slices.Contains(f[1:], "extrausers") {
				ok = true
			}
		}
		Need(t, ok, "libnss-extrausers named on the "+db+" line of /etc/nsswitch.conf (.ci/setup.d/45-nss-extrausers.sh)")
	}
	_, err := exec.LookPath("getent")
	Need(t, err == nil, "getent")
	n := 4200000 + os.Getpid()%100000
	acc := ExtraAccount{
		User: fmt.Sprintf("mgmtxu%d", n), UID: strconv.Itoa(n),
		Group: fmt.Sprintf("mgmtxg%d", n), GID: strconv.Itoa(n),
		Supp: fmt.Sprintf("mgmtxs%d", n), SuppGID: strconv.Itoa(n + 1),
	}
	// Test processes of other packages add and take out accounts of
	// their own at the same time: each change holds the lock.
	locked := func(f func()) {
		t.Helper()
		l, err := os.OpenFile("/var/lib/extrausers/.mgmt-test-lock", os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if err := syscall.Flock(int(l.Fd()), syscall.LOCK_EX); err != nil {
			t.Fatal(err)
		}
		f()
	}
	add := func(file, line string) {
		t.Helper()
		path := "/var/lib/extrausers/" + file
		locked(func() {
			b, _ := os.ReadFile(path)
			if err := replaceFile(path, append(b, line+"\n"...)); err != nil {
				t.Fatal(err)
			}
		})
		t.Cleanup(func() {
			locked(func() {
				b, err := os.ReadFile(path)
				if err != nil {
					return
				}
				lines := strings.SplitAfter(string(b), "\n")
				lines = slices.DeleteFunc(lines, func(l string) bool { return l == line+"\n" })
				replaceFile(path, []byte(strings.Join(lines, "")))
			})
		})
	}
	add("passwd", fmt.Sprintf("%s:x:%s:%s:Extra User,,,:/nonexistent:/usr/sbin/nologin", acc.User, acc.UID, acc.GID))
	add("group", fmt.Sprintf("%s:x:%s:", acc.Group, acc.GID))
	add("group", fmt.Sprintf("%s:x:%s:%s", acc.Supp, acc.SuppGID, acc.User))
	return acc
}

// replaceFile gives path the content b at once (a new file renamed over
// it): a lookup of another test process reads the old file or the new.
func replaceFile(path string, b []byte) error {
	tmp := path + ".mgmt-test-new"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
