// Package fswatch is a process-wide file system watcher shared by every
// resource that watches paths: one inotify instance (one fsnotify.Watcher)
// for the whole process, whatever the number of resources.
//
// # Algorithm
//
// A subscription follows one path P. inotify reports events about the
// entries of a watched directory (create, delete, write, attribute change,
// rename), so the subscription watches the directory holding P (its anchor)
// rather than P itself: 10,000 files in one directory cost one kernel watch.
// Directory watches are reference counted; the last subscription leaving a
// directory removes its watch.
//
// When P's directory does not exist yet, the anchor is the nearest existing
// ancestor, and the subscription waits for the next path component below it
// to appear. Any event on the awaited component, on P or on the anchor itself
// (deleted or moved away) re-anchors the subscription: it recomputes the
// nearest existing ancestor, moves its reference, and signals the
// subscriber. A subscription with Contents set also watches P itself when P
// is a directory, so that changes to its entries are seen; with Recursive set
// it watches every directory below P as well.
//
// Every watched directory also keeps a (shared, counted) kernel watch on
// each of its ancestors up to the root, so the rename or removal of any
// ancestor is reported: the watches at and below it are then dropped (a
// moved directory would keep reporting under its old name) and their
// subscriptions re-anchored. The cost is a handful of extra watches for the
// whole process, and events about unrelated entries of those ancestors,
// which a map look-up discards. Sticky world-writable ancestors such as
// /tmp are left out: they are never renamed, and their constant traffic
// would wake an idle process.
//
// Events are routed through maps keyed by path (the path a subscription waits
// on, and the directories it watches), so delivering one event costs a few
// map look-ups whatever the number of subscriptions. Delivery never blocks:
// each subscription has a one-slot channel, and pending signals coalesce.
// Spurious signals are allowed; missed ones are not, so a kernel queue
// overflow or a watcher error signals every subscription.
package fswatch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// A Watcher multiplexes one fsnotify watcher between many subscriptions.
type Watcher struct {
	mu     sync.Mutex
	fw     *fsnotify.Watcher
	dirs   map[string]int           // directory used by subscriptions -> references
	kref   map[string]int           // kernel-watched directory -> dirs at or below it
	byKey  map[string][]*Sub        // path a subscription waits on -> subs
	byDir  map[string]map[*Sub]bool // anchor directory -> subs anchored there
	byOwn  map[string]map[*Sub]bool // directory owned (Contents) -> subs
	all    map[*Sub]bool            // every open subscription
	closed bool

	qmu   sync.Mutex    // guards queue
	queue []queued      // events read from fsnotify, not yet dispatched
	wake  chan struct{} // one-slot: the queue has items
}

// A Sub is one subscription. Its channel C receives a value whenever the
// followed path may have changed.
type Sub struct {
	C <-chan struct{}

	c         chan struct{}
	w         *Watcher
	path      string
	contents  bool
	recursive bool

	key    string          // path whose events concern us (P, or the awaited component)
	anchor string          // directory watched for key
	owned  map[string]bool // extra watched directories (Contents/Recursive)
	closed bool
}

// Options select what a subscription follows besides the path itself.
type Options struct {
	// Contents also reports changes to the entries of the directory at the
	// path.
	Contents bool
	// Recursive reports changes anywhere below the directory at the path.
	Recursive bool
}

var (
	defaultOnce sync.Once
	defaultW    *Watcher
	defaultErr  error
)

// Default returns the process-wide watcher, creating it on first use.
func Default() (*Watcher, error) {
	defaultOnce.Do(func() { defaultW, defaultErr = New() })
	return defaultW, defaultErr
}

// New returns a new watcher with its own inotify instance. Most callers
// want Default.
func New() (*Watcher, error) {
	fw, err := fsnotify.NewBufferedWatcher(1024)
	if err != nil {
		return nil, err
	}
	w := &Watcher{
		fw:    fw,
		dirs:  map[string]int{},
		kref:  map[string]int{},
		byKey: map[string][]*Sub{},
		byDir: map[string]map[*Sub]bool{},
		byOwn: map[string]map[*Sub]bool{},
		all:   map[*Sub]bool{},
		wake:  make(chan struct{}, 1),
	}
	go w.loop()
	go w.dispatchLoop()
	return w, nil
}

// Close stops the watcher; its subscriptions receive no more signals.
func (w *Watcher) Close() error {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	return w.fw.Close()
}

// WatchCount returns the number of directories the kernel watches for w.
func (w *Watcher) WatchCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.kref)
}

