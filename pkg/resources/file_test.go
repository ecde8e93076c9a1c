package resources

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/engine"
)

func newFile(t testing.TB, h *harness, name string, f *FileRes) *FileRes {
	t.Helper()
	return setup(t, h, "file", name, f).(*FileRes)
}

func TestFileCreateWithContent(t *testing.T) {
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "f")
	f := newFile(t, h, p, &FileRes{State: "exists", Content: strp("hello\n")})
	checkApply(t, f, false, false) // noop: would create
	if exists(p) {
		t.Fatal("apply=false created the file")
	}
	checkApply(t, f, true, false)
	if got := mustRead(t, p); got != "hello\n" {
		t.Fatalf("content %q", got)
	}
	if perm := permOf(t, p); perm != 0o644 {
		t.Fatalf("new file mode %04o, want 0644", perm)
	}
	checkApply(t, f, true, true) // paired execution finds it right
	if !strings.Contains(h.logged(), "created") {
		t.Fatalf("log %q does not say created", h.logged())
	}
}

// TestFileContentWithoutStateDoesNotCreate: with state "" the file is not
// made; content aimed at a missing file is an error (never a silent
// success), in noop mode too, and applies once the file is there. Mode
// alone on a missing file is nothing to do.
func TestFileContentWithoutStateDoesNotCreate(t *testing.T) {
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "f")
	f := newFile(t, h, p, &FileRes{Content: strp("x"), Mode: "0600"})
	for _, apply := range []bool{false, true} {
		_, err := f.CheckApply(context.Background(), apply)
		if err == nil || !strings.Contains(err.Error(), "does not exist, and its content is managed without state \"exists\"") {
			t.Fatalf("apply %v: error %v, want one about the missing file", apply, err)
		}
	}
	if exists(p) {
		t.Fatal("content without state exists created the file")
	}
	checkApply(t, newFile(t, h, p, &FileRes{Mode: "0600"}), true, true)
	mustWrite(t, p, "old")
	checkApply(t, f, true, false)
	if got := mustRead(t, p); got != "x" {
		t.Fatalf("content %q, want x", got)
	}
	if perm := permOf(t, p); perm != 0o600 {
		t.Fatalf("mode %04o, want 0600", perm)
	}
	checkApply(t, f, true, true)
}

func TestFileContentRepairKeepsMode(t *testing.T) {
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "f")
	mustWrite(t, p, "old content")
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	f := newFile(t, h, p, &FileRes{Content: strp("new content")}) // same size
	checkApply(t, f, false, false)
	if got := mustRead(t, p); got != "old content" {
		t.Fatal("apply=false changed the content")
	}
	checkApply(t, f, true, false)
	if got := mustRead(t, p); got != "new content" {
		t.Fatalf("content %q", got)
	}
	if perm := permOf(t, p); perm != 0o640 {
		t.Fatalf("rewriting changed the mode to %04o", perm)
	}
	if tmp := tempFiles(t, filepath.Dir(p)); len(tmp) > 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
}

func TestFileModes(t *testing.T) {
	for _, tc := range []struct {
		mode  string
		start uint32
		want  uint32
	}{
		{"0600", 0o644, 0o600},
		{"755", 0o644, 0o755},
		{"u=rw,go=r", 0o777, 0o644},
		{"a+x", 0o644, 0o755},
		{"g-w,o=", 0o777, 0o750},
		{"u+s", 0o755, 0o4755},
		{"go=u", 0o700, 0o777},
		{"a+X", 0o644, 0o644},
		{"a+X", 0o744, 0o755},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			h := newHarness(t)
			p := filepath.Join(t.TempDir(), "f")
			mustWrite(t, p, "")
			if err := os.Chmod(p, os.FileMode(tc.start)); err != nil {
				t.Fatal(err)
			}
			f := newFile(t, h, p, &FileRes{Mode: tc.mode})
			checkApply(t, f, true, tc.start == tc.want)
			if got := permOf(t, p); got != tc.want {
				t.Fatalf("mode %s on %04o gave %04o, want %04o", tc.mode, tc.start, got, tc.want)
			}
			checkApply(t, f, true, true)
		})
	}
}

func TestParseModeErrors(t *testing.T) {
	for _, s := range []string{"", "0999", "77777", "u", "u=rwq", "z+x", "u+x,", "u=rg"} {
		if _, err := parseMode(s); err == nil {
			t.Errorf("parseMode(%q) accepted", s)
		}
	}
}

