package system

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestDpkgListCache checks that the arch-qualified lists of dpkg's info
// directory are found, kept while the directory is unchanged, and read
// again once it changes.
func TestDpkgListCache(t *testing.T) {
	base := t.TempDir() + "/"
	touch := func(name string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(base, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	age := func(d time.Duration) {
		t.Helper()
		old := time.Now().Add(-d)
		if err := os.Chtimes(base, old, old); err != nil {
			t.Fatal(err)
		}
	}
	touch("a.list")
	touch("b:amd64.list")
	touch("b:i386.list")
	touch("bb:amd64.list")
	touch("c:amd64.md5sums")
	var c dpkgListCache
	want := func(name string, files ...string) {
		t.Helper()
		for i := range files {
			files[i] = base + files[i]
		}
		got, err := c.lookup(base, name)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, files) {
			t.Errorf("lookup(%q) = %q, want %q", name, got, files)
		}
	}
	want("b", "b:amd64.list", "b:i386.list")
	if c.byPkg != nil {
		t.Errorf("a directory changed within %v was kept", stampSettle)
	}
	age(time.Hour)
	want("a")
	want("c")
	want("bb", "bb:amd64.list")
	if c.byPkg == nil {
		t.Fatalf("an unchanged directory was not kept")
	}
	touch("d:arm64.list")
	age(time.Hour - time.Second)
	want("d", "d:arm64.list")
	if err := os.Remove(base + "b:i386.list"); err != nil {
		t.Fatal(err)
	}
	age(time.Hour - 2*time.Second)
	want("b", "b:amd64.list")
}

// TestAptSourcesCache checks that aptLocalSources' answer is kept while
// the lists are unchanged and found again when a list is edited in place,
// added or removed.
func TestAptSourcesCache(t *testing.T) {
	dir := t.TempDir()
	d := filepath.Join(dir, "sources.list.d")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	n := 0
	// settle gives every file and directory a different old time, as if
	// each change had happened long before the next lookup.
	settle := func() {
		t.Helper()
		n++
		old := time.Now().Add(-time.Hour + time.Duration(n)*time.Second)
		lists, _ := filepath.Glob(filepath.Join(d, "*"))
		for _, p := range append(lists, dir, d, filepath.Join(dir, "sources.list")) {
			if err := os.Chtimes(p, old, old); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
	}
	write := func(path, s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		settle()
	}
	var c aptSourcesCache
	want := func(step string, local bool) {
		t.Helper()
		if got := c.lookup(dir); got != local {
			t.Errorf("%s: got %v, want %v", step, got, local)
		}
		if !c.kept {
			t.Errorf("%s: the answer for settled lists was not kept", step)
		}
	}
	write(filepath.Join(d, "a.list"), "deb http://x/ y main\n")
	want("remote", false)
	want("unchanged", false)
	write(filepath.Join(d, "a.list"), "deb file:/srv/repo ./\n")
	want("edited in place", true)
	write(filepath.Join(d, "a.list"), "deb http://x/ y main\n")
	want("edited back", false)
	write(filepath.Join(dir, "sources.list"), "deb file:/srv/repo ./\n")
	want("sources.list added", true)
	if err := os.Remove(filepath.Join(dir, "sources.list")); err != nil {
		t.Fatal(err)
	}
	settle()
	want("sources.list removed", false)
	write(filepath.Join(d, "b.sources"), "Types: deb\nURIs: file:///srv/repo\n")
	want("deb822 file added", true)
}
