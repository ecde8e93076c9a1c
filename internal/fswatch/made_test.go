package fswatch

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// counted subscribes to path with a Notify function that counts the
// signals.
func counted(t *testing.T, w *Watcher, path string) (*Sub, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	s, err := w.Subscribe(path, Options{Notify: func(error) { n.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, &n
}

// fence makes an entry in dir that another subscription waits for: once
// it is signalled, every event made before it has been delivered (one
// reader, in the kernel's order).
func fence(t *testing.T, w *Watcher, dir string) {
	t.Helper()
	p := filepath.Join(dir, "fence")
	os.Remove(p)
	s := subscribe(t, w, p, Options{})
	drain(s)
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.C:
	case <-time.After(5 * time.Second):
		t.Fatal("no event for the fence")
	}
	s.Close()
}

// link creates path as one link (a single creation event), as an
// unnamed file linked to its name would.
func link(t *testing.T, path string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), "src")
	if err := os.WriteFile(src, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(src, path); err != nil {
		t.Fatal(err)
	}
}

// TestMade checks that the creation a subscriber announced with Made is
// not signalled, and that anything else is: a creation not announced, an
// event before the announced creation (which clears the mark), and every
// event after it.
func TestMade(t *testing.T) {
	w := newWatcher(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "f")

	s, n := counted(t, w, p)
	s.Made() // before the link, so that the event cannot come first
	link(t, p)
	fence(t, w, dir)
	if got := n.Load(); got != 0 {
		t.Fatalf("own creation: %d signals, want 0", got)
	}

	// Anything after it comes through.
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	fence(t, w, dir)
	if got := n.Load(); got != 1 {
		t.Fatalf("chmod after the own creation: %d signals, want 1", got)
	}

	// A mark that finds another event first is cleared by it: the
	// removal and the creation after it both come through.
	s.Made()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	link(t, p)
	fence(t, w, dir)
	if got := n.Load(); got != 3 {
		t.Fatalf("removal and creation after a stale mark: %d signals, want 3", got)
	}

	// Without Made, a creation is signalled.
	q := filepath.Join(dir, "g")
	_, m := counted(t, w, q)
	link(t, q)
	fence(t, w, dir)
	if got := m.Load(); got != 1 {
		t.Fatalf("creation not announced: %d signals, want 1", got)
	}
}

// TestMadeOnlyItsOwn checks that Made hides the creation from its own
// subscription only: another subscription to the same path is signalled.
func TestMadeOnlyItsOwn(t *testing.T) {
	w := newWatcher(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	s, n := counted(t, w, p)
	_, other := counted(t, w, p)
	s.Made()
	link(t, p)
	fence(t, w, dir)
	if got, gotOther := n.Load(), other.Load(); got != 0 || gotOther != 1 {
		t.Fatalf("signals: %d to the one that made it (want 0), %d to the other (want 1)", got, gotOther)
	}
}

// TestMadeClearedByReanchor checks that a re-anchoring (the directory
// removed and made again) clears the mark: the later creation comes
// through.
func TestMadeClearedByReanchor(t *testing.T) {
	w := newWatcher(t)
	root := t.TempDir()
	dir := filepath.Join(root, "d")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "f")
	s, n := counted(t, w, p)
	s.Made()
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	fence(t, w, root)
	before := n.Load()
	if before == 0 {
		t.Fatal("removal of the directory: no signal")
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fence(t, w, root)
	link(t, p)
	fence(t, w, dir)
	if got := n.Load(); got < before+2 {
		t.Fatalf("directory made again, then the file: %d signals after %d, want at least 2 more", got, before)
	}
}