func TestFileDirectory(t *testing.T) {
	h := newHarness(t)
	d := filepath.Join(t.TempDir(), "d") + "/"
	f := newFile(t, h, d, &FileRes{State: "exists", Mode: "0750"})
	checkApply(t, f, true, false)
	fi, err := os.Stat(d)
	if err != nil || !fi.IsDir() {
		t.Fatalf("directory not created: %v", err)
	}
	if perm := permOf(t, d); perm != 0o750 {
		t.Fatalf("mode %04o", perm)
	}
	checkApply(t, f, true, true)
}

func TestFileAbsent(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	mustWrite(t, p, "x")
	f := newFile(t, h, p, &FileRes{State: "absent"})
	checkApply(t, f, false, false)
	if !exists(p) {
		t.Fatal("apply=false removed the file")
	}
	checkApply(t, f, true, false)
	if exists(p) {
		t.Fatal("not removed")
	}
	checkApply(t, f, true, true)

	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(filepath.Join(sub, "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	d := newFile(t, h, sub+"/", &FileRes{State: "absent"})
	if _, err := d.CheckApply(context.Background(), true); err == nil || !strings.Contains(err.Error(), "recurse") {
		t.Fatalf("removing a non-empty directory without recurse: got %v", err)
	}
	d = newFile(t, h, sub+"/", &FileRes{State: "absent", Rare: &FileRare{Recurse: true}})
	checkApply(t, d, true, false)
	if exists(sub) {
		t.Fatal("directory not removed")
	}
}

func TestFileForce(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "x")
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	f := newFile(t, h, p, &FileRes{State: "exists", Content: strp("c")})
	if _, err := f.CheckApply(context.Background(), true); err == nil || !strings.Contains(err.Error(), "force") {
		t.Fatalf("replacing a directory without force: got %v", err)
	}
	f = newFile(t, h, p, &FileRes{State: "exists", Content: strp("c"), Rare: &FileRare{Force: true}})
	checkApply(t, f, true, false)
	if got := mustRead(t, p); got != "c" {
		t.Fatalf("content %q", got)
	}
	d := newFile(t, h, p+"/", &FileRes{State: "exists", Rare: &FileRare{Force: true}})
	checkApply(t, d, true, false)
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		t.Fatal("file not replaced by a directory")
	}
}

func TestFileSource(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	mustWrite(t, src, "from source")
	p := filepath.Join(dir, "dst")
	f := newFile(t, h, p, &FileRes{State: "exists", Rare: &FileRare{Source: src}})
	checkApply(t, f, true, false)
	if got := mustRead(t, p); got != "from source" {
		t.Fatalf("content %q", got)
	}
	checkApply(t, f, true, true)
	mustWrite(t, src, "changed source")
	checkApply(t, f, true, false)
	if got := mustRead(t, p); got != "changed source" {
		t.Fatalf("content %q", got)
	}
}

func TestFileSourceDirectory(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(filepath.Join(src, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(src, "top"), "1")
	mustWrite(t, filepath.Join(src, "a", "b", "deep"), "2")
	if err := os.Symlink("top", filepath.Join(src, "link")); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "dst")

	shallow := newFile(t, h, dst+"/", &FileRes{State: "exists", Rare: &FileRare{Source: src + "/"}})
	checkApply(t, shallow, true, false)
	if got := mustRead(t, filepath.Join(dst, "top")); got != "1" {
		t.Fatalf("top %q", got)
	}
	if exists(filepath.Join(dst, "a")) {
		t.Fatal("copied a subdirectory without recurse")
	}
	checkApply(t, shallow, true, true)

	deep := newFile(t, h, dst+"/", &FileRes{State: "exists", Rare: &FileRare{Source: src + "/", Recurse: true}})
	checkApply(t, deep, true, false)
	if got := mustRead(t, filepath.Join(dst, "a", "b", "deep")); got != "2" {
		t.Fatalf("deep %q", got)
	}
	if l, err := os.Readlink(filepath.Join(dst, "link")); err != nil || l != "top" {
		t.Fatalf("link %q, %v", l, err)
	}
	checkApply(t, deep, true, true)
}

