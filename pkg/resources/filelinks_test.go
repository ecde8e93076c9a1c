package resources

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// linkTree makes, in a new directory, a target file t/f ("target\n") and
// a target directory t/d holding t/d/inner, and returns the directory.
func linkTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "t", "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "t", "f"), "target\n")
	mustWrite(t, filepath.Join(dir, "t", "d", "inner"), "x\n")
	return dir
}

func symlink(t *testing.T, target, p string) {
	t.Helper()
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// assertTargets checks that the targets of linkTree are as they were made.
func assertTargets(t *testing.T, dir string) {
	t.Helper()
	if got := mustRead(t, filepath.Join(dir, "t", "f")); got != "target\n" {
		t.Errorf("the target file was written: %q", got)
	}
	if got := mustRead(t, filepath.Join(dir, "t", "d", "inner")); got != "x\n" {
		t.Errorf("the target directory's file changed: %q", got)
	}
}

// TestFileLinksReplace: with links "replace", a link at the path of a file
// or directory is replaced by it (in noop, only reported), its target left
// as it was, a dangling link as well; as Puppet's links => manage with
// ensure => file or directory.
func TestFileLinksReplace(t *testing.T) {
	h := newHarness(t)
	dir := linkTree(t)
	a, dl, c := filepath.Join(dir, "a"), filepath.Join(dir, "dangling"), filepath.Join(dir, "c")
	symlink(t, "t/f", a)
	symlink(t, "nowhere", dl)
	symlink(t, "t/d", c)
	for _, p := range []string{a, dl} {
		f := newFile(t, h, p, &FileRes{State: "exists", Content: strp("new\n"), Mode: "0640", Rare: &FileRare{Links: LinksReplace}})
		checkApply(t, f, false, false)
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("noop replaced %s: %v", p, err)
		}
		checkApply(t, f, true, false)
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || mustRead(t, p) != "new\n" || permOf(t, p) != 0o640 {
			t.Fatalf("%s: %v %v, want a regular file with the content, mode 0640", p, fi, err)
		}
		checkApply(t, f, true, true)
	}
	d := newFile(t, h, c+"/", &FileRes{State: "exists", Mode: "0750", Rare: &FileRare{Links: LinksReplace}})
	checkApply(t, d, false, false)
	checkApply(t, d, true, false)
	if fi, err := os.Lstat(c); err != nil || !fi.IsDir() || permOf(t, c) != 0o750 {
		t.Fatalf("%s: %v %v, want a directory 0750", c, fi, err)
	}
	if ents, _ := os.ReadDir(c); len(ents) != 0 {
		t.Fatalf("the new directory holds %v", ents)
	}
	checkApply(t, d, true, true)
	assertTargets(t, dir)
	if tmp := tempFiles(t, dir); len(tmp) > 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}

	// Drift: a link put back is replaced again.
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	symlink(t, "t/f", a)
	f := newFile(t, h, a, &FileRes{State: "exists", Content: strp("new\n"), Rare: &FileRare{Links: LinksReplace}})
	checkApply(t, f, true, false)
	if fi, _ := os.Lstat(a); !fi.Mode().IsRegular() {
		t.Fatal("the link put back was not replaced")
	}
	assertTargets(t, dir)

	// A directory in the way still needs force, as without links.
	x := filepath.Join(dir, "x")
	if err := os.Mkdir(x, 0o755); err != nil {
		t.Fatal(err)
	}
	xf := newFile(t, h, x, &FileRes{State: "exists", Content: strp("new\n"), Rare: &FileRare{Links: LinksReplace}})
	applyFails(t, xf, "set force", "a directory in the way")
}

