package fswatch

import (
	"path/filepath"

	"github.com/fsnotify/fsnotify"
)

// loop moves the fsnotify events into a queue and wakes the dispatcher.
// It never waits for w.mu, and never calls into fsnotify: fsnotify holds
// its own lock while it sends an error (a failed removal of a moved
// directory's watch, for one), and the dispatcher calls into fsnotify
// with w.mu held, so only a reader that is always free to take the error
// keeps the two from waiting on each other.
func (w *Watcher) loop() {
	defer close(w.wake)
	for {
		var item queued
		select {
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			item.ev = ev
		case _, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			item.all = true
		}
		w.qmu.Lock()
		w.queue = append(w.queue, item)
		w.qmu.Unlock()
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// deliverLocked dispatches one queued item.
func (w *Watcher) deliverLocked(item queued) {
	if item.all {
		w.resyncLocked()
		return
	}
	w.dispatchLocked(item.ev)
}

// queued is an event, or (all) an error such as a kernel queue overflow,
// after which events may be missing.
type queued struct {
	ev  fsnotify.Event
	all bool
}

// dispatchLoop delivers the queued events until the watcher is closed;
// what is still queued then is dropped.
func (w *Watcher) dispatchLoop() {
	for range w.wake {
		w.qmu.Lock()
		batch := w.queue
		w.queue = nil
		w.qmu.Unlock()
		w.mu.Lock()
		for _, item := range batch {
			if w.closed {
				break
			}
			w.deliverLocked(item)
		}
		w.unlock()
	}
}

func (w *Watcher) signalAllLocked() {
	for s := range w.all {
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
	for s := range w.all {
		if s.key != s.path || s.contents || s.anchor == "" {
			w.reanchorLocked(s)
		} else {
			s.signal()
		}
	}
}

// dispatchLocked delivers one event: to the subscriptions waiting on its
// path, to the ones anchored at or owning the directory it names when that
// directory went away or was replaced, and to the ones owning its parent
// directory.
func (w *Watcher) dispatchLocked(ev fsnotify.Event) {
	name := filepath.Clean(ev.Name)
	var todo []*Sub
	switch {
	case (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) && w.kref[name] > 0:
		// A watched directory, or an ancestor of one, went away: its
		// watches are stale (a moved directory keeps its watch under the
		// new name), so forget them and re-anchor their subscriptions.
		todo = w.forgetUnderLocked(name)
	case ev.Has(fsnotify.Create) && w.replacedLocked(name):
		// The name of a watched directory leads to another one (made
		// again, or renamed over it) before the removal was seen.
		todo = w.forgetUnderLocked(name)
	}
	todo = append(todo, w.byKey[name]...)
	for s := range w.byOwn[filepath.Dir(name)] {
		todo = append(todo, s)
	}
	for _, s := range todo {
		if s.key != s.path || s.contents || s.anchor == "" {
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
	if err := w.anchorLocked(s); err != nil && s.err == nil {
		s.err = err
	}
	s.signal()
}
