package fswatch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kernelWatches returns the number of watches of w's inotify instance, as
// the kernel lists them in the descriptor's fdinfo.
func kernelWatches(t *testing.T, w *Watcher) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", w.k.file.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "inotify wd:")
}

// TestRelease: Release removes every kernel watch of the watcher, with its
// subscriptions left open, and a subscription made after it fails.
func TestRelease(t *testing.T) {
	w := newWatcher(t)
	dir := t.TempDir()
	for _, d := range []string{"a", "b"} {
		p := filepath.Join(dir, d)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		subscribe(t, w, filepath.Join(p, "f"), Options{})
	}
	if n := kernelWatches(t, w); n < 2 {
		t.Fatalf("%d kernel watches for files in two directories", n)
	}
	w.Release()
	if n := kernelWatches(t, w); n != 0 {
		t.Fatalf("%d kernel watches after Release", n)
	}
	if _, err := w.Subscribe(filepath.Join(dir, "a", "g"), Options{}); err == nil {
		t.Fatal("a subscription made after Release")
	}
	w.Release() // a second one does nothing
}
