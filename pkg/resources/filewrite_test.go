package resources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
)

// ownerOf returns the uid and gid of p.
func ownerOf(t testing.TB, p string) (int, int) {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	_, uid, gid := statBits(fi)
	return uid, gid
}

// TestFileRepairKeepsSetIDAndOwner rewrites the content of a set-id file
// of another user: the new file keeps the owner and the set-id bits (a
// chown clears them, so the mode is set after it).
func TestFileRepairKeepsSetIDAndOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		testneed.Missing(t, "needs root to change owners")
	}
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "f")
	mustWrite(t, p, "old")
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o6755|os.ModeSetuid|os.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	f := newFile(t, h, p, &FileRes{Content: strp("new content\n")})
	checkApply(t, f, true, false)
	if got := mustRead(t, p); got != "new content\n" {
		t.Fatalf("content %q", got)
	}
	if perm := permOf(t, p); perm != 0o6755 {
		t.Fatalf("mode %04o after the repair, want 6755", perm)
	}
	if uid, gid := ownerOf(t, p); uid != 65534 || gid != 65534 {
		t.Fatalf("owner %d:%d after the repair, want 65534:65534", uid, gid)
	}
	checkApply(t, f, true, true)
}

// TestFileRepairSetsModeWithContent: a file whose content and mode both
// drifted is rewritten with the wanted mode at once, and both changes are
// reported.
func TestFileRepairSetsModeWithContent(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	mustWrite(t, p, "old")
	if err := os.Chmod(p, 0o666); err != nil {
		t.Fatal(err)
	}
	f := newFile(t, h, p, &FileRes{Content: strp("new\n"), Mode: "0640"})
	checkApply(t, f, true, false)
	if got := mustRead(t, p); got != "new\n" {
		t.Fatalf("content %q", got)
	}
	if perm := permOf(t, p); perm != 0o640 {
		t.Fatalf("mode %04o, want 0640", perm)
	}
	if log := h.logged(); !strings.Contains(log, "content") || !strings.Contains(log, "mode") {
		t.Fatalf("log %q does not report both the content and the mode", log)
	}
	checkApply(t, f, true, true)
	if tmp := tempFiles(t, dir); len(tmp) > 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
}

// TestFileRepairInSetGIDDir rewrites a file of root's group in a
// set-group-ID directory of another group: the new file, which the
// directory gives its own group, gets the old file's group back.
func TestFileRepairInSetGIDDir(t *testing.T) {
	if os.Geteuid() != 0 {
		testneed.Missing(t, "needs root to change owners")
	}
	h := newHarness(t)
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 0, 65534); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o2775|os.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "f")
	mustWrite(t, p, "old")
	if err := os.Chown(p, 0, os.Getegid()); err != nil {
		t.Fatal(err)
	}
	f := newFile(t, h, p, &FileRes{Content: strp("new\n")})
	checkApply(t, f, true, false)
	if uid, gid := ownerOf(t, p); uid != 0 || gid != os.Getegid() {
		t.Fatalf("owner %d:%d after the repair, want 0:%d", uid, gid, os.Getegid())
	}
	if perm := permOf(t, p); perm != 0o644 {
		t.Fatalf("mode %04o after the repair, want 0644", perm)
	}
	checkApply(t, f, true, true)
	if tmp := tempFiles(t, dir); len(tmp) > 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
}

// TestCreateAtomic creates a file that is absent, with its mode and owner
// and no temporary file left beside it, and, when the path appeared since
// it was found absent, replaces what is there as a repair does.
func TestCreateAtomic(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	p := filepath.Join(dir, "new")
	uid, gid := -1, -1
	if os.Geteuid() == 0 {
		uid, gid = 65534, 65534
	}
	if err := createAtomic(ctx, p, []byte("one\n"), 0o640, uid, gid, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, p); got != "one\n" {
		t.Fatalf("content %q", got)
	}
	if perm := permOf(t, p); perm != 0o640 {
		t.Fatalf("mode %04o, want 0640", perm)
	}
	if u, g := ownerOf(t, p); uid >= 0 && (u != uid || g != gid) {
		t.Fatalf("owner %d:%d, want %d:%d", u, g, uid, gid)
	}
	// The path appeared after it was found absent: a file, then a link
	// to a file elsewhere, which must be replaced and not written through.
	elsewhere := filepath.Join(t.TempDir(), "target")
	mustWrite(t, elsewhere, "untouched")
	if err := createAtomic(ctx, p, []byte("two\n"), 0o600, -1, -1, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, p); got != "two\n" {
		t.Fatalf("content %q after the second write", got)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, p); err != nil {
		t.Fatal(err)
	}
	if err := createAtomic(ctx, p, []byte("three\n"), 0o600, -1, -1, nil, nil); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("%s is not a regular file after the write: %v", p, err)
	}
	if got := mustRead(t, p); got != "three\n" {
		t.Fatalf("content %q after the third write", got)
	}
	if got := mustRead(t, elsewhere); got != "untouched" {
		t.Fatalf("the link's target was written: %q", got)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 {
		t.Fatalf("%d entries in the directory, want the file alone: %v", len(ents), ents)
	}
}
