package resources

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// readTar returns the entries of the archive at p: name -> content (a
// link's target after "-> ", "" for a directory).
func readTar(t testing.TB, p string) map[string]string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		if h.Typeflag == tar.TypeSymlink {
			b = []byte("-> " + h.Linkname)
		}
		out[h.Name] = string(b)
	}
}

// treeForTar makes dir/src with a file, a subdirectory and a link, and a
// lone file dir/lone.
func treeForTar(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "src", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "src", "a"), "A")
	mustWrite(t, filepath.Join(dir, "src", "sub", "b"), "B")
	if err := os.Symlink("a", filepath.Join(dir, "src", "l")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "lone"), "L")
}

func newTar(t testing.TB, h *harness, tr *TarRes) *TarRes {
	t.Helper()
	return setup(t, h, "tar", tr.Path, tr).(*TarRes)
}

func TestTarBuildsAndKeeps(t *testing.T) {
	dir := t.TempDir()
	treeForTar(t, dir)
	out := filepath.Join(dir, "out.tar")
	h := newHarness(t)
	tr := newTar(t, h, &TarRes{Path: out, Inputs: []string{filepath.Join(dir, "src"), filepath.Join(dir, "src") + "/", filepath.Join(dir, "lone")}})
	checkApply(t, tr, false, false)
	if exists(out) {
		t.Fatal("apply=false wrote the archive")
	}
	checkApply(t, tr, true, false)
	want := map[string]string{"src/": "", "src/a": "A", "src/l": "-> a", "src/sub/": "", "src/sub/b": "B",
		"a": "A", "l": "-> a", "sub/": "", "sub/b": "B", "lone": "L"}
	if got := readTar(t, out); !mapsEqual(got, want) {
		t.Fatalf("archive holds %v, want %v", got, want)
	}
	if perm := permOf(t, out); perm != 0o600 {
		t.Fatalf("new archive mode %04o, want 0600", perm)
	}
	fi, _ := os.Stat(out)
	checkApply(t, tr, true, true)
	if fi2, _ := os.Stat(out); !os.SameFile(fi, fi2) {
		t.Fatal("an up to date archive was rewritten")
	}

	for _, drift := range []struct {
		what string
		do   func()
	}{
		{"input content", func() { mustWrite(t, filepath.Join(dir, "src", "sub", "b"), "B2") }},
		{"input mode", func() { os.Chmod(filepath.Join(dir, "lone"), 0o600) }},
		{"new input file", func() { mustWrite(t, filepath.Join(dir, "src", "c"), "C") }},
		{"archive edited", func() { mustWrite(t, out, "garbage") }},
		{"archive removed", func() { os.Remove(out) }},
	} {
		drift.do()
		checkApply(t, tr, true, false)
		checkApply(t, tr, true, true)
		if got := readTar(t, out); got["src/sub/b"] != "B2" && drift.what != "input content" {
			t.Fatalf("after %s: %v", drift.what, got)
		}
	}
	if got := readTar(t, out); got["c"] != "C" || got["src/c"] != "C" {
		t.Fatalf("the new file is missing: %v", got)
	}
	if tmp := tempFiles(t, dir); len(tmp) > 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestTarKeepsModeAndRebuildsUnrecorded checks that an archive that was
// there before (no record of what it was made from) is rebuilt once, with
// its mode kept.
func TestTarKeepsModeAndRebuildsUnrecorded(t *testing.T) {
	dir := t.TempDir()
	treeForTar(t, dir)
	out := filepath.Join(dir, "out.tar")
	mustWrite(t, out, "old")
	os.Chmod(out, 0o644)
	h := newHarness(t)
	tr := newTar(t, h, &TarRes{Path: out, Inputs: []string{filepath.Join(dir, "lone")}})
	checkApply(t, tr, true, false)
	checkApply(t, tr, true, true)
	if perm := permOf(t, out); perm != 0o644 {
		t.Fatalf("mode %04o, want the kept 0644", perm)
	}
}

func TestTarFormats(t *testing.T) {
	for _, f := range []int{0, 2, 4, 8} {
		dir := t.TempDir()
		treeForTar(t, dir)
		out := filepath.Join(dir, "out.tar")
		h := newHarness(t)
		tr := newTar(t, h, &TarRes{Path: out, Inputs: []string{filepath.Join(dir, "src") + "/"}, Format: f})
		checkApply(t, tr, true, false)
		checkApply(t, tr, true, true)
		if got := readTar(t, out); got["sub/b"] != "B" {
			t.Fatalf("format %d: %v", f, got)
		}
	}
}

// TestTarFailureKeepsTheOldArchive makes a build fail halfway (a FIFO in
// the tree) and cancels one: the archive that was there is untouched and
// no temporary file is left.
func TestTarFailureKeepsTheOldArchive(t *testing.T) {
	dir := t.TempDir()
	treeForTar(t, dir)
	out := filepath.Join(dir, "out.tar")
	h := newHarness(t)
	tr := newTar(t, h, &TarRes{Path: out, Inputs: []string{filepath.Join(dir, "src")}})
	checkApply(t, tr, true, false)
	good, _ := os.ReadFile(out)

	if err := syscall.Mkfifo(filepath.Join(dir, "src", "zz-fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "only files, directories and symbolic links") {
		t.Fatalf("fifo: got %v", err)
	}
	os.Remove(filepath.Join(dir, "src", "zz-fifo"))
	mustWrite(t, filepath.Join(dir, "src", "a"), strings.Repeat("x", 4<<20))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := writeOutput(ctx, out, func(w io.Writer) error {
		_, err := w.Write([]byte("partial"))
		return err
	}); err == nil {
		t.Fatal("a cancelled write succeeded")
	}
	if b, _ := os.ReadFile(out); !bytes.Equal(b, good) {
		t.Fatal("a failed build changed the archive")
	}
	if tmp := tempFiles(t, dir); len(tmp) > 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
}

func TestTarValidate(t *testing.T) {
	for _, tr := range []*TarRes{
		{Path: "rel.tar"},
		{Path: "/a/"},
		{Path: "/x.tar", Format: 3},
		{Path: "/x.tar", Inputs: []string{"rel"}},
		{Path: "/x.tar", Inputs: []string{"/a/../b"}},
		{Path: "/d/x.tar", Inputs: []string{"/d"}},
		{Path: "/d/x.tar", Inputs: []string{"/d/"}},
		{Path: "/x.tar", Inputs: []string{"/x.tar"}},
	} {
		if err := tr.Validate(); err == nil {
			t.Errorf("%+v accepted", tr)
		}
	}
	if err := (&TarRes{Path: "/x.tar", Inputs: []string{"/", "/etc/", "/d"}}).Validate(); err == nil {
		t.Error("an archive under / accepted")
	}
}

func TestTarDuplicateNames(t *testing.T) {
	dir := t.TempDir()
	treeForTar(t, dir)
	h := newHarness(t)
	tr := newTar(t, h, &TarRes{Path: filepath.Join(dir, "o.tar"), Inputs: []string{filepath.Join(dir, "src", "a"), filepath.Join(dir, "src") + "/"}})
	if _, err := tr.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "would both be a") {
		t.Fatalf("got %v", err)
	}
}

func readGzip(t testing.TB, p string) string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestGzip(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	mustWrite(t, in, strings.Repeat("hello ", 1000))
	out := filepath.Join(dir, "in.gz")
	h := newHarness(t)
	g := setup(t, h, "gzip", out, &GzipRes{Input: &in, Level: -1}).(*GzipRes)
	checkApply(t, g, false, false)
	checkApply(t, g, true, false)
	checkApply(t, g, true, true)
	if got := readGzip(t, out); got != strings.Repeat("hello ", 1000) {
		t.Fatalf("decompressed %d bytes", len(got))
	}
	mustWrite(t, in, "changed")
	checkApply(t, g, true, false)
	if got := readGzip(t, out); got != "changed" {
		t.Fatalf("decompressed %q", got)
	}
	mustWrite(t, out, "not gzip")
	checkApply(t, g, true, false)
	checkApply(t, g, true, true)
	// Another level is another output.
	g2 := setup(t, h, "gzip", out, &GzipRes{Input: &in, Level: 9}).(*GzipRes)
	checkApply(t, g2, true, false)
	checkApply(t, g2, true, true)

	c := setup(t, newHarness(t), "gzip", filepath.Join(dir, "c.gz"), &GzipRes{Content: "", Level: 0}).(*GzipRes)
	checkApply(t, c, true, false)
	if got := readGzip(t, filepath.Join(dir, "c.gz")); got != "" {
		t.Fatalf("empty content decompressed to %q", got)
	}
	missing := filepath.Join(dir, "missing")
	m := setup(t, newHarness(t), "gzip", filepath.Join(dir, "m.gz"), &GzipRes{Input: &missing, Level: -1}).(*GzipRes)
	if _, err := m.CheckApply(t.Context(), true); err == nil {
		t.Fatal("a missing input compressed")
	}
	if tmp := tempFiles(t, dir); len(tmp) > 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
}

func TestGzipValidate(t *testing.T) {
	in := "/in"
	for _, g := range []*GzipRes{
		{Path: "/x.gz", Level: 10},
		{Path: "/x.gz", Level: -3},
		{Path: "x.gz"},
		{Path: "/x.gz", Input: strp("rel")},
		{Path: "/x.gz", Input: &in, Content: "c"},
		{Path: "/in", Input: &in},
	} {
		if err := g.Validate(); err == nil {
			t.Errorf("%+v accepted", g)
		}
	}
	r := (&GzipRes{}).Default().(*GzipRes)
	if r.Level != -1 {
		t.Fatalf("default level %d", r.Level)
	}
}

func TestArchiveWatch(t *testing.T) {
	dir := t.TempDir()
	treeForTar(t, dir)
	h := newHarness(t)
	tr := newTar(t, h, &TarRes{Path: filepath.Join(dir, "o.tar"), Inputs: []string{filepath.Join(dir, "src")}})
	startWatch(t, h, tr)
	expectEvent(t, h, "deep input", func() { mustWrite(t, filepath.Join(dir, "src", "sub", "new"), "n") })
	expectEvent(t, h, "archive", func() { mustWrite(t, filepath.Join(dir, "o.tar"), "x") })
}
