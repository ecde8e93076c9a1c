package fswatch

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func newWatcher(t *testing.T) *Watcher {
	t.Helper()
	w, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func subscribe(t *testing.T, w *Watcher, path string, opts Options) *Sub {
	t.Helper()
	s, err := w.Subscribe(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func drain(s *Sub) {
	for {
		select {
		case <-s.C:
		default:
			return
		}
	}
}

// expect runs act and waits for a signal on s.
func expect(t *testing.T, s *Sub, what string, act func() error) {
	t.Helper()
	drain(s)
	if err := act(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	select {
	case <-s.C:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: no event for %s", what, s.Path())
	}
}

func TestFileLifecycle(t *testing.T) {
	w := newWatcher(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	s := subscribe(t, w, p, Options{})
	expect(t, s, "create", func() error { return os.WriteFile(p, []byte("a"), 0o644) })
	expect(t, s, "edit", func() error { return os.WriteFile(p, []byte("bb"), 0o644) })
	expect(t, s, "chmod", func() error { return os.Chmod(p, 0o600) })
	expect(t, s, "replace", func() error {
		tmp := filepath.Join(dir, ".tmp")
		if err := os.WriteFile(tmp, []byte("c"), 0o644); err != nil {
			return err
		}
		return os.Rename(tmp, p)
	})
	expect(t, s, "delete", func() error { return os.Remove(p) })
}

func TestMissingParents(t *testing.T) {
	w := newWatcher(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b", "f")
	s := subscribe(t, w, p, Options{})
	expect(t, s, "mkdir a", func() error { return os.Mkdir(filepath.Join(dir, "a"), 0o755) })
	expect(t, s, "mkdir b", func() error { return os.Mkdir(filepath.Join(dir, "a", "b"), 0o755) })
	expect(t, s, "create", func() error { return os.WriteFile(p, nil, 0o644) })
	expect(t, s, "remove tree", func() error { return os.RemoveAll(filepath.Join(dir, "a")) })
	expect(t, s, "mkdir again", func() error { return os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755) })
	expect(t, s, "create again", func() error { return os.WriteFile(p, nil, 0o644) })
	expect(t, s, "edit again", func() error { return os.WriteFile(p, []byte("x"), 0o644) })
}

func TestParentRenamed(t *testing.T) {
	w := newWatcher(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "a", "f")
	s := subscribe(t, w, p, Options{})
	expect(t, s, "rename parent", func() error { return os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "z")) })
	expect(t, s, "recreate parent", func() error { return os.Mkdir(filepath.Join(dir, "a"), 0o755) })
	expect(t, s, "create", func() error { return os.WriteFile(p, nil, 0o644) })
}

func TestContentsAndRecursive(t *testing.T) {
	w := newWatcher(t)
	dir := t.TempDir()
	d := filepath.Join(dir, "d")
	flat := subscribe(t, w, d+"/", Options{Contents: true})
	rec := subscribe(t, w, d, Options{Recursive: true})
	expect(t, flat, "mkdir", func() error { return os.Mkdir(d, 0o755) })
	expect(t, flat, "entry", func() error { return os.WriteFile(filepath.Join(d, "x"), nil, 0o644) })
	expect(t, rec, "subdir", func() error { return os.Mkdir(filepath.Join(d, "sub"), 0o755) })
	expect(t, rec, "deep entry", func() error { return os.WriteFile(filepath.Join(d, "sub", "y"), nil, 0o644) })
	expect(t, rec, "deep edit", func() error { return os.WriteFile(filepath.Join(d, "sub", "y"), []byte("1"), 0o644) })
	expect(t, flat, "chmod dir", func() error { return os.Chmod(d, 0o700) })
}

func TestSharedWatches(t *testing.T) {
	w := newWatcher(t)
	dir := t.TempDir()
	var subs []*Sub
	subs = append(subs, subscribe(t, w, filepath.Join(dir, "f0"), Options{}))
	one := w.WatchCount() // the directory and its ancestors
	for i := 1; i < 500; i++ {
		subs = append(subs, subscribe(t, w, filepath.Join(dir, fmt.Sprint("f", i)), Options{}))
	}
	if n := w.WatchCount(); n != one {
		t.Fatalf("got %d kernel watches for 500 files in one directory, want %d as for one file", n, one)
	}
	// One edit signals its own subscription only.
	expect(t, subs[7], "edit", func() error { return os.WriteFile(filepath.Join(dir, "f7"), nil, 0o644) })
	select {
	case <-subs[8].C:
		t.Fatal("f8 signalled for an edit of f7")
	default:
	}
	for _, s := range subs {
		s.Close()
	}
	if n := w.WatchCount(); n != 0 {
		t.Fatalf("got %d kernel watches after closing every subscription, want 0", n)
	}
}

func TestRelativePath(t *testing.T) {
	w := newWatcher(t)
	if _, err := w.Subscribe("relative/path", Options{}); err == nil {
		t.Fatal("relative path accepted")
	}
}

func BenchmarkSubscribe(b *testing.B) {
	w, err := New()
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	dir := b.TempDir()
	subs := make([]*Sub, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := w.Subscribe(filepath.Join(dir, fmt.Sprint("f", i)), Options{})
		if err != nil {
			b.Fatal(err)
		}
		subs = append(subs, s)
	}
	b.StopTimer()
	for _, s := range subs {
		s.Close()
	}
}

func TestAncestorRenamed(t *testing.T) {
	w := newWatcher(t)
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(deep, "f")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := subscribe(t, w, p, Options{})
	expect(t, s, "rename grandparent", func() error { return os.Rename(filepath.Join(root, "a"), filepath.Join(root, "moved")) })
	// The moved tree no longer concerns the subscription.
	drain(s)
	if err := os.WriteFile(filepath.Join(root, "moved", "b", "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	expect(t, s, "recreate", func() error {
		if err := os.MkdirAll(deep, 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, nil, 0o644)
	})
	expect(t, s, "edit", func() error { return os.WriteFile(p, []byte("y"), 0o644) })
	expect(t, s, "remove grandparent", func() error { return os.RemoveAll(filepath.Join(root, "a")) })
}

// TestErrorSignalsAll checks that a kernel queue overflow, after which
// events are missing, signals every subscription: the watcher is kept from
// reading while more events than the kernel queues are made, about
// entries that concern neither subscription.
func TestErrorSignalsAll(t *testing.T) {
	w := newWatcher(t)
	dir := t.TempDir()
	a := subscribe(t, w, filepath.Join(dir, "a"), Options{})
	b := subscribe(t, w, filepath.Join(dir, "sub", "b"), Options{})
	raw, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	if err != nil {
		t.Fatal(err)
	}
	queued, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || queued > 1<<22 {
		t.Fatalf("fs.inotify.max_queued_events %q: want a number up to %d", raw, 1<<22)
	}
	var fs [2]*os.File
	for i := range fs {
		if fs[i], err = os.Create(filepath.Join(dir, fmt.Sprint("x", i))); err != nil {
			t.Fatal(err)
		}
		defer fs[i].Close()
	}
	w.mu.Lock()
	drain(a)
	drain(b)
	// Two names in turn: the kernel merges an event only with the same
	// one just before it. The reader may hold a read of events already.
	for i := 0; i <= queued+readBuf/unix.SizeofInotifyEvent; i++ {
		if _, err := fs[i%2].Write([]byte{'x'}); err != nil {
			w.mu.Unlock()
			t.Fatal(err)
		}
	}
	w.mu.Unlock()
	for _, s := range []*Sub{a, b} {
		select {
		case <-s.C:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s not signalled after an overflow", s.Path())
		}
	}
}

// TestReplacedFileQuiet: once a followed file is replaced by a rename,
// writes to the old file (still held open by a writer) no longer signal
// the subscription, which follows the path.
func TestReplacedFileQuiet(t *testing.T) {
	w := newWatcher(t)
	dir := t.TempDir()
	p, next := filepath.Join(dir, "f"), filepath.Join(dir, "next")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	old, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	s := subscribe(t, w, p, Options{})
	sentinel := subscribe(t, w, filepath.Join(dir, "s"), Options{})
	expect(t, s, "rename over", func() error {
		if err := os.WriteFile(next, []byte("new"), 0o644); err != nil {
			return err
		}
		return os.Rename(next, p)
	})
	drain(s)
	// Events come in order: once the sentinel is signalled, a signal for
	// the write to the old file would have come first.
	expect(t, sentinel, "sentinel after a write to the old file", func() error {
		if _, err := old.Write([]byte("stale")); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "s"), nil, 0o644)
	})
	select {
	case <-s.C:
		t.Fatal("a write to the replaced file signalled the path")
	default:
	}
	expect(t, s, "write to the path", func() error { return os.WriteFile(p, []byte("x"), 0o644) })
}

// TestTwoNamesOneDir follows files through two names of one directory (a
// symbolic link to it): the kernel has one watch for both, and each name's
// subscription is signalled.
func TestTwoNamesOneDir(t *testing.T) {
	w := newWatcher(t)
	dir := t.TempDir()
	real, link := filepath.Join(dir, "real"), filepath.Join(dir, "link")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", link); err != nil {
		t.Fatal(err)
	}
	viaReal := subscribe(t, w, filepath.Join(real, "f"), Options{})
	viaLink := subscribe(t, w, filepath.Join(link, "f"), Options{})
	for _, s := range []*Sub{viaReal, viaLink} {
		expect(t, s, "write through "+filepath.Dir(s.Path()), func() error {
			return os.WriteFile(filepath.Join(real, "f"), []byte(s.Path()), 0o644)
		})
	}
	viaReal.Close()
	expect(t, viaLink, "write after the other name is closed", func() error {
		return os.WriteFile(filepath.Join(real, "f"), nil, 0o644)
	})
}