// TestFileLinksKeep: with links "keep" (and with "replace" without state
// "exists"), a link at the path stays as it is, its target untouched,
// while a missing path is still created; as Puppet's links => manage with
// ensure => present or no ensure.
func TestFileLinksKeep(t *testing.T) {
	h := newHarness(t)
	dir := linkTree(t)
	b, e := filepath.Join(dir, "b"), filepath.Join(dir, "e")
	symlink(t, "t/f", b)
	symlink(t, "t/d", e)
	for _, tc := range []struct {
		p string
		f *FileRes
	}{
		{b, &FileRes{State: "exists", Content: strp("new\n"), Mode: "0600", Rare: &FileRare{Links: LinksKeep}}},
		{b, &FileRes{Content: strp("new\n"), Mode: "0600", Rare: &FileRare{Links: LinksReplace}}},
		{e + "/", &FileRes{State: "exists", Mode: "0700", Rare: &FileRare{Links: LinksKeep}}},
	} {
		f := newFile(t, h, tc.p, tc.f)
		checkApply(t, f, true, true)
		if fi, err := os.Lstat(strings.TrimSuffix(tc.p, "/")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a link: %v", tc.p, err)
		}
	}
	if permOf(t, filepath.Join(dir, "t", "f")) != 0o644 || permOf(t, filepath.Join(dir, "t", "d")) != 0o755 {
		t.Fatal("a target's mode changed")
	}
	assertTargets(t, dir)
	if !strings.Contains(h.logged(), "kept the symbolic link "+b+" (links keep): its content is not managed") {
		t.Fatalf("no log of the content left: %q", h.logged())
	}

	regular := filepath.Join(dir, "regular")
	mustWrite(t, regular, "old\n")
	r := newFile(t, h, regular, &FileRes{State: "exists", Content: strp("new\n"), Mode: "0600", Rare: &FileRare{Links: LinksKeep}})
	checkApply(t, r, true, false)
	if mustRead(t, regular) != "new\n" || permOf(t, regular) != 0o600 {
		t.Fatal("a regular file's content and mode are not managed under links keep")
	}

	missing := filepath.Join(dir, "missing")
	f := newFile(t, h, missing, &FileRes{State: "exists", Content: strp("new\n"), Rare: &FileRare{Links: LinksKeep}})
	checkApply(t, f, true, false)
	if mustRead(t, missing) != "new\n" {
		t.Fatal("a missing file was not created")
	}
	checkApply(t, f, true, true)
}

// TestFileLinksKeepOwner: a link kept gets the owner and group itself; its
// target keeps its own, and its mode (a link has none) is left.
func TestFileLinksKeepOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		testneed.Missing(t, "needs root to change owners")
	}
	h := newHarness(t)
	dir := linkTree(t)
	g := filepath.Join(dir, "g")
	symlink(t, "t/f", g)
	f := newFile(t, h, g, &FileRes{Mode: "0600", Owner: "65534", Group: "65534", Rare: &FileRare{Links: LinksKeep}})
	checkApply(t, f, false, false)
	checkApply(t, f, true, false)
	checkApply(t, f, true, true)
	li, _ := os.Lstat(g)
	ti, _ := os.Lstat(filepath.Join(dir, "t", "f"))
	if _, uid, gid := statBits(li); uid != 65534 || gid != 65534 {
		t.Fatalf("link owner %d:%d", uid, gid)
	}
	if perm, uid, _ := statBits(ti); uid != 0 || perm != 0o644 {
		t.Fatalf("the target changed: owner %d, mode %04o", uid, perm)
	}
}

// TestFileLinksReversed: the reversal of a file that replaced a link puts
// the link back; a directory does not replace a link under Meta:reverse.
func TestFileLinksReversed(t *testing.T) {
	h := newHarness(t)
	dir := linkTree(t)
	a := filepath.Join(dir, "a")
	symlink(t, "t/f", a)
	f := &FileRes{State: "exists", Content: strp("new\n"), Rare: &FileRare{Links: LinksReplace}}
	f.SetMetaParams(&engine.MetaParams{Reverse: true})
	newFile(t, h, a, f)
	checkApply(t, f, true, false)
	r, err := f.Reversed()
	if err != nil || r == nil {
		t.Fatalf("reversed: %v %v", r, err)
	}
	rev := r.(*FileRes)
	newFile(t, newHarness(t), a, rev)
	checkApply(t, rev, true, false)
	if readlink(t, a) != "t/f" {
		t.Fatal("the reversal did not put the link back")
	}
	assertTargets(t, dir)

	c := filepath.Join(dir, "c")
	symlink(t, "t/d", c)
	d := &FileRes{State: "exists", Rare: &FileRare{Links: LinksReplace}}
	d.SetMetaParams(&engine.MetaParams{Reverse: true})
	newFile(t, h, c+"/", d)
	applyFails(t, d, "Meta:reverse could not restore it", "a directory replacing a link under Meta:reverse")
	if readlink(t, c) != "t/d" {
		t.Fatal("the link was replaced")
	}
}

