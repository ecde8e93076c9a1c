package resources

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func boolp(b bool) *bool { return &b }

// TestFileReplaceFalse: the content is written into a new file only; an
// existing file keeps it while its mode is kept right, and a directory or
// a link at the path is left as it is (the link not followed).
func TestFileReplaceFalse(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	f := newFile(t, h, p, &FileRes{State: "exists", Content: strp("new\n"), Mode: "0640", Rare: &FileRare{Replace: boolp(false)}})
	checkApply(t, f, false, false)
	checkApply(t, f, true, false)
	if got, perm := mustRead(t, p), permOf(t, p); got != "new\n" || perm != 0o640 {
		t.Fatalf("created %q mode %04o", got, perm)
	}
	checkApply(t, f, true, true)
	mustWrite(t, p, "edited by hand\n")
	checkApply(t, f, true, true)
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	checkApply(t, f, true, false)
	if got, perm := mustRead(t, p), permOf(t, p); got != "edited by hand\n" || perm != 0o640 {
		t.Fatalf("kept %q mode %04o, want the edited content and 0640", got, perm)
	}

	target := filepath.Join(dir, "target")
	mustWrite(t, target, "target\n")
	link := filepath.Join(dir, "l")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "d")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{link, sub} {
		plain := newFile(t, h, q, &FileRes{State: "exists", Content: strp("new\n"), Rare: &FileRare{Force: true, Replace: boolp(false)}})
		checkApply(t, plain, true, true)
		withMode := newFile(t, h, q, &FileRes{State: "exists", Content: strp("new\n"), Mode: "0600", Rare: &FileRare{Replace: boolp(false)}})
		if _, err := withMode.CheckApply(context.Background(), true); err == nil || !strings.Contains(err.Error(), "replace false leaves it") {
			t.Errorf("%s: got %v, want a refusal to manage its mode", q, err)
		}
	}
	if l, err := os.Readlink(link); err != nil || l != target || mustRead(t, target) != "target\n" {
		t.Fatalf("the link or its target changed: %q %v", l, err)
	}
	if fi, err := os.Lstat(sub); err != nil || !fi.IsDir() || permOf(t, sub) != 0o755 {
		t.Fatalf("the directory changed: %v %v", fi, err)
	}
}

// TestFileReplaceFalseValidate: replace false is for a file that is kept.
func TestFileReplaceFalseValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    *FileRes
		want string
	}{
		{"/a/", &FileRes{State: "exists"}, "not a directory"},
		{"/a", &FileRes{State: "exists", Rare: &FileRare{Symlink: true, Source: "/b"}}, "not a symlink"},
		{"/a", &FileRes{State: "absent"}, "state absent"},
	} {
		tc.f.setRare().Replace = boolp(false)
		tc.f.SetName(tc.name)
		if err := tc.f.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error about %q", tc.name, err, tc.want)
		}
	}
}

// TestFileSELParts: the parts of a context are ignored where SELinux
// does not run, and make the resource fail where it runs or may run.
func TestFileSELParts(t *testing.T) {
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "f")
	for _, tc := range []struct {
		on   func() error
		want string // "" for an exact apply
	}{
		{func() error { return errNoSELinux }, ""},
		{func() error { return nil }, "seltype, selrange: SELinux runs on this host"},
		{func() error { return errors.New("cannot tell") }, "seltype, selrange: cannot tell"},
	} {
		os.Remove(p)
		f := newFile(t, h, p, &FileRes{State: "exists", Content: strp("x"), Rare: &FileRare{SELType: strp("etc_t"), SELRange: strp("s0")}, x: &fileExtra{uid: -1, gid: -1, selinuxOn: tc.on}})
		_, err := f.CheckApply(context.Background(), true)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("without SELinux: %v", err)
		case tc.want == "" && mustRead(t, p) != "x":
			t.Error("without SELinux the file was not written")
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("got %v, want %q", err, tc.want)
		case tc.want != "" && exists(p):
			t.Error("a refused resource wrote the file")
		}
	}
	if selinuxPresent() != nil && !errors.Is(selinuxPresent(), errNoSELinux) {
		t.Errorf("this host's check: %v", selinuxPresent())
	}
}
