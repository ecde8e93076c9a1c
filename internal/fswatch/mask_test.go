package fswatch

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// kernelMasks returns the events each kernel watch of w asks for, by the
// inode of its directory, as the kernel lists them in the descriptor's
// fdinfo.
func kernelMasks(t *testing.T, w *Watcher) map[uint64]uint32 {
	t.Helper()
	w.mu.Lock()
	fd := w.k.fd
	w.mu.Unlock()
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", fd))
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint64]uint32{}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "inotify ") {
			continue
		}
		var ino uint64
		var mask uint32
		for _, f := range strings.Fields(line) {
			k, v, _ := strings.Cut(f, ":")
			switch k {
			case "ino":
				ino, _ = strconv.ParseUint(v, 16, 64)
			case "mask":
				m, _ := strconv.ParseUint(v, 16, 32)
				mask = uint32(m)
			}
		}
		out[ino] = mask
	}
	return out
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Ino
}

// entryEvents are the events of a directory's entries that only the
// directories the subscriptions use ask for.
const entryEvents = unix.IN_MODIFY | unix.IN_ATTRIB

// TestAncestorMask checks that the kernel watches of mere ancestors ask
// for the renames, creations and removals of their entries but not their
// writes and attribute changes (which would make the kernel walk every
// entry the directory holds in memory, and report each write in it), that
// an ancestor becomes a full watch once a subscription uses it, and that
// the rename of an ancestor is still reported.
func TestAncestorMask(t *testing.T) {
	w := newWatcher(t)
	top := t.TempDir()
	a := filepath.Join(top, "a")
	b := filepath.Join(a, "b")
	if err := os.MkdirAll(b, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if err := os.WriteFile(filepath.Join(a, fmt.Sprintf("other%d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := filepath.Join(b, "f")
	s := subscribe(t, w, f, Options{})
	masks := kernelMasks(t, w)
	if m, ok := masks[inode(t, b)]; !ok || m&entryEvents != entryEvents {
		t.Fatalf("the watch of %s, where the file is, asks for %#x: not its entries' writes and attributes", b, m)
	}
	for _, d := range []string{a, top} {
		m, ok := masks[inode(t, d)]
		if !ok {
			t.Fatalf("no kernel watch of the ancestor %s", d)
		}
		if m&entryEvents != 0 {
			t.Errorf("the watch of the ancestor %s asks for %#x: its entries' writes or attributes", d, m)
		}
		if want := uint32(unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF); m&want != want {
			t.Errorf("the watch of the ancestor %s asks for %#x, not all of %#x", d, m, want)
		}
	}
	// A subscription of an entry of the ancestor makes it a full watch,
	// and is told of that entry's writes.
	other := filepath.Join(a, "other7")
	s2 := subscribe(t, w, other, Options{})
	if m := kernelMasks(t, w)[inode(t, a)]; m&entryEvents != entryEvents {
		t.Fatalf("the watch of %s, used by a subscription now, asks for %#x", a, m)
	}
	expect(t, s2, "write an entry of a former ancestor", func() error { return os.WriteFile(other, []byte("x"), 0o644) })
	expect(t, s2, "chmod an entry of a former ancestor", func() error { return os.Chmod(other, 0o600) })
	// Its subscription gone, it is an ancestor again: its events may
	// stay as they are, but the rename of an ancestor is still seen.
	s2.Close()
	expect(t, s, "rename an ancestor", func() error { return os.Rename(a, filepath.Join(top, "moved")) })
}
