package fswatch

import "path/filepath"

// The watcher finds a subscription through three indexes: every open one
// (Watcher.all), the ones anchored at a directory (Watcher.byDir) and the
// ones waiting on a path (Watcher.byKey). A watcher of 100,000 files holds
// 100,000 subscriptions, so each index costs a subscription a few bytes
// rather than an entry of a map of its own: the lists of all and byDir are
// slices in which each subscription keeps its place (allAt, dirAt), so
// that it leaves them in constant time, and the subscriptions waiting on
// one path (usually one, but every file under a missing directory waits
// on the same component) are chained both ways through keyNext and
// keyPrev from byKey's entry, so that one leaves them in constant time
// too. A subscription's key is a prefix of its path, kept as a length.

// place gives the index of a subscription in one list.
type place func(s *Sub) *int32

func allAt(s *Sub) *int32 { return &s.allAt }
func dirAt(s *Sub) *int32 { return &s.dirAt }

// listAdd appends s to l and records its place.
func listAdd(l []*Sub, s *Sub, at place) []*Sub {
	*at(s) = int32(len(l))
	return append(l, s)
}

// listDel removes s from l, moving the last subscription to its place,
// and returns l, given back to the runtime when it has shrunk to a quarter
// of its capacity.
func listDel(l []*Sub, s *Sub, at place) []*Sub {
	i, n := *at(s), len(l)-1
	l[i] = l[n]
	*at(l[i]) = i
	l[n] = nil
	l = l[:n]
	if cap(l) > 64 && len(l) < cap(l)/4 {
		l = append([]*Sub(nil), l...)
	}
	return l
}

// dirAdd adds s to the subscriptions anchored at dir.
func (w *Watcher) dirAdd(dir string, s *Sub) {
	w.byDir[dir] = listAdd(w.byDir[dir], s, dirAt)
}

// dirDel removes s from the subscriptions anchored at dir.
func (w *Watcher) dirDel(dir string, s *Sub) {
	l := listDel(w.byDir[dir], s, dirAt)
	if len(l) == 0 {
		delete(w.byDir, dir)
		return
	}
	w.byDir[dir] = l
}

// keyAdd adds s to the subscriptions waiting on key, first.
func (w *Watcher) keyAdd(key string, s *Sub) {
	next := w.byKey[key]
	if next == nil && w.kref[key] == 0 {
		w.kidAdd(key, 1)
	}
	s.keyNext, s.keyPrev = next, nil
	if next != nil {
		next.keyPrev = s
	}
	w.byKey[key] = s
}

// keyDel removes s from the subscriptions waiting on key, in constant
// time however many wait on it (every file under a missing directory
// waits on the same component).
func (w *Watcher) keyDel(key string, s *Sub) {
	next, prev := s.keyNext, s.keyPrev
	switch {
	case prev != nil:
		prev.keyNext = next
	case w.byKey[key] != s:
		return // not waiting on key
	case next == nil:
		delete(w.byKey, key)
		if w.kref[key] == 0 {
			w.kidAdd(key, -1)
		}
	default:
		w.byKey[key] = next
	}
	if next != nil {
		next.keyPrev = prev
	}
	s.keyNext, s.keyPrev = nil, nil
}

// kidAdd counts the path p in or out of the entries of its directory that
// are kernel-watched or waited on (Watcher.kids).
func (w *Watcher) kidAdd(p string, n int) {
	if p == "/" {
		return
	}
	d := filepath.Dir(p)
	if c := w.kids[d] + n; c > 0 {
		w.kids[d] = c
	} else {
		delete(w.kids, d)
	}
}
