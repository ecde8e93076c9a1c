package fswatch

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// An entryEvent is what a subscription with Entry was told: an entry's
// name and whether the event was its creation, or all for Notify.
type entryEvent struct {
	name    string
	created bool
	all     bool
}

// entrySub subscribes to dir with its contents, sending what Entry and
// Notify are told to the returned channel.
func entrySub(t *testing.T, w *Watcher, dir string, recursive bool) (*Sub, chan entryEvent) {
	t.Helper()
	c := make(chan entryEvent, 1024)
	s := subscribe(t, w, dir, Options{Contents: true, Recursive: recursive,
		Notify: func(error) { c <- entryEvent{all: true} },
		Entry:  func(name string, created bool) { c <- entryEvent{name: name, created: created} }})
	return s, c
}

// expectEntry runs act and waits for want among what c is told (spurious
// signals are allowed before it).
func expectEntry(t *testing.T, c chan entryEvent, want entryEvent, act func() error) {
	t.Helper()
	for len(c) > 0 {
		<-c
	}
	if err := act(); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(5 * time.Second)
	for {
		select {
		case got := <-c:
			if got == want {
				return
			}
		case <-deadline:
			t.Fatalf("never told %+v", want)
		}
	}
}

// TestEntry: a subscription to a directory with Entry is told which entry
// an event is about and whether it is the entry's creation; what concerns
// the directory itself (made, removed) goes to Notify, but for a change
// of its own attributes, which goes nowhere.
func TestEntry(t *testing.T) {
	w := newWatcher(t)
	dir := filepath.Join(t.TempDir(), "d")
	_, c := entrySub(t, w, dir, false)
	a := filepath.Join(dir, "a")
	expectEntry(t, c, entryEvent{all: true}, func() error { return os.Mkdir(dir, 0o755) })
	expectEntry(t, c, entryEvent{name: "a", created: true}, func() error { link(t, a); return nil })
	expectEntry(t, c, entryEvent{name: "a"}, func() error { return os.WriteFile(a, []byte("y"), 0o644) })
	expectEntry(t, c, entryEvent{name: "a"}, func() error { return os.Chmod(a, 0o600) })
	// The directory's own attributes are nobody's: nothing is told of
	// the chmod before the removal of a, made after it and told in order.
	for len(c) > 0 {
		<-c
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-c:
		if got != (entryEvent{name: "a"}) {
			t.Fatalf("told %+v before a's removal: the directory's chmod", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("never told of a's removal")
	}
	expectEntry(t, c, entryEvent{name: "b", created: true}, func() error { return os.Mkdir(filepath.Join(dir, "b"), 0o755) })
	expectEntry(t, c, entryEvent{all: true}, func() error { return os.RemoveAll(dir) })
	expectEntry(t, c, entryEvent{all: true}, func() error { return os.Mkdir(dir, 0o755) })
	expectEntry(t, c, entryEvent{name: "a", created: true}, func() error { link(t, a); return nil })
}

// TestEntryNotRecursive: a recursive subscription is not told entries by
// name (a directory made below must be taken in): Entry is left aside.
func TestEntryNotRecursive(t *testing.T) {
	w := newWatcher(t)
	dir := t.TempDir()
	_, c := entrySub(t, w, dir, true)
	expectEntry(t, c, entryEvent{all: true}, func() error { return os.WriteFile(filepath.Join(dir, "a"), nil, 0o644) })
	sub := filepath.Join(dir, "sub")
	expectEntry(t, c, entryEvent{all: true}, func() error { return os.Mkdir(sub, 0o755) })
	expectEntry(t, c, entryEvent{all: true}, func() error { return os.WriteFile(filepath.Join(sub, "x"), nil, 0o644) })
}
