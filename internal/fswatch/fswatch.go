// Package fswatch is a process-wide file system watcher shared by every
// resource that watches paths: one inotify instance for the whole process,
// whatever the number of resources.
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
// whole process, and the creations, removals and renames of unrelated
// entries of those ancestors, which a map look-up discards: a watch of a
// mere ancestor does not ask for the writes and attribute changes of its
// entries (ancestorMask), which would make the kernel mark every entry of
// the directory it holds in memory when the watch is added, and report
// every write in /etc to a process that follows one file below it; the
// watch asks for them too from the moment a subscription uses the
// directory. Sticky world-writable ancestors such as /tmp are left out:
// they are never renamed, and their constant traffic would wake an idle
// process.
//
// # Never missing a change
//
// A kernel watch only reports what happens after it is in place, and the
// directory it watches can be replaced behind its back. Four rules close
// those gaps:
//
//   - After placing a subscription, the awaited component is looked for
//     again, at every level: a directory made before the anchor's watch was
//     in place (mkdir -p) moves the anchor down at once.
//   - Every kernel watch added anew is followed, before the operation that
//     added it ends, by a read of its directory: a directory that a
//     recursive subscription does not watch yet is taken in, and an entry
//     that is itself watched is checked as below.
//   - The watcher records which directory (device and inode) each kernel
//     watch is on. A creation event (or a rename onto the name) for a
//     watched directory whose name now leads to another directory (it was
//     removed and made again, or another one was renamed over it) drops the
//     stale watches at and below it and re-anchors their subscriptions.
//   - A watch whose last reference goes is removed only once the operation
//     ends, so re-anchoring never leaves a live ancestor unwatched for a
//     moment (in such a gap a removal would be reported by nobody).
//
// Events are routed through maps keyed by path (the path a subscription waits
// on, and the directories it watches), so delivering one event costs a few
// map look-ups whatever the number of subscriptions. One goroutine reads
// the inotify descriptor and delivers what each read returns itself, under
// the watcher's lock: an event reaches a subscription's Notify function
// without passing through another goroutine. Delivery never blocks:
// each subscription has a one-slot channel, and pending signals coalesce.
// Spurious signals are allowed; missed ones are not, so a kernel queue
// overflow or a watcher error re-checks every watch and signals every
// subscription. The one signal left out is the creation of the path that
// the subscriber announced as its own (Sub.Made), and only when it is the
// next event about the path.
//
// # Kernel limits
//
// inotify has two per-user limits: the number of instances
// (fs.inotify.max_user_instances, hit when the process-wide watcher is
// made) and the number of watches (fs.inotify.max_user_watches, hit when a
// directory is watched). Either one is reported as a *LimitError naming the
// sysctl to raise. Default tries again on its next call after a failure,
// and a subscription that could not re-anchor for want of watches reports
// it through Err.
package fswatch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
)

// A Watcher multiplexes one inotify instance between many subscriptions.
type Watcher struct {
	mu    sync.Mutex
	k     *kernel
	dirs  map[string]int    // directory used by subscriptions -> references
	kref  map[string]int    // directory with a kernel watch -> dirs at or below it
	kid   map[string]fileID // kernel-watched directory -> the directory the watch is on
	stale map[string]bool   // kernel watches without references, removed when the operation ends
	fresh []string          // directories watched anew, read again when the operation ends
	check []string          // watched or awaited paths to check when the operation ends
	byKey map[string]*Sub   // path a subscription waits on -> subs, chained by keyNext (sublist.go)
	// kids counts, per directory, its entries that are kernel-watched
	// (kref) or waited on (byKey): a directory watched anew is read again
	// only when it has some (rescanLocked)
	kids   map[string]int
	byDir  map[string][]*Sub        // anchor directory -> subs anchored there
	byOwn  map[string]map[*Sub]bool // directory owned (Contents) -> subs
	all    []*Sub                   // every open subscription
	closed bool
	// released: Release removed every kernel watch, and the watcher
	// watches nothing more
	released bool

	wg sync.WaitGroup // readLoop, joined by Close
}