// BenchmarkDispatch measures routing one event among 10,000 subscriptions
// in one directory: a few map look-ups, whatever their number.
func BenchmarkDispatch(b *testing.B) {
	w, err := New()
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	dir := b.TempDir()
	const n = 10000
	for i := 0; i < n; i++ {
		s, err := w.Subscribe(filepath.Join(dir, fmt.Sprint("f", i)), Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
	}
	ev := event{name: filepath.Join(dir, "f5000"), mask: unix.IN_MODIFY}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.mu.Lock()
		w.dispatchLocked(ev)
		w.mu.Unlock()
	}
}

func TestRecursiveRenameInside(t *testing.T) {
	w := newWatcher(t)
	d := filepath.Join(t.TempDir(), "tree")
	if err := os.MkdirAll(filepath.Join(d, "sub", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := subscribe(t, w, d, Options{Recursive: true})
	expect(t, s, "rename subtree", func() error { return os.Rename(filepath.Join(d, "sub"), filepath.Join(d, "moved")) })
	expect(t, s, "write in the renamed subtree", func() error {
		return os.WriteFile(filepath.Join(d, "moved", "deep", "x"), nil, 0o644)
	})
	expect(t, s, "new subtree", func() error { return os.MkdirAll(filepath.Join(d, "sub", "a", "b"), 0o755) })
	expect(t, s, "write in the new subtree", func() error {
		return os.WriteFile(filepath.Join(d, "sub", "a", "b", "y"), nil, 0o644)
	})
}

// TestDirRenamedOver follows a file in an empty directory that another
// directory, holding the file, is renamed over: the watch on the replaced
// directory reports nothing more (its removal is left out, since the
// parent is watched), so only the rename onto the watched name tells.
func TestDirRenamedOver(t *testing.T) {
	w := newWatcher(t)
	dir := t.TempDir()
	x, y := filepath.Join(dir, "x"), filepath.Join(dir, "y")
	for _, d := range []string{x, y} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(y, "f"), []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(x, "f")
	s := subscribe(t, w, p, Options{})
	expect(t, s, "rename over", func() error { return syscall.Rename(y, x) })
	expect(t, s, "edit", func() error { return os.WriteFile(p, []byte("z"), 0o644) })
	expect(t, s, "remove", func() error { return os.Remove(p) })
}

// TestRecreatedWhileQueued removes and makes again the directories of a
// followed file while the watcher is kept from delivering (as on a loaded
// machine), so that it re-anchors only after the new tree is in place.
func TestRecreatedWhileQueued(t *testing.T) {
	w := newWatcher(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b", "f")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	s := subscribe(t, w, p, Options{})
	for i := 0; i < 20; i++ {
		expect(t, s, "remove and make again", func() error {
			w.mu.Lock()
			defer w.mu.Unlock()
			if err := os.RemoveAll(filepath.Join(dir, "a")); err != nil {
				return err
			}
			return os.MkdirAll(filepath.Dir(p), 0o755)
		})
		expect(t, s, "create", func() error { return os.WriteFile(p, nil, 0o644) })
		expect(t, s, "edit", func() error { return os.WriteFile(p, []byte("x"), 0o644) })
	}
}

// TestStickyAnchor follows a file directly in a sticky world-writable
// directory (such as /tmp), which is left unwatched as a mere ancestor of
// other watched directories but must be watched as an anchor.
func TestStickyAnchor(t *testing.T) {
	w := newWatcher(t)
	sticky := filepath.Join(t.TempDir(), "scratch")
	if err := os.MkdirAll(filepath.Join(sticky, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sticky, os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	subscribe(t, w, filepath.Join(sticky, "a", "x"), Options{})
	s := subscribe(t, w, filepath.Join(sticky, "y"), Options{})
	expect(t, s, "create", func() error { return os.WriteFile(filepath.Join(sticky, "y"), nil, 0o644) })
}