func TestFileRecurseAttrs(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(filepath.Join(src, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(src, "top"), "1")
	mustWrite(t, filepath.Join(src, "sub", "deep"), "2")
	if err := os.Chmod(filepath.Join(src, "top"), 0o600); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "dst")
	f := &FileRes{State: "exists", Rare: &FileRare{Source: src + "/", Recurse: true}, Mode: "0640"}
	owned := os.Geteuid() == 0
	if owned {
		f.Owner, f.Group = "nobody", "0"
	}
	f = newFile(t, h, dst+"/", f)
	checkApply(t, f, true, false)
	// Files get the mode; the directories, the managed one included, also
	// get search where they get read (as in Puppet).
	want := map[string]uint32{"top": 0o640, "sub/deep": 0o640, "sub": 0o750, "": 0o750}
	check := func() {
		t.Helper()
		for p, m := range want {
			if got := permOf(t, filepath.Join(dst, p)); got != m {
				t.Errorf("%s: mode %04o, want %04o", p, got, m)
			}
			if owned {
				fi, _ := os.Lstat(filepath.Join(dst, p))
				if st := fi.Sys().(*syscall.Stat_t); st.Uid == 0 || st.Gid != 0 {
					t.Errorf("%s: owner %d:%d, want nobody:0", p, st.Uid, st.Gid)
				}
			}
		}
	}
	check()
	checkApply(t, f, true, true)

	// Drift below the directory is repaired by a chmod, not a rewrite.
	deep := filepath.Join(dst, "sub", "deep")
	before, _ := os.Stat(deep)
	if err := os.Chmod(deep, 0o777); err != nil {
		t.Fatal(err)
	}
	if owned {
		os.Lchown(deep, 0, 0)
	}
	checkApply(t, f, false, false)
	checkApply(t, f, true, false)
	check()
	if after, _ := os.Stat(deep); !os.SameFile(before, after) {
		t.Error("the file was rewritten for a mode change")
	}
	checkApply(t, f, true, true)

	// Without a source, recurse gives the existing tree the mode.
	tree := filepath.Join(dir, "tree")
	if err := os.MkdirAll(filepath.Join(tree, "a", "b"), 0o700); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(tree, "a", "b", "c"), "x")
	if err := os.Symlink("a", filepath.Join(tree, "link")); err != nil {
		t.Fatal(err)
	}
	g := newFile(t, h, tree+"/", &FileRes{Rare: &FileRare{Recurse: true}, Mode: "go+rX"})
	checkApply(t, g, true, false)
	for p, m := range map[string]uint32{"": 0o755, "a": 0o755, "a/b": 0o755, "a/b/c": 0o644} {
		if got := permOf(t, filepath.Join(tree, p)); got != m {
			t.Errorf("tree/%s: mode %04o, want %04o", p, got, m)
		}
	}
	checkApply(t, g, true, true)
	// A shallow copy (no recurse) keeps the source's bits, and the
	// directory gets its mode as written.
	s := newFile(t, h, filepath.Join(dir, "shallow")+"/", &FileRes{State: "exists", Rare: &FileRare{Source: src + "/"}, Mode: "0744"})
	checkApply(t, s, true, false)
	if got := permOf(t, filepath.Join(dir, "shallow", "top")); got != 0o600 {
		t.Errorf("shallow copy: mode %04o, want the source's 0600", got)
	}
	if got := permOf(t, filepath.Join(dir, "shallow")); got != 0o744 {
		t.Errorf("shallow copy's directory: mode %04o, want 0744 as written", got)
	}
}

func TestFileFragments(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	frag := filepath.Join(dir, "frag.d")
	if err := os.Mkdir(frag, 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "head"), "head\n")
	mustWrite(t, filepath.Join(frag, "20-b"), "b\n")
	mustWrite(t, filepath.Join(frag, "10-a"), "a\n")
	p := filepath.Join(dir, "out")
	f := newFile(t, h, p, &FileRes{State: "exists", Rare: &FileRare{Fragments: []string{filepath.Join(dir, "head"), frag + "/"}}})
	checkApply(t, f, true, false)
	if got := mustRead(t, p); got != "head\na\nb\n" {
		t.Fatalf("content %q", got)
	}
	checkApply(t, f, true, true)
}

func TestFileOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		testneed.Missing(t, "needs root to change owners")
	}
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "f")
	f := newFile(t, h, p, &FileRes{State: "exists", Owner: "nobody", Group: "0"})
	checkApply(t, f, true, false)
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	_, uid, gid := statBits(fi)
	want, _ := lookupUID("nobody")
	if uid != want || gid != 0 {
		t.Fatalf("owner %d:%d, want %d:0", uid, gid, want)
	}
	checkApply(t, f, true, true)
	if err := os.Lchown(p, 0, 0); err != nil {
		t.Fatal(err)
	}
	checkApply(t, f, true, false)
	bad := newFile(t, h, p, &FileRes{Owner: "no-such-user-here"})
	if _, err := bad.CheckApply(context.Background(), true); err == nil {
		t.Fatal("unknown user accepted")
	}
}

