package resources

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/mgmtpipe/mgmt/internal/fswatch"
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
	list := []follow{{obj.cleanPath(), obj.pathOpts()}}
	if obj.rare().Source != "" && !obj.rare().Symlink {
		list = append(list, follow{filepath.Clean(obj.rare().Source), obj.treeOpts()})
	}
	for _, f := range obj.rare().Fragments {
		list = append(list, follow{filepath.Clean(f), fswatch.Options{Contents: true}})
	}
	return list
}

// followsPathAlone reports whether followsOwn is the path alone, with no
// options: what most files follow, without making the list.
func (obj *FileRes) followsPathAlone() bool {
	o := obj.pathOpts()
	return !o.Contents && !o.Recursive && (obj.rare().Source == "" || obj.rare().Symlink) && len(obj.rare().Fragments) == 0
}

// treeOpts are the options of a followed directory tree (the path managed
// recursively, or a source).
func (obj *FileRes) treeOpts() fswatch.Options {
	return fswatch.Options{Contents: obj.isDir(), Recursive: obj.isDir() && obj.rare().Recurse}
}

// pathOpts returns the options the path itself is followed with.
func (obj *FileRes) pathOpts() fswatch.Options {
	if !obj.rare().Symlink && (obj.rare().Source != "" || obj.isDir() && obj.rare().Recurse && (obj.mode != nil || obj.Owner != "" || obj.Group != "" || obj.rare().Purge)) {
		return obj.treeOpts()
	}
	return fswatch.Options{}
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
// here on top of CheckApply's own. A resource that follows its path
// alone (most files) joins the one subscription of its directory
// (dirGroup) instead of making its own.
func (obj *FileRes) Subscribe(fail func(error)) (func(), error) {
	fw := &fileSubs{res: obj, fail: fail}
	if obj.followsPathAlone() {
		if err := joinDir(fw, obj.cleanPath()); err != nil {
			return nil, err
		}
	} else if err := fw.subscribe(obj.followsOwn()); err != nil {
		return nil, err
	}
	obj.subs.Store(fw)
	return fw.close, nil
}

// fileSubs are the subscriptions of a file resource's Subscribe: its
// place in the group of its directory, or subscriptions of its own (a
// directory followed with its contents, a source, fragments), and those
// of a link's target. A graph holds one per file, so what most files do
// not need is behind own.
type fileSubs struct {
	mu     sync.Mutex
	flags  atomic.Uint32 // subFailed, subMade
	closed bool
	own    *ownSubs
	res    *FileRes
	fail   func(error)

	// in a dirGroup: the group, and the next member of the same name
	// (the same resource in the graph running and in the one replacing
	// it)
	group *dirGroup
	next  *fileSubs
}

const (
	subFailed = 1 << iota // fail was called
	subMade               // in a dirGroup: the resource made the path (madeByLink)
)

// ownSubs are the subscriptions a file resource holds itself.
type ownSubs struct {
	subs   []*fswatch.Sub
	notify func(error) // the method value of event, given to each
	linked bool        // a link's target is followed
}

// subscribe adds subscriptions to the paths of list to fw's own. The
// caller holds fw.mu, or has not published fw yet.
func (fw *fileSubs) subscribe(list []follow) error {
	if fw.own == nil {
		fw.own = &ownSubs{notify: fw.event}
	}
	subs, err := subscribeAll(list, fw.own.notify)
	if err == nil {
		fw.own.subs = append(fw.own.subs, subs...)
	}
	return err
}

// event is the notification of the subscriptions: an event of the
// resource, or their failure, reported once.
func (fw *fileSubs) event(err error) {
	switch {
	case err == nil:
		fw.res.init.Event()
	case fw.flags.Or(subFailed)&subFailed == 0:
		fw.fail(err)
	}
}

func (fw *fileSubs) close() {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	fw.closed = true
	if fw.own != nil {
		closeAll(fw.own.subs)
		fw.own.subs = nil
	}
	if fw.group != nil {
		fw.group.leave(fw)
		fw.group = nil
	}
}

// name returns fw's name in its group.
func (fw *fileSubs) name() string { return filepath.Base(fw.res.cleanPath()) }

// A dirGroup is the one subscription that every file resource following
// an entry of a directory alone shares: the directory is followed with
// its contents, and an event about an entry goes to the resources of that
// name, while anything else (the directory made, moved, removed or
// changed, a lost event, a kernel limit) goes to all of them. A graph of
// 100,000 files in 100 directories holds 100 subscriptions rather than
// 100,000, and each file costs an entry of its group's map.
type dirGroup struct {
	dir     string
	scratch bool // a mark: its files keep their own subscriptions (joinDir)
	sub     *fswatch.Sub
	refs    int // members, and Subscribe until it has returned; guarded by dirGroups.mu

	mu      sync.Mutex           // guards members; taken by the watcher's dispatcher
	members map[string]*fileSubs // by name, chained through next
}

var dirGroups struct {
	mu sync.Mutex
	m  map[string]*dirGroup
}

// joinDir makes fw a member of the group of path's directory, made when
// it has none. Once it returns, every event about path reaches fw.
func joinDir(fw *fileSubs, path string) error {
	dir, name := filepath.Split(path)
	dir = filepath.Clean(dir)
	if name == "" || dir == "/" {
		// The root and its entries are few: each keeps its own.
		return fw.subscribe([]follow{{path, fswatch.Options{}}})
	}
	dirGroups.mu.Lock()
	defer dirGroups.mu.Unlock()
	g := dirGroups.m[dir]
	if g != nil && !g.scratch && g.sub.Err() != nil {
		g = nil // failed: it goes once its members have left (retire)
	}
	if g == nil {
		if fswatch.SharedScratch(filepath.Dir(dir)) {
			// The files of a directory right in /tmp (sticky and
			// world-writable) keep subscriptions of their own: the
			// group's, which follows the directory itself, would
			// watch /tmp to do so, and wake up for every entry anyone
			// makes there, while a file's own subscription only
			// watches its directory. The group is then a mark that
			// spares each file of the directory the check.
			g = &dirGroup{dir: dir, scratch: true}
		} else {
			w, err := fswatch.Default()
			if err != nil {
				return err
			}
			g = &dirGroup{dir: dir, members: map[string]*fileSubs{}}
			// The watcher may call the group's functions before
			// Subscribe returns: they take g.mu, never dirGroups.mu.
			sub, err := w.Subscribe(dir, fswatch.Options{Contents: true, Notify: g.all, Entry: g.entry})
			if err != nil {
				return err
			}
			g.sub = sub
		}
		if dirGroups.m == nil {
			dirGroups.m = map[string]*dirGroup{}
		}
		dirGroups.m[dir] = g
	}
	if g.scratch {
		if err := fw.subscribe([]follow{{path, fswatch.Options{}}}); err != nil {
			if g.refs == 0 && dirGroups.m[dir] == g {
				delete(dirGroups.m, dir)
			}
			return err
		}
		g.refs++
		fw.group = g
		return nil
	}
	g.refs++
	fw.group = g
	g.mu.Lock()
	fw.next = g.members[name]
	g.members[name] = fw
	g.mu.Unlock()
	return nil
}

// leave removes fw from the group, and closes the group with its last
// member.
func (g *dirGroup) leave(fw *fileSubs) {
	dirGroups.mu.Lock()
	defer dirGroups.mu.Unlock()
	if g.scratch {
		if g.refs--; g.refs == 0 && dirGroups.m[g.dir] == g {
			delete(dirGroups.m, g.dir)
		}
		return
	}
	name := fw.name()
	g.mu.Lock()
	var prev *fileSubs
	for m := g.members[name]; m != nil; prev, m = m, m.next {
		if m != fw {
			continue
		}
		switch {
		case prev != nil:
			prev.next = fw.next
		case fw.next != nil:
			g.members[name] = fw.next
		default:
			delete(g.members, name)
		}
		break
	}
	g.mu.Unlock()
	fw.next = nil
	if g.refs--; g.refs > 0 {
		return
	}
	if dirGroups.m[g.dir] == g {
		delete(dirGroups.m, g.dir)
	}
	g.sub.Close()
}

// entry passes an event about the entry name to its members: their own
// creation (madeByLink) is not an event of theirs, and any other event
// clears that mark.
func (g *dirGroup) entry(name string, created bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for fw := g.members[name]; fw != nil; fw = fw.next {
		if fw.flags.And(^uint32(subMade))&subMade != 0 && created {
			continue
		}
		fw.event(nil)
	}
}

// all passes an event about the directory, or the subscription's
// failure, to every member. A failed group takes no new members: the next
// resource of the directory makes a new one.
func (g *dirGroup) all(err error) {
	if err != nil {
		go g.retire()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, fw := range g.members {
		for ; fw != nil; fw = fw.next {
			fw.flags.And(^uint32(subMade))
			fw.event(err)
		}
	}
}

// retire takes a failed group out of the directory's place, for later
// members; its own go on until they leave.
func (g *dirGroup) retire() {
	dirGroups.mu.Lock()
	defer dirGroups.mu.Unlock()
	if dirGroups.m[g.dir] == g {
		delete(dirGroups.m, g.dir)
	}
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
	if fw.closed || fw.own != nil && fw.own.linked {
		fw.mu.Unlock()
		return
	}
	if fw.own == nil {
		fw.own = &ownSubs{notify: fw.event}
	}
	fw.own.linked = true
	target, err := filepath.EvalSymlinks(obj.cleanPath())
	if err != nil {
		fw.mu.Unlock()
		return
	}
	err = fw.subscribe([]follow{{target, obj.pathOpts()}})
	fw.mu.Unlock()
	if err != nil && fw.flags.Or(subFailed)&subFailed == 0 {
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
	switch {
	case fw.closed:
	case fw.group != nil && !fw.group.scratch:
		fw.flags.Or(subMade)
	case fw.own != nil && len(fw.own.subs) > 0 && fw.own.subs[0].Path() == obj.cleanPath():
		fw.own.subs[0].Made()
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
		wg.Go(func() { forwardSignals(ctx, s.C, merged) })
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
