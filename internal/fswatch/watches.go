package fswatch

import (
	"errors"
	"github.com/mgmtpipe/mgmt/internal/dirents"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// dropLocked releases every watch of s.
func (w *Watcher) dropLocked(s *Sub) {
	if s.closed {
		return
	}
	s.closed = true
	w.all = listDel(w.all, s, allAt)
	if s.keyLen != 0 {
		w.keyDel(s.key(), s)
		s.keyLen = 0
	}
	if s.anchor != "" {
		w.dirDel(s.anchor, s)
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
// directory of its path), the key it waits on, and its extra watches. It
// returns a *LimitError when a kernel limit kept a watch from being set up.
func (w *Watcher) anchorLocked(s *Sub) error {
	key, err := w.placeLocked(s)
	// The awaited component may have been made after we looked for it
	// but before the anchor's watch was in place (mkdir -p does that):
	// its creation event is then lost, so look again, level by level,
	// while it is there.
	for depth := 0; err == nil && key != s.path && depth < maxDepth; depth++ {
		if fi, serr := os.Stat(key); serr != nil || !fi.IsDir() {
			break
		}
		key, err = w.placeLocked(s)
	}
	if err != nil {
		return err
	}
	if s.contents {
		return w.ownTreeLocked(s, key == s.path)
	}
	return nil
}

// maxDepth bounds the levels of a path that anchoring walks down at once.
const maxDepth = 4096

// placeLocked moves the anchor of s to the nearest existing ancestor of its
// path, and its key to the component below it; it returns the key.
func (w *Watcher) placeLocked(s *Sub) (string, error) {
	key, anchor := s.path, filepath.Dir(s.path)
	for anchor != s.anchor {
		err := w.acquireLocked(anchor)
		if err == nil {
			if s.anchor != "" {
				w.dirDel(s.anchor, s)
				w.releaseLocked(s.anchor)
			}
			s.anchor = anchor
			w.dirAdd(anchor, s)
			break
		}
		if !missing(err) {
			return "", err
		}
		if anchor == "/" {
			return "", err
		}
		key, anchor = anchor, filepath.Dir(anchor)
	}
	if s.key() != key {
		if s.keyLen != 0 {
			w.keyDel(s.key(), s)
		}
		s.keyLen = int32(len(key))
		w.keyAdd(key, s)
	}
	return key, nil
}

// ownTreeLocked watches the directory at s.path (and, when recursive, all
// the directories below it), releasing the ones that disappeared. A
// directory made below one of them before its watch was in place is taken
// in when the new watch's directory is read again (rescanLocked).
func (w *Watcher) ownTreeLocked(s *Sub, present bool) error {
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
	var limit error
	for d := range want {
		if s.owned[d] {
			continue
		}
		err := w.acquireLocked(d)
		if err == nil {
			if s.owned == nil {
				s.owned = map[string]bool{}
			}
			s.owned[d] = true
			addSub(w.byOwn, d, s)
		} else if isLimit(err) && limit == nil {
			limit = err
		}
	}
	return limit
}

var errNotDir = errors.New("not a directory")

// missing reports whether err says a directory is not there: absent, a
// file, or below a file.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir) || errors.Is(err, syscall.ENOTDIR)
}

func isLimit(err error) bool {
	var le *LimitError
	return errors.As(err, &le)
}

// A fileID tells directories apart: the same name may lead to another
// directory after a removal or a rename.
type fileID struct{ dev, ino uint64 }

func idOf(fi fs.FileInfo) fileID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileID{uint64(st.Dev), st.Ino}
	}
	return fileID{}
}

// acquireLocked adds a reference to dir. The first one makes sure the
// kernel watches dir and each of its ancestors (shared, counted in kref),
// so that the rename or removal of any ancestor is seen.
func (w *Watcher) acquireLocked(dir string) error {
	if w.dirs[dir] > 0 {
		w.dirs[dir]++
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return errNotDir
	}
	if err := w.watchLocked(dir, fi, true); err != nil {
		return err
	}
	for a := dir; a != "/"; {
		a = filepath.Dir(a)
		if w.kref[a] > 0 || SharedScratch(a) {
			continue
		}
		// An ancestor that cannot be watched (permissions) only narrows
		// what is seen; a kernel limit is an error, since a rename of the
		// ancestor would go unseen. The watches just added have no
		// references then, and go when the operation ends.
		if afi, err := os.Stat(a); err == nil {
			if err := w.watchLocked(a, afi, false); isLimit(err) {
				return err
			}
		}
	}
	for a := dir; ; a = filepath.Dir(a) {
		if w.kref[a] == 0 && w.byKey[a] == nil {
			w.kidAdd(a, 1)
		}
		w.kref[a]++
		if a == "/" {
			break
		}
	}
	w.dirs[dir] = 1
	return nil
}

