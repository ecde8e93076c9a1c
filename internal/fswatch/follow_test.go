package fswatch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// reader runs Follow on path in the background and reports each content it
// reads ("" when missing).
func reader(t *testing.T, path string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan string, 100)
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, path, func() error {
			b, _ := os.ReadFile(path)
			ch <- string(b)
			return nil
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Follow: %v", err)
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

func TestFollowFile(t *testing.T) {
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

func TestFollowMissingDirectories(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "a", "b", "f")
	ch := reader(t, p)
	waitFor(t, ch, "")
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The watch moves down as a and b appear (the watcher looks for them
	// again once its watch is in place); the file written after that must
	// be seen.
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

func TestFollowStopsOnError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	want := os.ErrInvalid
	err := Follow(context.Background(), p, func() error { return want })
	if err != want {
		t.Fatalf("got %v, want %v", err, want)
	}
}

// inotifyInstances counts the inotify instances the process holds.
func inotifyInstances(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && l == "anon_inode:inotify" {
			n++
		}
	}
	return n
}

// TestFollowSharesOneInstance: followers of many files in many
// directories share the process-wide watcher's one inotify instance.
func TestFollowSharesOneInstance(t *testing.T) {
	if _, err := Default(); err != nil {
		t.Fatal(err)
	}
	before := inotifyInstances(t)
	var chans []<-chan string
	for i := range 20 {
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, []byte{byte('a' + i)}, 0o644); err != nil {
			t.Fatal(err)
		}
		chans = append(chans, reader(t, p))
	}
	for i, ch := range chans {
		waitFor(t, ch, string(rune('a'+i)))
	}
	if after := inotifyInstances(t); after != before {
		t.Fatalf("20 followers: %d inotify instances, want %d (the shared one)", after, before)
	}
}
