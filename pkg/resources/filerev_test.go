package resources

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// reversal returns the saved reversal of f as the engine runs it: its
// parameters through JSON and back into a new resource, initialised with
// the vardir of f's harness h.
func reversal(t *testing.T, h *harness, f *FileRes) *FileRes {
	t.Helper()
	r, err := f.Reversed()
	if err != nil || r == nil {
		t.Fatalf("reversed: %v, %v", r, err)
	}
	params, err := engine.EncodeParams(r)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	back := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&back); err != nil {
		t.Fatal(err)
	}
	rev := &FileRes{}
	if err := engine.DecodeParams(rev, back); err != nil {
		t.Fatal(err)
	}
	hr := newHarness(t)
	hr.vardir, hr.reversal = h.vardir, true
	return setup(t, hr, "file", f.Name(), rev).(*FileRes)
}

// TestFileReverseRestoresEveryByte reverses a change to a large binary
// file: the content comes back byte for byte, whatever its size and
// whether or not it is UTF-8, with its mode.
func TestFileReverseRestoresEveryByte(t *testing.T) {
	for _, size := range []int{16, 3<<20 + 17} {
		testReverseBytes(t, size)
	}
}

func testReverseBytes(t *testing.T, size int) {
	p := filepath.Join(t.TempDir(), "blob")
	orig := make([]byte, size)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range orig {
		orig[i] = byte(rng.Uint32())
	}
	copy(orig, "\xff\xfe\x00not utf-8\xc3")
	if err := os.WriteFile(p, orig, 0o640); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o640)
	h := newHarness(t)
	f := &FileRes{Content: strp("new\n"), Mode: "0600"}
	f.SetMetaParams(&engine.MetaParams{Reverse: true})
	f = newFile(t, h, p, f)
	checkApply(t, f, true, false)
	if mustRead(t, p) != "new\n" {
		t.Fatal("not applied")
	}
	// As after a restart: a new instance finds the saved state.
	again := &FileRes{Content: strp("new\n"), Mode: "0600"}
	again.SetMetaParams(&engine.MetaParams{Reverse: true})
	rev := reversal(t, h, newFile(t, h, p, again))
	checkApply(t, rev, true, false)
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, orig) {
		t.Fatalf("restored %d bytes, want the original %d bytes", len(got), len(orig))
	}
	if perm := permOf(t, p); perm != 0o640 {
		t.Fatalf("restored mode %04o, want 0640", perm)
	}
	checkApply(t, rev, true, true)
}

// TestFileReverseCreatedDirKeepsOthers reverses a directory made from a
// source: what the resource created goes, what others added since stays.
func TestFileReverseCreatedDirKeepsOthers(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	os.MkdirAll(filepath.Join(src, "sub"), 0o755)
	mustWrite(t, filepath.Join(src, "a"), "a")
	mustWrite(t, filepath.Join(src, "sub", "b"), "b")
	h := newHarness(t)
	f := &FileRes{State: "exists", Rare: &FileRare{Source: src + "/", Recurse: true}}
	f.SetMetaParams(&engine.MetaParams{Reverse: true})
	f = newFile(t, h, dst+"/", f)
	checkApply(t, f, true, false)
	if mustRead(t, filepath.Join(dst, "sub", "b")) != "b" {
		t.Fatal("not copied")
	}
	mustWrite(t, filepath.Join(dst, "mine"), "the user's")
	mustWrite(t, filepath.Join(dst, "sub", "mine2"), "the user's too")

	rev := reversal(t, h, f)
	checkApply(t, rev, true, false)
	for _, gone := range []string{"a", "sub/b"} {
		if exists(filepath.Join(dst, gone)) {
			t.Errorf("%s, created by the resource, is still there", gone)
		}
	}
	for _, kept := range []string{"mine", "sub/mine2"} {
		if !exists(filepath.Join(dst, kept)) {
			t.Errorf("%s, added by the user, was removed", kept)
		}
	}
	// With the user's files gone too, the directory goes.
	os.Remove(filepath.Join(dst, "mine"))
	os.Remove(filepath.Join(dst, "sub", "mine2"))
	checkApply(t, rev, true, false)
	if exists(dst) {
		t.Fatal("the emptied directory is still there")
	}
}

// TestFileReverseLogsKept checks that what a reversal keeps is logged.
func TestFileReverseLogsKept(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "made")
	h := newHarness(t)
	f := &FileRes{State: "exists"}
	f.SetMetaParams(&engine.MetaParams{Reverse: true})
	f = newFile(t, h, dst+"/", f)
	checkApply(t, f, true, false)
	mustWrite(t, filepath.Join(dst, "mine"), "x")
	r, err := f.Reversed()
	if err != nil {
		t.Fatal(err)
	}
	hr := newHarness(t)
	hr.vardir, hr.reversal = h.vardir, true
	rev := setup(t, hr, "file", f.Name(), r)
	checkApply(t, rev, true, true)
	if !exists(filepath.Join(dst, "mine")) {
		t.Fatal("the user's file was removed")
	}
	if !strings.Contains(hr.logged(), "kept "+dst+": it holds entries this resource did not create (mine)") {
		t.Fatalf("log: %q", hr.logged())
	}
}