// TestFileLinksWatch: a link put at the path of a file that does not
// follow links is an event, and so the file is repaired.
func TestFileLinksWatch(t *testing.T) {
	h := newHarness(t)
	dir := linkTree(t)
	a := filepath.Join(dir, "a")
	f := newFile(t, h, a, &FileRes{State: "exists", Content: strp("new\n"), Rare: &FileRare{Links: LinksReplace}})
	checkApply(t, f, true, false)
	startWatch(t, h, f)
	expectEvent(t, h, "a link put at the path", func() {
		tmp := filepath.Join(dir, "tmp-link")
		symlink(t, "t/f", tmp)
		if err := os.Rename(tmp, a); err != nil {
			t.Fatal(err)
		}
	})
	checkApply(t, f, true, false)
	if fi, _ := os.Lstat(a); !fi.Mode().IsRegular() {
		t.Fatal("not repaired")
	}
	assertTargets(t, dir)
}

func TestFileLinksValidate(t *testing.T) {
	for _, tc := range []struct {
		f    *FileRes
		want string
	}{
		{&FileRes{Path: "/a", State: "exists", Rare: &FileRare{Links: "manage"}}, `must be "follow", "replace" or "keep"`},
		{&FileRes{Path: "/a", State: "exists", Rare: &FileRare{Symlink: true, Source: "x", Links: LinksKeep}}, "combined with symlink"},
		{&FileRes{Path: "/a", State: "exists", Content: strp("x"), Rare: &FileRare{Replace: boolp(false), Links: LinksReplace}}, "replace false"},
	} {
		tc.f.SetName(tc.f.Path)
		if err := tc.f.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.f.Rare, err, tc.want)
		}
	}
	for _, l := range []string{"", LinksFollow, LinksReplace, LinksKeep} {
		f := &FileRes{Path: "/a", State: "exists", Rare: &FileRare{Links: l}}
		f.SetName(f.Path)
		if err := f.Validate(); err != nil {
			t.Errorf("links %q: %v", l, err)
		}
	}
}

// TestFileLinksSource: a file that does not follow links refuses a source
// that is a symbolic link (Puppet would copy the link), and copies a
// regular source as before.
func TestFileLinksSource(t *testing.T) {
	h := newHarness(t)
	dir := linkTree(t)
	src := filepath.Join(dir, "src")
	symlink(t, "t/f", src)
	p := filepath.Join(dir, "copy")
	for _, l := range []string{LinksReplace, LinksKeep} {
		f := newFile(t, h, p, &FileRes{State: "exists", Rare: &FileRare{Source: src, Links: l}})
		applyFails(t, f, "is a symbolic link", "links "+l)
		if exists(p) {
			t.Fatal("the file was made")
		}
	}
	f := newFile(t, h, p, &FileRes{State: "exists", Rare: &FileRare{Source: filepath.Join(dir, "t", "f"), Links: LinksReplace}})
	checkApply(t, f, true, false)
	if mustRead(t, p) != "target\n" {
		t.Fatal("not copied")
	}
	follow := newFile(t, h, p, &FileRes{State: "exists", Rare: &FileRare{Source: src}})
	checkApply(t, follow, true, true)

	srcDir := filepath.Join(dir, "srcdir")
	symlink(t, "t/d", srcDir)
	d := newFile(t, h, filepath.Join(dir, "copydir")+"/", &FileRes{State: "exists", Rare: &FileRare{Source: srcDir + "/", Recurse: true, Links: LinksReplace}})
	applyFails(t, d, "is a symbolic link", "a directory source that is a link")
	if exists(filepath.Join(dir, "copydir", "inner")) {
		t.Fatal("the directory was copied")
	}
}