func TestFileCancelledWriteLeavesNothing(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	mustWrite(t, p, "original")
	big := strings.Repeat("x", 8<<20)
	f := newFile(t, h, p, &FileRes{Content: &big})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.CheckApply(ctx, true); err == nil {
		t.Fatal("CheckApply with a cancelled context succeeded")
	}
	if got := mustRead(t, p); got != "original" {
		t.Fatal("cancelled write changed the file")
	}
	if tmp := tempFiles(t, dir); len(tmp) > 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
}

func TestFileValidate(t *testing.T) {
	c := strp("x")
	for _, tc := range []struct {
		name string
		f    *FileRes
		want string
	}{
		{"relative", &FileRes{}, "absolute"},
		{"/a/../b", &FileRes{}, "not clean"},
		{"/a", &FileRes{State: "present"}, "state"},
		{"/a", &FileRes{State: "absent", Content: c}, "absent"},
		{"/a", &FileRes{Content: c, Rare: &FileRare{Source: "/b"}}, "exclusive"},
		{"/a/", &FileRes{Content: c}, "directory"},
		{"/a/", &FileRes{Rare: &FileRare{Source: "/b"}}, "source of a directory"},
		{"/a", &FileRes{Rare: &FileRare{Source: "/b/"}}, "source of a file"},
		{"/a", &FileRes{Mode: "rwx"}, "mode"},
		{"/", &FileRes{State: "absent", Rare: &FileRare{Recurse: true}}, "refusing"},
		{"/a", &FileRes{Rare: &FileRare{Fragments: []string{"rel"}}}, "fragment"},
		{"/a\x00b", &FileRes{State: "exists"}, `path "/a\x00b" holds a NUL byte`},
		{"/a", &FileRes{Rare: &FileRare{Source: "/b\x00"}}, "NUL byte"},
		{"/a", &FileRes{Rare: &FileRare{Fragments: []string{"/f\x00"}}}, "NUL byte"},
	} {
		f := tc.f
		f.SetName(tc.name)
		err := f.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error about %q", tc.name, err, tc.want)
		}
	}
	ok := &FileRes{Path: "/x/y/", State: "exists", Mode: "u=rwx,go=rx"}
	ok.SetName("anything")
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestFileWatch(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "f")
	f := newFile(t, h, p, &FileRes{State: "exists", Content: strp("x")})
	startWatch(t, h, f)
	expectEvent(t, h, "parent created", func() { os.Mkdir(filepath.Join(dir, "sub"), 0o755) })
	expectEvent(t, h, "created", func() { checkApply(t, f, true, false) })
	expectEvent(t, h, "edited", func() { mustWrite(t, p, "y") })
	expectEvent(t, h, "chmod", func() { os.Chmod(p, 0o600) })
	expectEvent(t, h, "deleted", func() { os.Remove(p) })
	expectEvent(t, h, "parent deleted", func() { os.Remove(filepath.Join(dir, "sub")) })
}

func TestFileWatchSourceAndFragments(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	mustWrite(t, src, "s")
	f := newFile(t, h, filepath.Join(dir, "dst"), &FileRes{Rare: &FileRare{Source: src}})
	startWatch(t, h, f)
	expectEvent(t, h, "source edited", func() { mustWrite(t, src, "t") })

	h2 := newHarness(t)
	frag := filepath.Join(dir, "frag.d")
	os.Mkdir(frag, 0o755)
	g := newFile(t, h2, filepath.Join(dir, "out"), &FileRes{Rare: &FileRare{Fragments: []string{frag + "/"}}})
	startWatch(t, h2, g)
	expectEvent(t, h2, "fragment added", func() { mustWrite(t, filepath.Join(frag, "x"), "x") })
}