// Subscribe follows path (an absolute path; a trailing slash is ignored).
func (w *Watcher) Subscribe(path string, opts Options) (*Sub, error) {
	if !filepath.IsAbs(path) {
		return nil, errors.New("fswatch: path must be absolute: " + path)
	}
	c := make(chan struct{}, 1)
	s := &Sub{
		C: c, c: c, w: w,
		path:      filepath.Clean(path),
		contents:  opts.Contents || opts.Recursive,
		recursive: opts.Recursive,
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, errors.New("fswatch: watcher closed")
	}
	w.all[s] = true
	if err := w.anchorLocked(s); err != nil {
		w.dropLocked(s)
		return nil, err
	}
	return s, nil
}

// Close ends the subscription and releases its directory watches.
func (s *Sub) Close() {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	s.w.dropLocked(s)
}

// Path returns the followed path.
func (s *Sub) Path() string { return s.path }

func (s *Sub) signal() {
	select {
	case s.c <- struct{}{}:
	default:
	}
}

// dropLocked releases every watch of s.
func (w *Watcher) dropLocked(s *Sub) {
	if s.closed {
		return
	}
	s.closed = true
	delete(w.all, s)
	if s.key != "" {
		delKey(w.byKey, s.key, s)
		s.key = ""
	}
	if s.anchor != "" {
		delSub(w.byDir, s.anchor, s)
		w.releaseLocked(s.anchor)
		s.anchor = ""
	}
	for d := range s.owned {
		delSub(w.byOwn, d, s)
		w.releaseLocked(d)
	}
	s.owned = nil
}

// anchorLocked (re)computes the anchor of s (the nearest existing ancestor
// directory of its path), the key it waits on, and its extra watches.
func (w *Watcher) anchorLocked(s *Sub) error {
	key, err := w.placeLocked(s)
	// The awaited component may have been made after we looked for it
	// but before the anchor's watch was in place (mkdir -p does that):
	// its creation event is then lost, so look again while it is there.
	for try := 0; err == nil && key != s.path && try < 64; try++ {
		if fi, serr := os.Stat(key); serr != nil || !fi.IsDir() {
			break
		}
		key, err = w.placeLocked(s)
	}
	if err != nil {
		return err
	}
	if s.contents {
		w.ownTreeLocked(s, key == s.path)
	}
	return nil
}

// placeLocked moves the anchor of s to the nearest existing ancestor of its
// path, and its key to the component below it; it returns the key.
func (w *Watcher) placeLocked(s *Sub) (string, error) {
	key, anchor := s.path, filepath.Dir(s.path)
	for anchor != s.anchor {
		err := w.acquireLocked(anchor)
		if err == nil {
			if s.anchor != "" {
				delSub(w.byDir, s.anchor, s)
				w.releaseLocked(s.anchor)
			}
			s.anchor = anchor
			addSub(w.byDir, anchor, s)
			break
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errNotDir) {
			return "", err
		}
		if anchor == "/" {
			return "", err
		}
		key, anchor = anchor, filepath.Dir(anchor)
	}
	if s.key != key {
		if s.key != "" {
			delKey(w.byKey, s.key, s)
		}
		s.key = key
		w.byKey[key] = append(w.byKey[key], s)
	}
	return key, nil
}

// ownTreeLocked watches the directory at s.path (and, when recursive, all
// the directories below it), releasing the ones that disappeared.
func (w *Watcher) ownTreeLocked(s *Sub, present bool) {
	want := map[string]bool{}
	switch {
	case !present:
	case s.recursive:
		_ = filepath.WalkDir(s.path, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				want[p] = true
			}
			return nil
		})
	default:
		if fi, err := os.Stat(s.path); err == nil && fi.IsDir() {
			want[s.path] = true
		}
	}
	for d := range s.owned {
		if !want[d] {
			delSub(w.byOwn, d, s)
			w.releaseLocked(d)
			delete(s.owned, d)
		}
	}
	for d := range want {
		if s.owned[d] {
			continue
		}
		if err := w.acquireLocked(d); err == nil {
			if s.owned == nil {
				s.owned = map[string]bool{}
			}
			s.owned[d] = true
			addSub(w.byOwn, d, s)
		}
	}
}

var errNotDir = errors.New("not a directory")

// acquireLocked adds a reference to dir. The first one adds kernel
// watches on dir and on each of its ancestors (shared, counted in kref),
// so that the rename or removal of any ancestor is seen.
func (w *Watcher) acquireLocked(dir string) error {
	if w.dirs[dir] == 0 {
		fi, err := os.Stat(dir)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return errNotDir
		}
		if w.kref[dir] == 0 {
			if err := w.fw.Add(dir); err != nil {
				return err
			}
		}
		for a := dir; ; a = filepath.Dir(a) {
			if w.kref[a] == 0 && a != dir && !sharedScratch(a) {
				// An ancestor that cannot be watched (permissions) only
				// narrows what is seen; the directory itself is watched.
				_ = w.fw.Add(a)
			}
			w.kref[a]++
			if a == "/" {
				break
			}
		}
	}
	w.dirs[dir]++
	return nil
}

