package resources

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/mgmtpipe/mgmt/internal/fswatch"
	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// A follow is one path a file resource's watch follows.
type follow struct {
	path string
	opts fswatch.Options
}

// follows returns what the watch of the resource follows: the path (with
// the tree below it when it is a directory managed recursively), its
// source, its fragments, and a link's target.
func (obj *FileRes) follows() []follow {
	list := obj.followsOwn()
	if fi, err := os.Lstat(obj.cleanPath()); err == nil && fi.Mode()&os.ModeSymlink != 0 && !obj.rare().Symlink {
		// The path is a link when the watch starts: follow its target
		// too. A link changed later is seen on the path itself.
		if target, err := filepath.EvalSymlinks(obj.cleanPath()); err == nil {
			list = append(list, follow{target, list[0].opts})
		}
	}
	return list
}

// followsOwn is follows without a link's target: what the resource's
// parameters name.
func (obj *FileRes) followsOwn() []follow {
	dirTree := fswatch.Options{Contents: obj.isDir(), Recursive: obj.isDir() && obj.rare().Recurse}
	list := []follow{{obj.cleanPath(), fswatch.Options{}}}
	if !obj.rare().Symlink && (obj.rare().Source != "" || obj.isDir() && obj.rare().Recurse && (obj.mode != nil || obj.Owner != "" || obj.Group != "" || obj.rare().Purge)) {
		list[0].opts = dirTree
	}
	if obj.rare().Source != "" && !obj.rare().Symlink {
		list = append(list, follow{filepath.Clean(obj.rare().Source), dirTree})
	}
	for _, f := range obj.rare().Fragments {
		list = append(list, follow{filepath.Clean(f), fswatch.Options{Contents: true}})
	}
	return list
}

// subscribeAll subscribes to every path of list with the shared watcher,
// each with notify when it is not nil, and returns the subscriptions.
func subscribeAll(list []follow, notify func(error)) ([]*fswatch.Sub, error) {
	w, err := fswatch.Default()
	if err != nil {
		return nil, err
	}
	var subs []*fswatch.Sub
	for _, f := range list {
		f.opts.Notify = notify
		s, err := w.Subscribe(f.path, f.opts)
		if err != nil {
			closeAll(subs)
			return nil, err
		}
		subs = append(subs, s)
	}
	return subs, nil
}

func closeAll(subs []*fswatch.Sub) {
	for _, s := range subs {
		s.Close()
	}
}

// Watch follows the path, its source and its fragments through the shared
// watcher until ctx is done.
func (obj *FileRes) Watch(ctx context.Context) error {
	subs, err := subscribeAll(obj.follows(), nil)
	if err != nil {
		return err
	}
	defer closeAll(subs)
	obj.init.Running()
	return forwardEvents(ctx, subs, obj.init.Event)
}

// Subscribe follows what Watch follows without a goroutine of its own (the
// engine's Subscriber): the shared watcher's dispatcher calls Event, or
// fail once a moved path met a kernel limit. A link's target is followed
// from the first CheckApply that finds the path a link (followLink),
// before that CheckApply looks at the target: the path costs no lstat
// here on top of CheckApply's own.
func (obj *FileRes) Subscribe(fail func(error)) (func(), error) {
	fw := &fileSubs{init: obj.init, fail: fail}
	fw.notify = fw.event
	subs, err := subscribeAll(obj.followsOwn(), fw.notify)
	if err != nil {
		return nil, err
	}
	fw.subs = subs
	obj.subs.Store(fw)
	return fw.close, nil
}

// fileSubs are the subscriptions of a file resource's Subscribe. (A
// graph holds one per file: notify is the method value of event, which
// holds fw alone, rather than a closure over the resource, fw and fail.)
type fileSubs struct {
	mu     sync.Mutex
	subs   []*fswatch.Sub
	linked bool // a link's target is followed
	closed bool
	failed atomic.Bool
	notify func(error) // fw.event, given to each subscription
	init   *engine.Init
	fail   func(error)
}

// event is the notification of the subscriptions: an event of the
// resource, or their failure, reported once.
func (fw *fileSubs) event(err error) {
	switch {
	case err == nil:
		fw.init.Event()
	case !fw.failed.Swap(true):
		fw.fail(err)
	}
}

func (fw *fileSubs) close() {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	fw.closed = true
	closeAll(fw.subs)
	fw.subs = nil
}

// followLink follows the target of the path, a link, in the subscriptions
// of Subscribe, unless a target is followed already, or the resource
// manages the link itself, or it is not subscribed.
func (obj *FileRes) followLink() {
	fw := obj.subs.Load()
	if fw == nil || obj.rare().Symlink {
		return
	}
	fw.mu.Lock()
	if fw.linked || fw.closed {
		fw.mu.Unlock()
		return
	}
	fw.linked = true
	target, err := filepath.EvalSymlinks(obj.cleanPath())
	if err != nil {
		fw.mu.Unlock()
		return
	}
	subs, err := subscribeAll([]follow{{target, obj.followsOwn()[0].opts}}, fw.notify)
	if err == nil {
		fw.subs = append(fw.subs, subs...)
	}
	fw.mu.Unlock()
	if err != nil && !fw.failed.Swap(true) {
		fw.fail(err)
	}
}

// madeByLink tells the subscription to the path that the path was just
// created by a link of the resource's own complete file (createAtomic):
// the creation event that comes back is then not an event of the
// resource (fswatch.Sub.Made). It would only check again a file that
// nobody else has touched; a change by anyone else is an event of its
// own, which comes through.
func (obj *FileRes) madeByLink() {
	fw := obj.subs.Load()
	if fw == nil {
		return
	}
	fw.mu.Lock()
	if !fw.closed && len(fw.subs) > 0 && fw.subs[0].Path() == obj.cleanPath() {
		fw.subs[0].Made()
	}
	fw.mu.Unlock()
}

// forwardEvents calls event for every signal of the subscriptions until
// ctx is done. It returns a subscription's error (a kernel limit met while
// following a moved path), so that the engine polls the resource instead.
// The goroutines it starts have ended when it returns.
func forwardEvents(ctx context.Context, subs []*fswatch.Sub, event func()) error {
	if len(subs) == 1 {
		for {
			select {
			case <-subs[0].C:
				if err := subs[0].Err(); err != nil {
					return err
				}
				event()
			case <-ctx.Done():
				return nil
			}
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	merged := make(chan struct{}, 1)
	for _, s := range subs[1:] {
		wg.Go(func() {
			for {
				select {
				case <-s.C:
					select {
					case merged <- struct{}{}:
					default:
					}
				case <-ctx.Done():
					return
				}
			}
		})
	}
	for {
		select {
		case <-subs[0].C:
		case <-merged:
		case <-ctx.Done():
			return nil
		}
		for _, s := range subs {
			if err := s.Err(); err != nil {
				return err
			}
		}
		event()
	}
}