func TestFileReversed(t *testing.T) {
	dir := t.TempDir()
	newPath := filepath.Join(dir, "new")
	oldPath := filepath.Join(dir, "old")
	mustWrite(t, oldPath, "before")
	if err := os.Chmod(oldPath, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path  string
		res   *FileRes
		check func()
	}{
		{newPath, &FileRes{State: "exists", Content: strp("made by us")}, func() {
			if exists(newPath) {
				t.Fatal("reversal did not remove the created file")
			}
		}},
		{oldPath, &FileRes{Content: strp("after"), Mode: "0644"}, func() {
			if got := mustRead(t, oldPath); got != "before" {
				t.Fatalf("reversal left content %q", got)
			}
			if perm := permOf(t, oldPath); perm != 0o600 {
				t.Fatalf("reversal left mode %04o", perm)
			}
		}},
	} {
		h := newHarness(t)
		tc.res.SetMetaParams(&engine.MetaParams{Reverse: true})
		f := newFile(t, h, tc.path, tc.res)
		if r, err := f.Reversed(); err != nil || r != nil {
			t.Fatalf("reversal before any change: %v, %v", r, err)
		}
		checkApply(t, f, true, false)

		// A new instance (as after a restart) finds the saved state.
		again := &FileRes{}
		again.SetMetaParams(&engine.MetaParams{Reverse: true})
		again = newFile(t, h, tc.path, again)
		r, err := again.Reversed()
		if err != nil || r == nil {
			t.Fatalf("%s: reversed: %v, %v", tc.path, r, err)
		}
		if r.MetaParams().Reverse {
			t.Fatal("the reversal is itself reversible")
		}
		rev := setup(t, newHarness(t), "file", tc.path, r)
		checkApply(t, rev, true, false)
		tc.check()
		checkApply(t, rev, true, true)
	}
}

func TestFileAutoEdges(t *testing.T) {
	f := &FileRes{Owner: "www", Group: "web", Rare: &FileRare{Fragments: []string{"/frag/head", "/frag/parts/"}}}
	f.SetKind("file")
	f.SetName("/a/b/c")
	ae, err := f.AutoEdges()
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	found := map[string]bool{"/a": true}
	for {
		uids := ae.Next()
		if len(uids) == 0 {
			break
		}
		res := make([]bool, len(uids))
		for i, u := range uids {
			asked = append(asked, u.GetKind()+":"+u.GetName())
			res[i] = found[u.GetName()]
		}
		if !ae.Test(res) {
			break
		}
	}
	if got := strings.Join(asked, " "); got != "file:/frag/head file:/frag/parts user:www group:web file:/a/b file:/a" {
		t.Fatalf("asked %q", got)
	}
	d := &FileRes{}
	d.SetName("/a/")
	uid := d.UIDs()[0]
	if uid.GetName() != "/a" || !newFileUID("/a/", false).IFF(uid) || newFileUID("/b", false).IFF(uid) {
		t.Fatalf("directory UID %v does not match its path", uid)
	}
}

func TestFileCmp(t *testing.T) {
	a := &FileRes{Path: "/x", Content: strp("1"), Mode: "0644"}
	b := &FileRes{Path: "/x", Content: strp("1"), Mode: "0644"}
	if err := a.Cmp(b); err != nil {
		t.Fatal(err)
	}
	b.Content = strp("2")
	if a.Cmp(b) == nil {
		t.Fatal("different content compares equal")
	}
	b.Content = nil
	if a.Cmp(b) == nil {
		t.Fatal("absent content compares equal to set content")
	}
	if a.Cmp(&NoopRes{}) == nil {
		t.Fatal("a file compares equal to a noop")
	}
}

func TestFileFollowsSymlink(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	mustWrite(t, target, "old")
	link := filepath.Join(dir, "link")
	if err := os.Symlink("target", link); err != nil {
		t.Fatal(err)
	}
	f := newFile(t, h, link, &FileRes{Content: strp("new"), Mode: "0600"})
	checkApply(t, f, true, false)
	if got := mustRead(t, target); got != "new" {
		t.Fatalf("target content %q", got)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced")
	}
	if perm := permOf(t, target); perm != 0o600 {
		t.Fatalf("target mode %04o", perm)
	}
	checkApply(t, f, true, true)
	startWatch(t, h, f)
	expectEvent(t, h, "target edited", func() { mustWrite(t, target, "drift") })

	ddir := filepath.Join(dir, "realdir")
	os.Mkdir(ddir, 0o755)
	dlink := filepath.Join(dir, "dirlink")
	os.Symlink(ddir, dlink)
	d := newFile(t, h, dlink+"/", &FileRes{State: "exists", Mode: "0700"})
	checkApply(t, d, true, false)
	if perm := permOf(t, ddir); perm != 0o700 {
		t.Fatalf("directory target mode %04o", perm)
	}

	gone := newFile(t, h, link, &FileRes{State: "absent"})
	checkApply(t, gone, true, false)
	if exists(link) || !exists(target) {
		t.Fatal("absent must remove the link itself, not its target")
	}
}