// sharedScratch reports whether dir is a sticky, world-writable directory
// such as /tmp: it is never renamed itself, and every user creates entries
// in it all the time, so watching it as an ancestor would only cost wake-ups.
func sharedScratch(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.Mode()&os.ModeSticky != 0 && fi.Mode().Perm()&0o002 != 0
}

// releaseLocked drops a reference to dir, and with the last one its kernel
// watch and its share of its ancestors' watches.
func (w *Watcher) releaseLocked(dir string) {
	n, ok := w.dirs[dir]
	if !ok {
		return
	}
	if n > 1 {
		w.dirs[dir] = n - 1
		return
	}
	delete(w.dirs, dir)
	for a := dir; ; a = filepath.Dir(a) {
		if w.kref[a] <= 1 {
			delete(w.kref, a)
			_ = w.fw.Remove(a) // fails harmlessly when the kernel dropped it
		} else {
			w.kref[a]--
		}
		if a == "/" {
			break
		}
	}
}

// forgetUnderLocked handles the removal or rename of the directory name:
// every referenced directory at or below it is released at once, and the
// subscriptions that used them are returned for re-anchoring.
func (w *Watcher) forgetUnderLocked(name string) []*Sub {
	var todo []*Sub
	prefix := strings.TrimSuffix(name, "/") + "/"
	for d := range w.dirs {
		if d != name && !strings.HasPrefix(d, prefix) {
			continue
		}
		for s := range w.byDir[d] {
			s.anchor = ""
			todo = append(todo, s)
		}
		for s := range w.byOwn[d] {
			delete(s.owned, d)
			todo = append(todo, s)
		}
		delete(w.byDir, d)
		delete(w.byOwn, d)
		w.dirs[d] = 1
		w.releaseLocked(d)
	}
	return todo
}

func addSub(m map[string]map[*Sub]bool, k string, s *Sub) {
	set := m[k]
	if set == nil {
		set = map[*Sub]bool{}
		m[k] = set
	}
	set[s] = true
}

// delKey removes s from the (usually one-element) list of k.
func delKey(m map[string][]*Sub, k string, s *Sub) {
	l := m[k]
	for i, x := range l {
		if x == s {
			l[i] = l[len(l)-1]
			l = l[:len(l)-1]
			break
		}
	}
	if len(l) == 0 {
		delete(m, k)
		return
	}
	m[k] = l
}

func delSub(m map[string]map[*Sub]bool, k string, s *Sub) {
	if set := m[k]; set != nil {
		delete(set, s)
		if len(set) == 0 {
			delete(m, k)
		}
	}
}

// loop moves the fsnotify events into a queue and wakes the dispatcher.
// It never waits for w.mu: fsnotify may hold its own lock while it sends
// an error, and Subscribe and Close call into fsnotify with w.mu held.
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
		// Fast path: deliver at once when nobody holds the lock and
		// nothing is queued. Delivery only recomputes state from the file
		// system, so an event overtaking a batch in flight is harmless.
		w.qmu.Lock()
		if len(w.queue) == 0 && w.mu.TryLock() {
			w.qmu.Unlock()
			w.deliverLocked(item)
			w.mu.Unlock()
			continue
		}
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
		w.signalAllLocked()
		return
	}
	w.dispatchLocked(item.ev)
}

// queued is an event, or (all) an error that signals every subscription.
type queued struct {
	ev  fsnotify.Event
	all bool
}

// dispatchLoop delivers the queued events until the watcher is closed.
func (w *Watcher) dispatchLoop() {
	for range w.wake {
		w.qmu.Lock()
		batch := w.queue
		w.queue = nil
		w.qmu.Unlock()
		w.mu.Lock()
		for _, item := range batch {
			w.deliverLocked(item)
		}
		w.mu.Unlock()
	}
}

func (w *Watcher) signalAllLocked() {
	for s := range w.all {
		s.signal()
	}
}

// dispatch delivers one event: to the subscriptions waiting on its path,
// to the ones anchored at or owning the directory it names when that
// directory went away, and to the ones owning its parent directory.
func (w *Watcher) dispatchLocked(ev fsnotify.Event) {
	name := filepath.Clean(ev.Name)
	gone := ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)
	var todo []*Sub
	if gone && w.kref[name] > 0 {
		// A watched directory, or an ancestor of one, went away: its
		// watches are stale (a moved directory keeps its watch under the
		// new name), so forget them and re-anchor their subscriptions.
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
// signals it.
func (w *Watcher) reanchorLocked(s *Sub) {
	if s.closed {
		return
	}
	// An error here means even the root could not be watched (a kernel
	// limit); the subscriber still gets this signal.
	_ = w.anchorLocked(s)
	s.signal()
}