// A Sub is one subscription. Its channel C receives a value whenever the
// followed path may have changed.
type Sub struct {
	C <-chan struct{}

	c    chan struct{}
	w    *Watcher
	path string

	anchor  string             // directory watched for key
	owned   map[string]bool    // extra watched directories (Contents/Recursive)
	err     error              // a watch that could not be set up (a kernel limit)
	notify  func(error)        // Options.Notify
	entry   func(string, bool) // Options.Entry, with Contents and not Recursive
	keyNext *Sub               // the next subscription waiting on key
	keyPrev *Sub               // the one before it, nil for the first

	allAt, dirAt int32 // its places in the lists of Watcher.all and byDir[anchor]
	// keyLen is the length of key, the path whose events concern us (the
	// path, or the awaited component: a directory above it, so a prefix
	// of the clean absolute path); 0 when it waits on none
	keyLen int32

	made atomic.Bool // the subscriber made the path (Made); cleared by the next event about it

	contents  bool
	recursive bool
	closed    bool
}

// Options select what a subscription follows besides the path itself.
type Options struct {
	// Contents also reports changes to the entries of the directory at the
	// path.
	Contents bool
	// Recursive reports changes anywhere below the directory at the path.
	Recursive bool
	// Notify, when set, is called instead of a send on the channel C (which
	// is then nil) whenever the path may have changed, with the
	// subscription's Err: so a subscriber needs no goroutine of its own.
	// It is called with the watcher locked, from the watcher's goroutine
	// or from Subscribe itself: it must return at once and must not use
	// the watcher (Close the subscription from another goroutine).
	Notify func(err error)
	// Entry, when set with Contents (and without Recursive), is called
	// instead of Notify (or a send on C) for an event about an entry of
	// the directory at the path, with the entry's name and whether the
	// event is its creation (one that Sub.Made would mark). Everything
	// else (the directory itself made, moved, removed or replaced, a lost
	// event) still goes to Notify or C, which then stands for every
	// entry; a change of the directory's own attributes (chmod, chown,
	// touch) goes nowhere, as it changes none of its entries. So one subscription can tell many subscribers, each
	// following one entry, which of them an event concerns. It is called
	// as Notify is: with the watcher locked, and it must return at once.
	Entry func(name string, created bool)
}

// A LimitError reports a kernel limit that keeps a watch from being set up.
type LimitError struct {
	// Limit is what to raise: the sysctl fs.inotify.max_user_watches or
	// fs.inotify.max_user_instances, or RLIMIT_NOFILE (ulimit -n) when the
	// process ran out of file descriptors.
	Limit string
	Err   error
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%v: %s reached", e.Err, e.Limit)
}

func (e *LimitError) Unwrap() error { return e.Err }

// WatchLimit returns the limit to raise. The engine polls a resource whose
// Watch fails with an error that has this method.
func (e *LimitError) WatchLimit() string { return e.Limit }

// limitError wraps err in a *LimitError when it comes from an inotify
// limit: ENOSPC from inotify_add_watch is the watch limit, EMFILE from
// inotify_init the instance limit (or the descriptor limit, when the
// process cannot open a file either).
func limitError(err error) error {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return &LimitError{Limit: "fs.inotify.max_user_watches", Err: err}
	case errors.Is(err, syscall.EMFILE):
		if f, ferr := os.Open(os.DevNull); ferr != nil {
			return &LimitError{Limit: "RLIMIT_NOFILE (ulimit -n)", Err: err}
		} else {
			f.Close()
		}
		return &LimitError{Limit: "fs.inotify.max_user_instances", Err: err}
	}
	return err
}

var (
	defaultMu sync.Mutex
	defaultW  *Watcher
)

// Default returns the process-wide watcher, creating it on first use. A
// failure is not kept: the next call tries again, so that a process that
// hit the inotify instance limit can watch once an instance is free.
func Default() (*Watcher, error) {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if defaultW == nil {
		w, err := New()
		if err != nil {
			return nil, err
		}
		defaultW = w
	}
	return defaultW, nil
}

// New returns a new watcher with its own inotify instance. Most callers
// want Default.
func New() (*Watcher, error) {
	k, err := newKernel()
	if err != nil {
		return nil, limitError(err)
	}
	w := &Watcher{
		k:     k,
		dirs:  map[string]int{},
		kref:  map[string]int{},
		kid:   map[string]fileID{},
		stale: map[string]bool{},
		byKey: map[string]*Sub{},
		kids:  map[string]int{},
		byDir: map[string][]*Sub{},
		byOwn: map[string]map[*Sub]bool{},
	}
	w.wg.Go(w.readLoop)
	return w, nil
}

