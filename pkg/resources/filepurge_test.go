package resources

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// tree lists every entry below dir, relative, directories with a slash.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// TestFilePurge: below a purging directory, what other resources manage
// stays (their parents too, the tree of a recursive directory whole), the
// rest goes: files, directories with their content, entries of another
// user; a link out of the tree goes as a link, its target stays.
func TestFilePurge(t *testing.T) {
	h := newHarness(t)
	d := t.TempDir()
	outside := t.TempDir()
	mustWrite(t, filepath.Join(outside, "precious"), "keep me")
	for _, dir := range []string{"a/b", "managed-tree/x", "junkdir/deep/er", "victim"} {
		if err := os.MkdirAll(filepath.Join(d, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"keep", "a/b/leaf", "a/b/stray", "a/stray", "managed-tree/x/y", "junk", "junkdir/deep/er/f", "conf"} {
		mustWrite(t, filepath.Join(d, f), f)
	}
	if err := os.Symlink(outside, filepath.Join(d, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(d, "victim", "link")); err != nil {
		t.Fatal(err)
	}
	// an entry of another user, in a directory only that user may enter
	os.Mkdir(filepath.Join(d, "nobodys"), 0o700)
	mustWrite(t, filepath.Join(d, "nobodys", "f"), "x")
	for _, p := range []string{"nobodys", "nobodys/f"} {
		if err := os.Lchown(filepath.Join(d, p), 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	others := []engine.Res{
		&FileRes{Path: filepath.Join(d, "keep"), State: "exists"},
		&FileRes{Path: filepath.Join(d, "a/b/leaf"), State: "exists"},
		&FileRes{Path: filepath.Join(d, "managed-tree") + "/", State: "exists", Rare: &FileRare{Recurse: true}},
		&LineRes{File: filepath.Join(d, "conf"), State: "exists", Content: "x"},
		&FileRes{Path: filepath.Join(d, "not-there-yet"), State: "exists"},
	}
	p := newFile(t, h, d+"/", &FileRes{State: "exists", Rare: &FileRare{Recurse: true, Purge: true}})
	h.graph = append(others, p)
	before := tree(t, d)
	checkApply(t, p, false, false)
	if tree(t, d) != before {
		t.Fatal("apply=false removed entries")
	}
	checkApply(t, p, true, false)
	want := "a/ a/b/ a/b/leaf conf keep managed-tree/ managed-tree/x/ managed-tree/x/y"
	if got := tree(t, d); got != want {
		t.Fatalf("after the purge:\n got %s\nwant %s", got, want)
	}
	if mustRead(t, filepath.Join(outside, "precious")) != "keep me" {
		t.Fatal("the target of a link was touched")
	}
	checkApply(t, p, true, true)
	startWatch(t, h, p)
	expectEvent(t, h, "a new entry deep below", func() { mustWrite(t, filepath.Join(d, "a/b/new"), "x") })
	checkApply(t, p, true, false)
	if exists(filepath.Join(d, "a/b/new")) {
		t.Fatal("drift not purged")
	}
}

// TestFilePurgeSource: with a source, what the source has stays; the rest
// goes.
func TestFilePurgeSource(t *testing.T) {
	h := newHarness(t)
	src, d := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(src, "sub"), 0o755)
	mustWrite(t, filepath.Join(src, "sub", "a"), "a")
	mustWrite(t, filepath.Join(src, "b"), "b")
	os.Mkdir(filepath.Join(d, "sub"), 0o755)
	mustWrite(t, filepath.Join(d, "sub", "old"), "x")
	mustWrite(t, filepath.Join(d, "old"), "x")
	p := newFile(t, h, d+"/", &FileRes{State: "exists", Rare: &FileRare{Recurse: true, Purge: true, Source: src + "/"}})
	h.graph = []engine.Res{p}
	checkApply(t, p, true, false)
	if got := tree(t, d); got != "b sub/ sub/a" {
		t.Fatalf("got %s", got)
	}
	checkApply(t, p, true, true)
}

// TestFilePurgeNeedsGraph: without the engine's view of the graph, purge
// removes nothing.
func TestFilePurgeNeedsGraph(t *testing.T) {
	d := t.TempDir()
	mustWrite(t, filepath.Join(d, "f"), "x")
	p := &FileRes{Path: d + "/", State: "exists", Rare: &FileRare{Recurse: true, Purge: true}}
	p.SetName(p.Path)
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	init := newHarness(t).init()
	init.Graph = nil
	if err := p.Init(init); err != nil {
		t.Fatal(err)
	}
	if _, err := p.CheckApply(t.Context(), true); err == nil || !exists(filepath.Join(d, "f")) {
		t.Fatalf("purged without a graph: %v", err)
	}
	for _, bad := range []*FileRes{
		{Path: "/d", State: "exists", Rare: &FileRare{Recurse: true, Purge: true}},
		{Path: "/d/", State: "exists", Rare: &FileRare{Purge: true}},
	} {
		bad.SetName(bad.Path)
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	rev := &FileRes{Path: "/d/", State: "exists", Rare: &FileRare{Recurse: true, Purge: true}}
	rev.SetName("/d/")
	rev.SetMetaParams(&engine.MetaParams{Reverse: true})
	if rev.Validate() == nil {
		t.Error("purge with Meta:reverse accepted")
	}
}

// TestFilePurgeKeepDirs: with purge_dirs false, the directories nothing
// manages stay, emptied of their files and links at every depth, as
// Puppet's purge leaves them without force; a link to a directory goes
// as a link.
func TestFilePurgeKeepDirs(t *testing.T) {
	h := newHarness(t)
	d := t.TempDir()
	outside := t.TempDir()
	mustWrite(t, filepath.Join(outside, "precious"), "keep me")
	for _, dir := range []string{"old/deeper/empty", "sub"} {
		if err := os.MkdirAll(filepath.Join(d, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"stale", "old/x", "old/deeper/y", "sub/keep"} {
		mustWrite(t, filepath.Join(d, f), f)
	}
	if err := os.Symlink(outside, filepath.Join(d, "old", "dirlink")); err != nil {
		t.Fatal(err)
	}
	p := newFile(t, h, d+"/", &FileRes{State: "exists", Rare: &FileRare{Recurse: true, Purge: true, PurgeDirs: boolp(false)}})
	h.graph = []engine.Res{p, &FileRes{Path: filepath.Join(d, "sub", "keep"), State: "exists"}}
	checkApply(t, p, false, false)
	checkApply(t, p, true, false)
	if got, want := tree(t, d), "old/ old/deeper/ old/deeper/empty/ sub/ sub/keep"; got != want {
		t.Fatalf("after the purge:\n got %s\nwant %s", got, want)
	}
	if mustRead(t, filepath.Join(outside, "precious")) != "keep me" {
		t.Fatal("the target of a link was touched")
	}
	checkApply(t, p, true, true)

	bad := &FileRes{Path: "/a/", State: "exists", Rare: &FileRare{Recurse: true, PurgeDirs: boolp(false)}}
	bad.SetName(bad.Path)
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "purge_dirs is for a directory with purge") {
		t.Fatalf("purge_dirs without purge: %v", err)
	}
}
