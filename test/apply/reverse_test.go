package apply

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

func reversible(r res) res {
	r.Meta = P{"reverse": true}
	return r
}

// noReverseState fails the test if a saved reversal or a reversal state
// is left under prefix.
func noReverseState(t *testing.T, prefix string) {
	t.Helper()
	saved, _ := filepath.Glob(filepath.Join(prefix, "reverse", "*.json"))
	states, _ := filepath.Glob(filepath.Join(prefix, "vardir", "*", "*", "reverse"))
	if len(saved)+len(states) > 0 {
		t.Fatalf("reversal state left behind: %v %v", saved, states)
	}
}

// TestReverseRestoresEveryByte changes a large binary file under
// Meta:reverse, and a later run without the resource restores it byte for
// byte, with its mode, and forgets the saved state.
func TestReverseRestoresEveryByte(t *testing.T) {
	d, prefix := t.TempDir(), t.TempDir()
	big := d + "/big"
	orig := make([]byte, 5<<20+3)
	rng := rand.New(rand.NewPCG(7, 9))
	for i := range orig {
		orig[i] = byte(rng.Uint32())
	}
	copy(orig, "\x00\xff\xfe\xc3(")
	if err := os.WriteFile(big, orig, 0o640); err != nil {
		t.Fatal(err)
	}
	os.Chmod(big, 0o640)
	keep := file(d+"/keep", P{"content": "k"})
	made := reversible(file(big, P{"content": "small\n", "mode": "0600"}))
	r := testutil.Run(t, gdoc(1, []res{made, keep}), "mgmt-apply", "--prefix", prefix, "--converged-timeout", "0")
	if r.Code != 0 || readFile(t, big) != "small\n" {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	r = testutil.Run(t, gdoc(2, []res{keep}), "mgmt-apply", "--prefix", prefix, "--converged-timeout", "0")
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	got, err := os.ReadFile(big)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, orig) {
		t.Fatalf("restored %d bytes, want the original %d bytes:\n%s", len(got), len(orig), r.Stderr)
	}
	fi, err := os.Stat(big)
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("restored mode %v (%v), want 0640", fi.Mode(), err)
	}
	noReverseState(t, prefix)
}

// TestReverseNeverStale reverses the same file twice in one run: the
// second reversal restores the edit made after the first, not the state
// the first one restored.
func TestReverseNeverStale(t *testing.T) {
	d, prefix := t.TempDir(), t.TempDir()
	path := d + "/f"
	if err := os.WriteFile(path, []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	keep := file(d+"/keep", P{"content": "k"})
	p := startApply(t, "--prefix", prefix)
	p.Write(gdoc(1, []res{reversible(file(path, P{"content": "A\n"})), keep}))
	p.WaitLines(`graph seq 1 converged in`, 1)
	p.Write(gdoc(2, []res{keep}))
	p.WaitLines(`file\[.*/f\]: reversal done`, 1)
	if got := readFile(t, path); got != "original\n" {
		t.Fatalf("first reversal: %q", got)
	}
	if err := os.WriteFile(path, []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.Write(gdoc(3, []res{reversible(file(path, P{"content": "B\n"})), keep}))
	p.WaitLines(`graph seq 3 converged in`, 1)
	p.Write(gdoc(4, []res{keep}))
	p.WaitLines(`file\[.*/f\]: reversal done`, 2)
	if got := readFile(t, path); got != "edited\n" {
		t.Fatalf("the second reversal restored %q, want the edit made before it:\n%s", got, p.Log())
	}
	p.Terminate()
	noReverseState(t, prefix)
}

// TestReverseCreatedDirKeepsOthers reverses a directory made from a
// source: the files it copied go, the files the user added since stay.
func TestReverseCreatedDirKeepsOthers(t *testing.T) {
	d, prefix := t.TempDir(), t.TempDir()
	src, dst := d+"/src", d+"/dst"
	os.MkdirAll(src+"/sub", 0o755)
	os.WriteFile(src+"/a", []byte("a"), 0o644)
	os.WriteFile(src+"/sub/b", []byte("b"), 0o644)
	keep := file(d+"/keep", P{"content": "k"})
	made := reversible(file(dst+"/", P{"source": src + "/", "recurse": true}))
	r := testutil.Run(t, gdoc(1, []res{made, keep}), "mgmt-apply", "--prefix", prefix, "--converged-timeout", "0")
	if r.Code != 0 || readFile(t, dst+"/sub/b") != "b" {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	os.WriteFile(dst+"/mine", []byte("the user's"), 0o644)
	os.WriteFile(dst+"/sub/mine2", []byte("the user's too"), 0o644)
	r = testutil.Run(t, gdoc(2, []res{keep}), "mgmt-apply", "--prefix", prefix, "--converged-timeout", "0")
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	for _, gone := range []string{"/a", "/sub/b"} {
		if _, err := os.Lstat(dst + gone); !os.IsNotExist(err) {
			t.Errorf("%s, copied by the resource, is still there", gone)
		}
	}
	for _, kept := range []string{"/mine", "/sub/mine2"} {
		if readFile(t, dst+kept) == "" {
			t.Errorf("%s lost its content", kept)
		}
	}
	if !bytes.Contains([]byte(r.Stderr), []byte("kept "+dst+": it holds entries this resource did not create (mine, sub)")) {
		t.Errorf("what was kept is not logged:\n%s", r.Stderr)
	}
	noReverseState(t, prefix)
}
