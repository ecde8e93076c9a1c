package resources

import (
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
)

func readlink(t *testing.T, p string) string {
	t.Helper()
	s, err := os.Readlink(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFileSymlink makes a link (to a relative target that does not
// exist), finds it right, repairs a link changed by hand, and replaces a
// file or a directory in the way only with force.
func TestFileSymlink(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "l")
	f := newFile(t, h, p, &FileRes{State: "exists", Rare: &FileRare{Symlink: true, Source: "../nowhere"}})
	checkApply(t, f, false, false)
	if exists(p) {
		t.Fatal("apply=false made the link")
	}
	checkApply(t, f, true, false)
	if got := readlink(t, p); got != "../nowhere" {
		t.Fatalf("target %q", got)
	}
	checkApply(t, f, true, true)

	startWatch(t, h, f)
	expectEvent(t, h, "link changed", func() {
		os.Remove(p)
		os.Symlink("/etc/passwd", p)
	})
	checkApply(t, f, true, false)
	if got := readlink(t, p); got != "../nowhere" {
		t.Fatalf("target after repair %q", got)
	}
	if tmp := tempFiles(t, dir); len(tmp) > 0 {
		t.Fatalf("temporary entries left: %v", tmp)
	}

	for _, kind := range []string{"file", "directory"} {
		os.Remove(p)
		if kind == "file" {
			mustWrite(t, p, "data")
		} else {
			os.Mkdir(p, 0o755)
			mustWrite(t, filepath.Join(p, "inner"), "x")
		}
		if _, err := f.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "set force") {
			t.Fatalf("a %s in the way without force: %v", kind, err)
		}
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink != 0 {
			t.Fatalf("the %s was touched without force", kind)
		}
		forced := newFile(t, h, p, &FileRes{State: "exists", Rare: &FileRare{Symlink: true, Source: "target", Force: true}})
		checkApply(t, forced, true, false)
		if got := readlink(t, p); got != "target" {
			t.Fatalf("after replacing a %s: %q", kind, got)
		}
	}
}

// TestFileSymlinkAbsent removes a link and never its target; another kind
// of entry goes only with force.
func TestFileSymlinkAbsent(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	mustWrite(t, target, "keep")
	p := filepath.Join(dir, "l")
	os.Symlink(target, p)
	f := newFile(t, h, p, &FileRes{State: "absent", Rare: &FileRare{Symlink: true}})
	checkApply(t, f, true, false)
	if exists(p) || mustRead(t, target) != "keep" {
		t.Fatal("absent must remove the link and keep the target")
	}
	checkApply(t, f, true, true)
	mustWrite(t, p, "a file")
	if _, err := f.CheckApply(t.Context(), true); err == nil || mustRead(t, p) != "a file" {
		t.Fatalf("a file removed as a link without force: %v", err)
	}
}

// TestFileSymlinkOwner gives the link itself, not its target, another
// user; state "" keeps an existing link right and creates none.
func TestFileSymlinkOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		testneed.Missing(t, "needs root to change owners")
	}
	h := newHarness(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	mustWrite(t, target, "x")
	p := filepath.Join(dir, "l")
	f := newFile(t, h, p, &FileRes{State: "exists", Rare: &FileRare{Symlink: true, Source: target}, Owner: "65534", Group: "65534"})
	checkApply(t, f, true, false)
	checkApply(t, f, true, true)
	li, _ := os.Lstat(p)
	ti, _ := os.Lstat(target)
	if _, uid, gid := statBits(li); uid != 65534 || gid != 65534 {
		t.Fatalf("link owner %d:%d", uid, gid)
	}
	if _, uid, _ := statBits(ti); uid != 0 {
		t.Fatalf("the target's owner changed to %d", uid)
	}
	os.Lchown(p, 0, 0)
	checkApply(t, f, true, false)

	q := filepath.Join(dir, "unmanaged")
	u := newFile(t, h, q, &FileRes{Rare: &FileRare{Symlink: true, Source: target}})
	checkApply(t, u, true, true)
	if exists(q) {
		t.Fatal("state \"\" created a link")
	}
	os.Symlink("elsewhere", q)
	checkApply(t, u, true, false)
	if readlink(t, q) != target {
		t.Fatal("state \"\" did not repair an existing link")
	}
}

// TestFileSymlinkReversed: the reversal of a link that replaced another
// link restores the old target; of a new link, removes it.
func TestFileSymlinkReversed(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "l")
	os.Symlink("old", p)
	f := &FileRes{State: "exists", Rare: &FileRare{Symlink: true, Source: "new"}}
	f.SetMetaParams(&engine.MetaParams{Reverse: true})
	newFile(t, h, p, f)
	checkApply(t, f, true, false)
	r, err := f.Reversed()
	if err != nil || r == nil {
		t.Fatalf("reversed: %v %v", r, err)
	}
	rev := r.(*FileRes)
	if !rev.rare().Symlink || rev.rare().Source != "old" {
		t.Fatalf("reversal %+v", rev)
	}
	newFile(t, newHarness(t), p, rev)
	checkApply(t, rev, true, false)
	if readlink(t, p) != "old" {
		t.Fatal("the reversal did not restore the old target")
	}
}

func TestFileSymlinkValidate(t *testing.T) {
	for _, f := range []*FileRes{
		{Path: "/a/", State: "exists", Rare: &FileRare{Symlink: true, Source: "x"}},
		{Path: "/a", State: "exists", Rare: &FileRare{Symlink: true}},
		{Path: "/a", State: "exists", Rare: &FileRare{Symlink: true, Source: "x"}, Mode: "0644"},
		{Path: "/a", State: "exists", Rare: &FileRare{Symlink: true, Source: "x", Recurse: true}},
		{Path: "/a", State: "exists", Rare: &FileRare{Symlink: true}, Content: strp("x")},
		{Path: "/a", State: "absent", Rare: &FileRare{Symlink: true, Source: "x"}},
	} {
		f.SetName(f.Path)
		if err := f.Validate(); err == nil {
			t.Errorf("%+v accepted", f)
		}
	}
}