// Close stops the watcher and returns once its goroutine has ended: its
// subscriptions receive no more signals, and no Notify function runs
// after it. It must not be called from a Notify function.
func (w *Watcher) Close() error {
	w.mu.Lock()
	w.closed = true
	err := w.k.close()
	w.mu.Unlock()
	w.wg.Wait()
	return err
}

// Release removes every kernel watch, for a process about to exit with
// subscriptions it leaves open (engine.Config.ExitAfterRun): from then on
// the watcher watches nothing, and its subscriptions are told nothing
// more. The kernel's release of an inotify instance that still has
// watches, in the exit of the process, waits for their destruction, which
// took 10 to 20 ms in most runs here; watches removed before are
// destroyed in the background, and the exit finds none. A subscription
// made after it fails.
func (w *Watcher) Release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.released {
		return
	}
	w.released = true
	w.k.removeAll()
}

// DefaultMade returns the process-wide watcher if it was made, or nil.
func DefaultMade() *Watcher {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	return defaultW
}

// unlock ends an operation under w.mu: it re-reads the directories watched
// anew, checks what they hold, removes the kernel watches left without
// references, then releases the lock.
func (w *Watcher) unlock() {
	w.settleLocked()
	w.mu.Unlock()
}

// WatchCount returns the number of directories the kernel watches for w.
func (w *Watcher) WatchCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.kref)
}

// Subscribe follows path (an absolute path; a trailing slash is ignored).
// It fails with a *LimitError when a kernel limit keeps it from watching.
func (w *Watcher) Subscribe(path string, opts Options) (*Sub, error) {
	if !filepath.IsAbs(path) {
		return nil, errors.New("fswatch: path must be absolute: " + path)
	}
	s := &Sub{
		w:         w,
		path:      filepath.Clean(path),
		contents:  opts.Contents || opts.Recursive,
		recursive: opts.Recursive,
		notify:    opts.Notify,
	}
	if opts.Contents && !opts.Recursive {
		s.entry = opts.Entry
	}
	if s.notify == nil {
		s.c = make(chan struct{}, 1)
		s.C = s.c
	}
	w.mu.Lock()
	defer w.unlock()
	if w.closed || w.released {
		return nil, errors.New("fswatch: watcher closed")
	}
	w.all = listAdd(w.all, s, allAt)
	if err := w.anchorLocked(s); err != nil {
		w.dropLocked(s)
		return nil, err
	}
	return s, nil
}

// Close ends the subscription and releases its directory watches.
func (s *Sub) Close() {
	s.w.mu.Lock()
	defer s.w.unlock()
	s.w.dropLocked(s)
}

// Made tells s that its subscriber has just created the path itself (or
// is about to), by
// one link (or mknod, mkdir, open with O_CREAT) that the kernel reports
// as a creation of the name: the next event about the path is then not
// signalled if it is that creation. Any other event about the path
// comes through, and clears the mark. The subscriber knows what it made;
// a change by anyone else after it is a later event, and is signalled.
//
// Should the creation already have been delivered when Made is called
// (the mark then waits for a creation that came before), the subscriber
// was signalled after its creation, and so looks at the path again after
// Made anyway: a later creation can only follow an event about the path
// (its removal) or a re-anchoring, both of which clear the mark and
// signal, so the mark never hides a change the subscriber has not seen.
func (s *Sub) Made() { s.made.Store(true) }

// Path returns the followed path.
func (s *Sub) Path() string { return s.path }

// key returns the path whose events concern s: its path, or the awaited
// component above it; "" when it waits on none.
func (s *Sub) key() string { return s.path[:s.keyLen] }

// Err returns, once the followed path moved somewhere a kernel limit kept
// the watcher from watching, that *LimitError; nil otherwise. The
// subscription then still signals but may miss changes: the subscriber
// should close it and poll instead.
func (s *Sub) Err() error {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	return s.err
}

func (s *Sub) signal() {
	if s.notify != nil {
		s.notify(s.err)
		return
	}
	select {
	case s.c <- struct{}{}:
	default:
	}
}
