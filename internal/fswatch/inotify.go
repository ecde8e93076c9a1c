package fswatch

import (
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watchMask is what a kernel watch of a directory reports: its entries
// made, written, removed, renamed in or out and changed in attributes, and
// the directory itself removed or moved. IN_EXCL_UNLINK leaves out the
// writes to a file after it left the directory (replaced by a rename while
// a writer still holds it open): they change no path. IN_ONLYDIR refuses
// a path that became a file since it was looked at.
const watchMask = unix.IN_CREATE | unix.IN_MODIFY | unix.IN_DELETE | unix.IN_DELETE_SELF |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_MOVE_SELF | unix.IN_ATTRIB |
	unix.IN_EXCL_UNLINK | unix.IN_ONLYDIR

// ancestorMask is what a kernel watch of a mere ancestor of what the
// subscriptions follow reports: its entries made, removed and renamed, and
// the directory itself removed or moved; not the writes and attribute
// changes of its entries, which concern no subscription. Those two are
// the events the kernel delivers through the entry's parent: a watch that
// asks for them makes the kernel mark every entry of the directory that
// it holds in memory as having a watched parent (a walk of them all, about
// 0.2 µs an entry here, names of removed files included, which a directory
// such as /etc or one where temporary files come and go makes long), and
// then look at the parent on each open, write or attribute change of any
// of them.
const ancestorMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_DELETE_SELF |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_MOVE_SELF |
	unix.IN_EXCL_UNLINK | unix.IN_ONLYDIR

// An event is what a kernel watch reported about a path: the path of an
// entry of a watched directory, or of the directory itself.
type event struct {
	name string
	mask uint32 // inotify bits
}

// gone reports whether the path was removed or renamed away.
func (e event) gone() bool {
	return e.mask&(unix.IN_DELETE|unix.IN_DELETE_SELF|unix.IN_MOVED_FROM|unix.IN_MOVE_SELF) != 0
}

// made reports whether the path was created or something renamed onto it.
func (e event) made() bool { return e.mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 }

// kernel is the watcher's inotify instance: the descriptor and which
// directories each watch descriptor stands for (several names may lead to
// one directory, and the kernel gives them one watch). It is guarded by
// the watcher's lock, except the descriptor's reads, which only the
// reader goroutine does.
type kernel struct {
	file   *os.File
	fd     int // -1 once closed
	byWd   map[int32][]string
	byPath map[string]int32
	// entries: the watches that report the changes of their entries
	// (watchMask); the others report what ancestorMask says
	entries map[int32]bool
	// released: every watch was removed for the exit (removeAll), and
	// none may be added
	released bool
}

// newKernel makes an inotify instance, non-blocking so that its reads wait
// in the runtime's poller rather than holding a thread.
func newKernel() (*kernel, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, os.NewSyscallError("inotify_init1", err)
	}
	return &kernel{
		file:    os.NewFile(uintptr(fd), "inotify"),
		fd:      fd,
		byWd:    map[int32][]string{},
		byPath:  map[string]int32{},
		entries: map[int32]bool{},
	}, nil
}

// close closes the descriptor: a read in progress returns os.ErrClosed, and
// later watch changes do nothing (the number could belong to another file
// by then).
func (k *kernel) close() error {
	if k.fd < 0 {
		return nil
	}
	k.fd = -1
	return k.file.Close()
}

// add watches the directory dir: with entries, the changes of its entries
// too (watchMask), else as an ancestor (ancestorMask). The events of a
// watch are only ever added to (IN_MASK_ADD): another name of the same
// directory may need them.
func (k *kernel) add(dir string, entries bool) error {
	if k.fd < 0 || k.released {
		return os.ErrClosed
	}
	mask := uint32(ancestorMask)
	if entries {
		mask = watchMask
	}
	wd, err := unix.InotifyAddWatch(k.fd, dir, mask|unix.IN_MASK_ADD)
	if err != nil {
		return &os.PathError{Op: "inotify_add_watch", Path: dir, Err: err}
	}
	w := int32(wd)
	if entries {
		k.entries[w] = true
	}
	if old, ok := k.byPath[dir]; ok {
		if old == w {
			return nil
		}
		k.forget(dir, old)
	}
	k.byPath[dir] = w
	k.byWd[w] = append(k.byWd[w], dir)
	return nil
}

// watchesEntries reports whether the watch of dir reports the changes of
// its entries.
func (k *kernel) watchesEntries(dir string) bool {
	w, ok := k.byPath[dir]
	return ok && k.entries[w]
}