func TestFileLongName(t *testing.T) {
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), strings.Repeat("n", 250))
	f := newFile(t, h, p, &FileRes{State: "exists", Content: strp("x")})
	checkApply(t, f, true, false)
	if got := mustRead(t, p); got != "x" {
		t.Fatalf("content %q", got)
	}
}

func TestFileMissingParent(t *testing.T) {
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "no", "such", "f")
	f := newFile(t, h, p, &FileRes{State: "exists"})
	_, err := f.CheckApply(context.Background(), true)
	if err == nil || !strings.Contains(err.Error(), "does not exist") || strings.Contains(err.Error(), tmpMarker) {
		t.Fatalf("got %v", err)
	}
}

func TestFileAbsentKindMismatch(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "x")
	mustWrite(t, p, "a file")
	d := newFile(t, h, p+"/", &FileRes{State: "absent"})
	if _, err := d.CheckApply(context.Background(), true); err == nil || !strings.Contains(err.Error(), "force") {
		t.Fatalf("removing a file through a directory resource without force: got %v", err)
	}
	d = newFile(t, h, p+"/", &FileRes{State: "absent", Rare: &FileRare{Force: true}})
	checkApply(t, d, true, false)
	if exists(p) {
		t.Fatal("not removed with force")
	}
}

func TestFileSweepsStaleTemps(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, ".f"+tmpMarker+"123")
	fresh := filepath.Join(dir, ".f"+tmpMarker+"456")
	mustWrite(t, stale, "left by a killed process")
	mustWrite(t, fresh, "a write in progress")
	lockTemp(t, fresh) // as its live writer does
	newFile(t, newHarness(t), filepath.Join(dir, "f"), &FileRes{State: "exists"})
	if exists(stale) {
		t.Fatal("stale temporary file kept")
	}
	if !exists(fresh) {
		t.Fatal("temporary file being written removed")
	}
}

// TestFileRemovedDuringCheck removes the managed file over and over while
// CheckApply runs: a file that vanishes mid-check is drift to repair, not
// an error.
func TestFileRemovedDuringCheck(t *testing.T) {
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "f")
	content := "managed\n"
	f := newFile(t, h, p, &FileRes{State: "exists", Content: &content, Mode: "0640"})
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				os.WriteFile(p, []byte("drift"), 0o600)
				os.Remove(p)
			}
		}
	}()
	for i := 0; i < 3000; i++ {
		if _, err := f.CheckApply(context.Background(), true); err != nil {
			close(stop)
			<-done
			t.Fatalf("run %d: %v", i, err)
		}
	}
	close(stop)
	<-done
	os.Remove(p)
	checkApply(t, f, true, false)
	checkApply(t, f, true, true)
	if got := mustRead(t, p); got != content {
		t.Fatalf("content %q", got)
	}
}

// TestFileSourceNotRegular: a source or a fragment that is a FIFO, a
// device or a socket fails the resource at once, the file untouched: read
// whole, /dev/zero took all of the host's memory and a FIFO without a
// writer hung the check for ever.
func TestFileSourceNotRegular(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i, c := range []struct {
		rare *FileRare
		want string
	}{
		{&FileRare{Source: "/dev/zero"}, "source: /dev/zero is not a regular file but a device"},
		{&FileRare{Source: fifo}, "source: " + fifo + " is not a regular file but a FIFO"},
		{&FileRare{Source: fifo, Links: LinksKeep}, "source: " + fifo + " is not a regular file but a FIFO"},
		{&FileRare{Source: sock}, "source: open " + sock + ": no such device or address"},
		{&FileRare{Fragments: []string{"/dev/zero"}}, "fragment: /dev/zero is not a regular file but a device"},
		{&FileRare{Fragments: []string{fifo}}, "fragment: " + fifo + " is not a regular file but a FIFO"},
	} {
		p := filepath.Join(dir, fmt.Sprint("out", i))
		mustWrite(t, p, "before\n")
		f := newFile(t, h, p, &FileRes{State: "exists", Rare: c.rare})
		_, err := f.CheckApply(context.Background(), true)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.rare, err, c.want)
		}
		if got := mustRead(t, p); got != "before\n" {
			t.Errorf("%+v: the file now holds %q", c.rare, got)
		}
	}
}