// watchLocked makes sure the kernel watch of dir is on the directory fi
// describes, reporting the changes of its entries when entries is set (a
// directory that subscriptions use) or only what concerns the path below
// it (an ancestor). A directory watched through other references is
// checked when the operation ends, if it is not the one the watch is on;
// one watched as an ancestor alone is made to report its entries when a
// subscription uses it; one counted as an ancestor but left unwatched
// (sticky, such as /tmp) is watched now.
func (w *Watcher) watchLocked(dir string, fi fs.FileInfo, entries bool) error {
	id := idOf(fi)
	old, had := w.kid[dir]
	if had && w.kref[dir] > 0 {
		if old != id {
			w.check = append(w.check, dir)
			return nil
		}
		if entries && !w.k.watchesEntries(dir) {
			if err := w.k.add(dir, true); err != nil {
				return limitError(err)
			}
		}
		return nil
	}
	if had && old != id {
		// Left from a directory that was removed or moved away: its
		// events would come under the wrong name.
		w.k.remove(dir)
		delete(w.kid, dir)
	}
	if err := w.k.add(dir, entries); err != nil {
		return limitError(err)
	}
	w.kid[dir] = id
	w.fresh = append(w.fresh, dir)
	w.stale[dir] = true // until a reference counts it (kref)
	return nil
}

// SharedScratch reports whether dir is a sticky, world-writable directory
// such as /tmp: it is never renamed itself, and every user creates entries
// in it all the time, so the watcher does not watch it as a mere ancestor
// of what it follows, which would only cost wake-ups; a subscriber that
// can follow what it wants without anchoring at such a directory saves the
// process those wake-ups too.
func SharedScratch(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.Mode()&os.ModeSticky != 0 && fi.Mode().Perm()&0o002 != 0
}

// releaseLocked drops a reference to dir, and with the last one its share
// of its own and its ancestors' kernel watches. A kernel watch left without
// references is removed when the operation ends, unless it is needed again
// by then.
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
			if w.byKey[a] == nil {
				w.kidAdd(a, -1)
			}
			if _, ok := w.kid[a]; ok {
				w.stale[a] = true
			}
		} else {
			w.kref[a]--
		}
		if a == "/" {
			break
		}
	}
}