// TestFileReverseRefusesWhatItCannotRestore checks that a reversible
// resource refuses, before doing it, what its reversal could not undo:
// overwriting an entry it did not create, removing a directory with
// entries, replacing a file by a directory. What it creates in a directory
// that was there is undone by the reversal.
func TestFileReverseRefusesWhatItCannotRestore(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	os.Mkdir(src, 0o755)
	os.Mkdir(dst, 0o750)
	os.Chmod(dst, 0o750)
	mustWrite(t, filepath.Join(src, "a"), "a")
	mustWrite(t, filepath.Join(src, "b"), "b")
	mustWrite(t, filepath.Join(dst, "b"), "the user's b")
	mustWrite(t, filepath.Join(dst, "c"), "the user's c")
	h := newHarness(t)
	f := &FileRes{State: "exists", Rare: &FileRare{Source: src + "/"}, Mode: "0755"}
	f.SetMetaParams(&engine.MetaParams{Reverse: true})
	f = newFile(t, h, dst+"/", f)
	_, err := f.CheckApply(t.Context(), true)
	if err == nil || !strings.Contains(err.Error(), "refusing to change "+filepath.Join(dst, "b")+", which this resource did not create") {
		t.Fatalf("got %v, want a refusal to overwrite b", err)
	}
	if mustRead(t, filepath.Join(dst, "b")) != "the user's b" {
		t.Fatal("the user's b was overwritten")
	}
	os.Remove(filepath.Join(dst, "b"))
	checkApply(t, f, true, false)
	if mustRead(t, filepath.Join(dst, "b")) != "b" || permOf(t, dst) != 0o755 {
		t.Fatal("not applied")
	}
	rev := reversal(t, h, f)
	checkApply(t, rev, true, false)
	if exists(filepath.Join(dst, "a")) || exists(filepath.Join(dst, "b")) {
		t.Error("the reversal left what the resource created")
	}
	if mustRead(t, filepath.Join(dst, "c")) != "the user's c" || permOf(t, dst) != 0o750 {
		t.Error("the reversal did not restore the directory as it was")
	}

	full := filepath.Join(dir, "full")
	os.Mkdir(full, 0o755)
	mustWrite(t, filepath.Join(full, "x"), "x")
	for _, tc := range []struct {
		path string
		f    *FileRes
		want string
	}{
		{full + "/", &FileRes{State: "absent", Rare: &FileRare{Recurse: true}}, "refusing to remove " + full + ", which holds 1 entries"},
		{full, &FileRes{State: "exists", Rare: &FileRare{Force: true}}, "refusing to replace the directory " + full},
	} {
		tc.f.SetMetaParams(&engine.MetaParams{Reverse: true})
		g := newFile(t, newHarness(t), tc.path, tc.f)
		if _, err := g.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
		if mustRead(t, filepath.Join(full, "x")) != "x" {
			t.Fatal("the directory's content was lost")
		}
	}
}

// TestFileReverseNeverRemovesThroughALink replaces a directory the
// resource created by a link to another directory holding a file of the
// same name: the reversal does not remove that file.
func TestFileReverseNeverRemovesThroughALink(t *testing.T) {
	dir := t.TempDir()
	src, dst, victim := filepath.Join(dir, "src"), filepath.Join(dir, "dst"), filepath.Join(dir, "victim")
	os.MkdirAll(filepath.Join(src, "sub"), 0o755)
	mustWrite(t, filepath.Join(src, "sub", "b"), "b")
	os.Mkdir(victim, 0o755)
	mustWrite(t, filepath.Join(victim, "b"), "precious")
	h := newHarness(t)
	f := &FileRes{State: "exists", Rare: &FileRare{Source: src + "/", Recurse: true}}
	f.SetMetaParams(&engine.MetaParams{Reverse: true})
	f = newFile(t, h, dst+"/", f)
	checkApply(t, f, true, false)
	os.RemoveAll(filepath.Join(dst, "sub"))
	if err := os.Symlink(victim, filepath.Join(dst, "sub")); err != nil {
		t.Fatal(err)
	}
	rev := reversal(t, h, f)
	checkApply(t, rev, true, false)
	if mustRead(t, filepath.Join(victim, "b")) != "precious" {
		t.Fatal("the reversal removed a file through a link")
	}
}

// TestFileAutoEdgesWalkToRoot asks for every parent up to the root when
// none is found, and for none of a resource on the root itself.
func TestFileAutoEdgesWalkToRoot(t *testing.T) {
	for path, want := range map[string]string{"/a/b": "file:/a file:/", "/": ""} {
		f := &FileRes{}
		f.SetKind("file")
		f.SetName(path)
		ae, err := f.AutoEdges()
		if err != nil {
			t.Fatal(err)
		}
		var asked []string
		for round := 0; round < 10; round++ {
			uids := ae.Next()
			if len(uids) == 0 {
				break
			}
			for _, u := range uids {
				asked = append(asked, u.GetKind()+":"+u.GetName())
			}
			if !ae.Test(make([]bool, len(uids))) {
				break
			}
		}
		if got := strings.Join(asked, " "); got != want {
			t.Errorf("%s asked %q, want %q", path, got, want)
		}
	}
}