// TestFileLinksReplaceOthers: links "replace" also replaces a FIFO or a
// socket at a file's path, and, with symlink, a file at the link's path;
// a directory still needs force.
func TestFileLinksReplaceOthers(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, p := range []string{fifo, sock} {
		plain := newFile(t, h, p, &FileRes{State: "exists", Content: strp("new\n")})
		applyFails(t, plain, "", p+" replaced without links replace")
		f := newFile(t, h, p, &FileRes{State: "exists", Content: strp("new\n"), Rare: &FileRare{Links: LinksReplace}})
		checkApply(t, f, false, false)
		checkApply(t, f, true, false)
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() || mustRead(t, p) != "new\n" {
			t.Fatalf("%s: %v %v, want a regular file", p, fi, err)
		}
	}

	file := filepath.Join(dir, "file")
	mustWrite(t, file, "x")
	ln := newFile(t, h, file, &FileRes{State: "exists", Rare: &FileRare{Symlink: true, Source: "elsewhere", Links: LinksReplace}})
	checkApply(t, ln, true, false)
	if readlink(t, file) != "elsewhere" {
		t.Fatal("the file was not replaced by the link")
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	dl := newFile(t, h, sub, &FileRes{State: "exists", Rare: &FileRare{Symlink: true, Source: "elsewhere", Links: LinksReplace}})
	applyFails(t, dl, "set force", "a directory in the link's way")
}

// TestFileLinksKeepDirectory: with links "keep", a directory at a file's
// path is kept, given its owner, group and mode (an octal mode with
// search wherever it gives read), with state "exists" or "", as Puppet's
// ensure => present or no ensure do; without it the kind refuses.
func TestFileLinksKeepDirectory(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	d := filepath.Join(dir, "d")
	if err := os.Mkdir(d, 0o700); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(d, "inner"), "x")
	plain := newFile(t, h, d, &FileRes{State: "exists", Content: strp("new\n")})
	applyFails(t, plain, "", "a directory at a file's path accepted without links keep")
	f := newFile(t, h, d, &FileRes{State: "exists", Content: strp("new\n"), Mode: "0644", Rare: &FileRare{Links: LinksKeep}})
	checkApply(t, f, false, false)
	checkApply(t, f, true, false)
	checkApply(t, f, true, true)
	if fi, err := os.Lstat(d); err != nil || !fi.IsDir() || permOf(t, d) != 0o755 || mustRead(t, filepath.Join(d, "inner")) != "x" {
		t.Fatalf("%s: %v %v mode %04o, want the directory kept with mode 0755", d, fi, err, permOf(t, d))
	}
	if !strings.Contains(h.logged(), "kept the directory "+d+" (links keep): its content is not managed") {
		t.Fatalf("no log of the content left: %q", h.logged())
	}
	gone := newFile(t, h, d, &FileRes{State: "absent"})
	applyFails(t, gone, "", "state absent on a directory at a file's path accepted without links keep or force")
	kept := newFile(t, h, d, &FileRes{State: "absent", Rare: &FileRare{Links: LinksKeep}})
	checkApply(t, kept, true, true)
	if !exists(filepath.Join(d, "inner")) || !strings.Contains(h.logged(), "kept the directory "+d+" (links keep): set force to remove it") {
		t.Fatalf("the directory was not kept, or not logged: %q", h.logged())
	}
	g := newFile(t, h, d, &FileRes{Mode: "u=rwx,go=", Rare: &FileRare{Links: LinksKeep}})
	checkApply(t, g, true, false)
	if permOf(t, d) != 0o700 {
		t.Fatalf("mode %04o, want 0700", permOf(t, d))
	}
}

// applyFails checks that applying r fails with an error that contains
// want, naming what the case is.
func applyFails(t *testing.T, r *FileRes, want, what string) {
	t.Helper()
	if _, err := r.CheckApply(context.Background(), true); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("%s: got %v, want an error with %q", what, err, want)
	}
}
