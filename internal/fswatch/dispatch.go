package fswatch

import (
	"path/filepath"

	"golang.org/x/sys/unix"
)

// signalAllLocked signals every subscription.
func (w *Watcher) signalAllLocked() {
	for _, s := range w.all {
		s.signal()
	}
}

// resyncLocked follows a watcher error, after which events may have been
// lost: every watched directory is checked (the ones that were replaced are
// forgotten), every subscription that waits for a component, or follows
// contents, is re-anchored, and every subscription is signalled.
func (w *Watcher) resyncLocked() {
	var replaced []string
	for d := range w.kid {
		if w.replacedLocked(d) {
			replaced = append(replaced, d)
		}
	}
	for _, d := range replaced {
		if w.kref[d] > 0 {
			w.forgetUnderLocked(d)
		}
	}
	for _, s := range w.all {
		if int(s.keyLen) != len(s.path) || s.contents || s.anchor == "" {
			w.reanchorLocked(s)
		} else {
			s.made.Store(false)
			s.signal()
		}
	}
}

// dispatchLocked delivers one event: to the subscriptions waiting on its
// path, to the ones anchored at or owning the directory it names when that
// directory went away or was replaced, and to the ones owning its parent
// directory.
func (w *Watcher) dispatchLocked(ev event) {
	name := ev.name
	var todo []*Sub
	switch {
	case ev.gone() && w.kref[name] > 0:
		// A watched directory, or an ancestor of one, went away: its
		// watches are stale (a moved directory keeps its watch under the
		// new name), so forget them and re-anchor their subscriptions.
		todo = w.forgetUnderLocked(name)
	case ev.made() && w.replacedLocked(name):
		// The name of a watched directory leads to another one (made
		// again, or renamed over it) before the removal was seen.
		todo = w.forgetUnderLocked(name)
	}
	for s := w.byKey[name]; s != nil; s = s.keyNext {
		if s.made.Load() && s.made.Swap(false) && ev.mask&^unix.IN_ISDIR == unix.IN_CREATE && int(s.keyLen) == len(s.path) {
			continue // the subscriber's own creation (Made)
		}
		if s.entry != nil && int(s.keyLen) == len(s.path) && ev.mask&^(unix.IN_ATTRIB|unix.IN_ISDIR) == 0 {
			// The directory's own attributes, which its entries'
			// subscribers do not follow (see Options.Entry).
			continue
		}
		todo = append(todo, s)
	}
	for s := range w.byOwn[filepath.Dir(name)] {
		if s.entry != nil {
			// An entry of a directory followed without what is below
			// it: the subscriber is told which.
			s.entry(filepath.Base(name), ev.mask&^unix.IN_ISDIR == unix.IN_CREATE)
			continue
		}
		todo = append(todo, s)
	}
	for _, s := range todo {
		if int(s.keyLen) != len(s.path) || s.contents || s.anchor == "" {
			w.reanchorLocked(s)
		} else {
			s.signal()
		}
	}
}

// reanchorLocked recomputes the watches of s after a structural change and
// signals it. A kernel limit met on the way is kept for Err.
func (w *Watcher) reanchorLocked(s *Sub) {
	if s.closed {
		return
	}
	s.made.Store(false)
	if err := w.anchorLocked(s); err != nil && s.err == nil {
		s.err = err
	}
	s.signal()
}
