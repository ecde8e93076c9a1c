package resources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileDirnameBasename applies files whose path is the name with its
// directory or last part replaced, and repairs drift at that path.
func TestFileDirnameBasename(t *testing.T) {
	h := newHarness(t)
	d := t.TempDir()
	other := filepath.Join(d, "other") + "/"
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}

	f := newFile(t, h, "/nowhere/motd", &FileRes{Rare: &FileRare{Dirname: other}, State: "exists", Content: strp("dir\n")})
	checkApply(t, f, true, false)
	if got := mustRead(t, other+"motd"); got != "dir\n" {
		t.Fatalf("dirname: content %q", got)
	}
	mustWrite(t, other+"motd", "drift")
	checkApply(t, f, true, false)
	if got := mustRead(t, other+"motd"); got != "dir\n" {
		t.Fatalf("dirname: drift not repaired: %q", got)
	}
	checkApply(t, f, true, true)

	g := newFile(t, h, filepath.Join(d, "label"), &FileRes{Rare: &FileRare{Basename: "real.conf"}, State: "exists", Content: strp("base\n")})
	checkApply(t, g, true, false)
	if got := mustRead(t, filepath.Join(d, "real.conf")); got != "base\n" || exists(filepath.Join(d, "label")) {
		t.Fatalf("basename: content %q, label exists %v", got, exists(filepath.Join(d, "label")))
	}

	// Both, on a directory: path's trailing slash goes with its last part.
	k := newFile(t, h, "/x/y/", &FileRes{Path: "/a/b/", Rare: &FileRare{Dirname: other, Basename: "sub/"}, State: "exists"})
	checkApply(t, k, true, false)
	if fi, err := os.Stat(other + "sub"); err != nil || !fi.IsDir() {
		t.Fatalf("dirname and basename: no directory %ssub", other)
	}
}

func TestFileDirnameBasenameRefused(t *testing.T) {
	for _, tt := range []struct {
		f    *FileRes
		want string
	}{
		{&FileRes{Rare: &FileRare{Dirname: "/etc"}}, `dirname "/etc" must be an absolute directory ending in /`},
		{&FileRes{Rare: &FileRare{Dirname: "etc/"}}, `dirname "etc/" must be an absolute directory ending in /`},
		{&FileRes{Rare: &FileRare{Basename: "/motd"}}, `basename "/motd" must not start with /`},
		{&FileRes{Rare: &FileRare{Dirname: "/etc/", Basename: "../motd"}}, `is not clean`},
	} {
		tt.f.SetKind("file")
		tt.f.SetName("/tmp/x")
		if err := tt.f.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want %s", tt.f, err, tt.want)
		}
	}
}

// TestCleanPathIsClean compares the managed path a file resource checks
// with filepath.Clean of its path, for every path of up to 8 bytes made of
// "/", "." and "a": whether its path is clean or not, the same one.
func TestCleanPathIsClean(t *testing.T) {
	const alphabet = "/.a"
	var walk func(p string)
	walk = func(p string) {
		obj := &FileRes{Path: p}
		if got, want := obj.cleanPath(), filepath.Clean(p); got != want {
			t.Errorf("cleanPath of %q = %q, filepath.Clean: %q", p, got, want)
		}
		if len(p) == 8 {
			return
		}
		for i := range alphabet {
			walk(p + alphabet[i:i+1])
		}
	}
	walk("")
}
