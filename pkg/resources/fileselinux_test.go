package resources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestFileSELinuxAbsent: on a host without SELinux (this one, when
// selinuxfs is not mounted) a context is refused at Validate.
func TestFileSELinuxAbsent(t *testing.T) {
	if selinuxPresent() == nil {
		t.Skip("SELinux runs on this host")
	}
	f := &FileRes{Path: "/tmp/x", State: "exists", Rare: &FileRare{SELinux: strp("system_u:object_r:tmp_t:s0")}}
	f.SetName(f.Path)
	if err := f.Validate(); err == nil || !strings.Contains(err.Error(), "SELinux is not enabled on this host") {
		t.Fatalf("got %v", err)
	}
}

// TestFileSELinux sets, repairs and removes the security.selinux
// attribute of a real file and of a link itself, with the check for
// SELinux stood in for (the attribute is stored by the file system
// whether or not SELinux runs).
func TestFileSELinux(t *testing.T) {
	on := func() error { return nil }
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	mustWrite(t, p, "x")
	if err := unix.Lsetxattr(p, "security.selinux", []byte("probe\x00"), 0); err != nil {
		t.Skipf("this file system does not store security.selinux: %v", err)
	}
	h := newHarness(t)
	const ctx = "system_u:object_r:etc_t:s0:c0,c1"
	f := newFile(t, h, p, &FileRes{State: "exists", Rare: &FileRare{SELinux: strp(ctx)}, x: &fileExtra{uid: -1, gid: -1, selinuxOn: on}})
	checkApply(t, f, false, false)
	checkApply(t, f, true, false)
	if got, ok, err := getContext(p); err != nil || !ok || got != ctx {
		t.Fatalf("context %q %v %v", got, ok, err)
	}
	checkApply(t, f, true, true)
	unix.Lsetxattr(p, "security.selinux", []byte("user_u:object_r:tmp_t:s0\x00"), 0)
	checkApply(t, f, true, false)

	link := filepath.Join(dir, "l")
	l := newFile(t, h, link, &FileRes{State: "exists", Rare: &FileRare{Symlink: true, Source: p, SELinux: strp("system_u:object_r:link_t:s0")}, x: &fileExtra{uid: -1, gid: -1, selinuxOn: on}})
	checkApply(t, l, true, false)
	if got, _, _ := getContext(link); got != "system_u:object_r:link_t:s0" {
		t.Fatalf("link context %q", got)
	}
	if got, _, _ := getContext(p); got != ctx {
		t.Fatalf("the target's context changed to %q", got)
	}

	rm := newFile(t, h, p, &FileRes{Rare: &FileRare{SELinux: strp("")}, x: &fileExtra{uid: -1, gid: -1, selinuxOn: on}})
	checkApply(t, rm, true, false)
	if _, ok, _ := getContext(p); ok {
		t.Fatal("the context was not removed")
	}
	checkApply(t, rm, true, true)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"nocolons", "a:b", "a:b: c"} {
		f := &FileRes{Path: p, State: "exists", Rare: &FileRare{SELinux: strp(bad)}}
		f.SetName(p)
		if f.Validate() == nil {
			t.Errorf("context %q accepted", bad)
		}
	}
}
