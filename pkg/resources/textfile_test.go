package resources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveTrustedHoldsTheDirectory swaps the directory of a resolved
// path for a link after the resolution: the write still lands in the
// directory that was checked, not where the link points.
func TestResolveTrustedHoldsTheDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"sub", "elsewhere"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r, err := resolveTrusted(filepath.Join(dir, "sub", "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	if r.path != filepath.Join(dir, "sub", "f") {
		t.Fatalf("resolved to %s", r.path)
	}
	if err := os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("elsewhere", filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := writeAtomic(t.Context(), r.at(), []byte("x"), 0o644, -1, -1); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, filepath.Join(dir, "moved", "f")); got != "x" {
		t.Fatalf("moved/f holds %q", got)
	}
	if exists(filepath.Join(dir, "elsewhere", "f")) {
		t.Fatal("the write followed the swapped-in link")
	}
}

func TestResolveTrustedLinks(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "real", "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A relative link, an absolute one and a chain of two.
	for link, target := range map[string]string{
		"rel":   "real/d",
		"abs":   filepath.Join(dir, "real"),
		"chain": "rel",
		"up":    "real/d/..",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	for in, want := range map[string]string{
		"rel/f":     "real/d/f",
		"abs/d/f":   "real/d/f",
		"chain/f":   "real/d/f",
		"up/d/f":    "real/d/f",
		"real/d/..": "real",
	} {
		r, err := resolveTrusted(filepath.Join(dir, in))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if w := filepath.Join(dir, want); r.path != w && filepath.Clean(r.path) != w {
			t.Errorf("%s resolved to %s, want %s", in, r.path, w)
		}
		r.close()
	}
	if err := os.Symlink("loop", filepath.Join(dir, "loop")); err != nil {
		t.Fatal(err)
	}
	if _, err := resolveTrusted(filepath.Join(dir, "loop", "f")); err == nil || !strings.Contains(err.Error(), "too many levels") {
		t.Errorf("loop: got %v", err)
	}
	if _, err := resolveTrusted(filepath.Join(dir, "missing", "f")); err == nil {
		t.Error("a missing directory resolved")
	}
	if os.Geteuid() != 0 {
		return
	}
	// A link of another user's in a directory only root can change is
	// followed: nobody else can have put it there.
	if err := os.Lchown(filepath.Join(dir, "rel"), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if r, err := resolveTrusted(filepath.Join(dir, "chain", "f")); err != nil {
		t.Errorf("a chain through another user's link in root's directory: %v", err)
	} else {
		r.close()
	}
	// Once that user may write the directory, the link may have been
	// planted: refused.
	if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if _, err := resolveTrusted(filepath.Join(dir, "chain", "f")); err == nil || !strings.Contains(err.Error(), "refusing to follow the symbolic link "+filepath.Join(dir, "rel")+": it belongs to uid 65534") {
		t.Errorf("a chain through an untrusted link: got %v", err)
	}
}