// forgetUnderLocked handles the removal, rename or replacement of the
// directory name: every referenced directory at or below it is released
// at once, and the subscriptions that used them are returned for
// re-anchoring.
func (w *Watcher) forgetUnderLocked(name string) []*Sub {
	var todo []*Sub
	prefix := strings.TrimSuffix(name, "/") + "/"
	for d := range w.dirs {
		if d != name && !strings.HasPrefix(d, prefix) {
			continue
		}
		for _, s := range w.byDir[d] {
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
	// Their kernel watches go at once: they are on directories that moved
	// away or were removed, and the kernel would give a watch added under
	// the new name the same descriptor, still known by the old name. The
	// ancestors, still in place, keep theirs until the operation ends.
	for d := range w.kid {
		if (d == name || strings.HasPrefix(d, prefix)) && w.kref[d] == 0 {
			w.k.remove(d)
			delete(w.kid, d)
			delete(w.stale, d)
		}
	}
	return todo
}

// replacedLocked reports whether the kernel-watched name no longer leads
// to the directory its watch is on.
func (w *Watcher) replacedLocked(name string) bool {
	id, ok := w.kid[name]
	if !ok || w.kref[name] == 0 {
		return false
	}
	fi, err := os.Stat(name)
	return err != nil || !fi.IsDir() || idOf(fi) != id
}

// maxSettle bounds the rounds of settleLocked; past it (a tree replaced
// faster than it can be read) every subscription is signalled instead.
const maxSettle = 1 << 16

// settleLocked ends an operation: it reads again each directory watched
// anew, checks the paths that asked for it, and removes the kernel watches
// left without references.
func (w *Watcher) settleLocked() {
	for n := 0; len(w.fresh) > 0 || len(w.check) > 0; n++ {
		if n == maxSettle {
			w.fresh, w.check = nil, nil
			w.signalAllLocked()
			break
		}
		if k := len(w.check); k > 0 {
			p := w.check[k-1]
			w.check = w.check[:k-1]
			w.checkLocked(p)
			continue
		}
		d := w.fresh[len(w.fresh)-1]
		w.fresh = w.fresh[:len(w.fresh)-1]
		w.rescanLocked(d)
	}
	for d := range w.stale {
		delete(w.stale, d)
		if w.kref[d] == 0 {
			w.k.remove(d)
			delete(w.kid, d)
		}
	}
}

// rescanLocked reads the directory d, just watched anew, for what was made
// in it before the watch was in place: an entry that is watched or awaited
// is checked, and a recursive subscription owning d that does not watch a
// subdirectory yet is re-anchored.
func (w *Watcher) rescanLocked(d string) {
	if w.kref[d] == 0 {
		return
	}
	tree := false
	for s := range w.byOwn[d] {
		tree = tree || s.recursive
	}
	if !tree && w.kids[d] == 0 {
		// No entry of d is watched or waited on: reading it would find
		// nothing to check (a directory of 1,000 files that only a
		// group of its files follows).
		return
	}
	// Each entry's path is looked up from one buffer: a directory of
	// 10,000 files is read as the first of its files is followed.
	prefix := d + "/"
	if d == "/" {
		prefix = d
	}
	buf := make([]byte, 0, len(prefix)+64)
	look := func() {
		if w.kref[string(buf)] > 0 || w.byKey[string(buf)] != nil {
			w.check = append(w.check, string(buf))
		}
	}
	if !tree {
		// The names alone, without a string made of each. A directory
		// gone again is left alone: its removal is reported.
		dirents.Each(d, func(name []byte) bool {
			buf = append(append(buf[:0], prefix...), name...)
			look()
			return true
		})
		return
	}
	names, dirs, ok := readTypes(d)
	if !ok {
		return // gone again: its removal is reported
	}
	var again []*Sub
	for i, name := range names {
		buf = append(append(buf[:0], prefix...), name...)
		look()
		if !dirs[i] {
			continue
		}
		for s := range w.byOwn[d] {
			if s.recursive && !s.owned[string(buf)] {
				again = append(again, s)
			}
		}
	}
	for _, s := range again {
		w.reanchorLocked(s)
	}
}

// readTypes reads the names of the entries of the directory d, unsorted
// (os.ReadDir sorts them), and whether each is a directory (dirs[i] for
// names[i]). ok is false when d cannot be opened.
func readTypes(d string) (names []string, dirs []bool, ok bool) {
	f, err := os.Open(d)
	if err != nil {
		return nil, nil, false
	}
	defer f.Close()
	ents, _ := f.ReadDir(-1)
	names, dirs = make([]string, len(ents)), make([]bool, len(ents))
	for i, e := range ents {
		names[i], dirs[i] = e.Name(), e.IsDir()
	}
	return names, dirs, true
}

// checkLocked looks at p, which may have been made or replaced unseen: a
// watched directory that p no longer leads to is forgotten, and the
// subscriptions concerned are re-anchored.
func (w *Watcher) checkLocked(p string) {
	var todo []*Sub
	if w.replacedLocked(p) {
		todo = w.forgetUnderLocked(p)
	}
	for s := w.byKey[p]; s != nil; s = s.keyNext {
		if int(s.keyLen) != len(s.path) {
			todo = append(todo, s)
		}
	}
	for _, s := range todo {
		w.reanchorLocked(s)
	}
}

func addSub(m map[string]map[*Sub]bool, k string, s *Sub) {
	set := m[k]
	if set == nil {
		set = map[*Sub]bool{}
		m[k] = set
	}
	set[s] = true
}

func delSub(m map[string]map[*Sub]bool, k string, s *Sub) {
	if set := m[k]; set != nil {
		delete(set, s)
		if len(set) == 0 {
			delete(m, k)
		}
	}
}
