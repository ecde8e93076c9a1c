package fswatch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// reader runs Watch on path in the background and reports each content it
// reads ("" when missing).
func reader(t *testing.T, path string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan string, 100)
	done := make(chan error, 1)
	go func() {
		done <- Watch(ctx, path, func() error {
			b, _ := os.ReadFile(path)
			ch <- string(b)
			return nil
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Watch: %v", err)
		}
	})
	return ch
}

// waitFor reads ch until want shows up, failing after a deadline.
func waitFor(t *testing.T, ch <-chan string, want string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case got := <-ch:
			if got == want {
				return
			}
		case <-deadline:
			t.Fatalf("timed out waiting for content %q", want)
		}
	}
}

func TestWatchFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	ch := reader(t, p)
	waitFor(t, ch, "one")
	if err := os.WriteFile(p, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ch, "two")
	// atomic replacement
	tmp := filepath.Join(dir, ".tmp")
	if err := os.WriteFile(tmp, []byte("three"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ch, "three")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ch, "")
}

func TestWatchMissingDirectories(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "a", "b", "f")
	ch := reader(t, p)
	waitFor(t, ch, "")
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The watch moves down as a and b appear; the file written after
	// that must be seen. Give the watcher a moment by waiting for the
	// read triggered by the creation of a (an observable event).
	waitFor(t, ch, "")
	if err := os.WriteFile(p, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ch, "hello")
	if err := os.RemoveAll(filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ch, "")
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ch, "")
	if err := os.WriteFile(p, []byte("again"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ch, "again")
}

func TestWatchStopsOnError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	want := os.ErrInvalid
	err := Watch(context.Background(), p, func() error { return want })
	if err != want {
		t.Fatalf("got %v, want %v", err, want)
	}
}