// remove stops watching dir. The kernel watch goes with the last name that
// leads to it.
func (k *kernel) remove(dir string) {
	w, ok := k.byPath[dir]
	if !ok {
		return
	}
	if k.forget(dir, w) && k.fd >= 0 {
		// It fails when the kernel dropped the watch already (its
		// directory was removed): nothing is left to do then.
		_, _ = unix.InotifyRmWatch(k.fd, uint32(w))
	}
}

// removeAll removes every watch (Watcher.Release): later adds fail.
func (k *kernel) removeAll() {
	if k.fd < 0 {
		return
	}
	for w := range k.byWd {
		_, _ = unix.InotifyRmWatch(k.fd, uint32(w))
	}
	clear(k.byWd)
	clear(k.byPath)
	clear(k.entries)
	k.released = true
}

// forget drops the name dir of the watch w and reports whether w has no
// name left.
func (k *kernel) forget(dir string, w int32) bool {
	delete(k.byPath, dir)
	names := k.byWd[w]
	for i, n := range names {
		if n == dir {
			names = append(names[:i], names[i+1:]...)
			break
		}
	}
	if len(names) == 0 {
		delete(k.byWd, w)
		delete(k.entries, w)
		return true
	}
	k.byWd[w] = names
	return false
}

// dropWd forgets a watch the kernel removed.
func (k *kernel) dropWd(w int32) {
	for _, n := range k.byWd[w] {
		delete(k.byPath, n)
	}
	delete(k.byWd, w)
	delete(k.entries, w)
}

// readBuf holds a read of the inotify descriptor: at least one event with
// the longest name, and many short ones.
const readBuf = 64 << 10

// readLoop reads the kernel's events and delivers each batch at once, under
// the watcher's lock, in the goroutine that read it: an event reaches the
// subscriptions without a hand-off to another goroutine. It returns once
// the descriptor is closed.
func (w *Watcher) readLoop() {
	buf := make([]byte, readBuf)
	for {
		n, err := w.k.file.Read(buf)
		if err != nil && isClosed(err) {
			return
		}
		w.mu.Lock()
		if w.closed {
			w.mu.Unlock()
			return
		}
		if err != nil || n < unix.SizeofInotifyEvent {
			// Not possible with this buffer; should it happen, events may
			// be lost, so everything is checked again.
			w.resyncLocked()
		} else {
			w.deliverLocked(buf[:n])
		}
		w.unlock()
	}
}

func isClosed(err error) bool {
	pe, ok := err.(*os.PathError)
	return err == os.ErrClosed || ok && pe.Err == os.ErrClosed
}

// deliverLocked dispatches the events of one read. A kernel queue overflow
// (events were dropped) re-checks everything.
func (w *Watcher) deliverLocked(buf []byte) {
	if w.released {
		return // the removal of its watches, or what was read before
	}
	for off := 0; off+unix.SizeofInotifyEvent <= len(buf); {
		raw := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
		nameAt := off + unix.SizeofInotifyEvent
		off = nameAt + int(raw.Len)
		if off > len(buf) {
			w.resyncLocked()
			return
		}
		switch {
		case raw.Mask&unix.IN_Q_OVERFLOW != 0:
			w.resyncLocked()
			continue
		case raw.Mask&(unix.IN_IGNORED|unix.IN_UNMOUNT) != 0:
			// The kernel removed the watch: its directory is gone, which
			// was reported just before.
			w.k.dropWd(raw.Wd)
			continue
		}
		base := cString(buf[nameAt:off])
		for _, dir := range w.k.namesOf(raw.Wd, raw.Mask, base) {
			w.dispatchLocked(event{name: entryPath(dir, base), mask: raw.Mask})
		}
	}
}

// namesOf returns the directories the event of watch wd is about. An event
// about a watched directory itself drops the watch when it moved (its
// events would come under the old name); its removal is left out when its
// parent is watched too, which reports it.
func (k *kernel) namesOf(wd int32, mask uint32, base string) []string {
	names := k.byWd[wd]
	if base != "" || len(names) == 0 {
		return names
	}
	switch {
	case mask&unix.IN_MOVE_SELF != 0:
		names = append([]string(nil), names...)
		for _, n := range names {
			k.remove(n)
		}
	case mask&unix.IN_DELETE_SELF != 0:
		var left []string
		for _, n := range names {
			if _, ok := k.byPath[filepath.Dir(n)]; !ok {
				left = append(left, n)
			}
		}
		return left
	}
	return names
}

// entryPath returns the path of the entry base of the directory dir, or
// dir when base is empty.
func entryPath(dir, base string) string {
	switch {
	case base == "":
		return dir
	case dir == "/":
		return "/" + base
	}
	return dir + "/" + base
}

// cString returns the name an event holds, without the padding zeros.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
