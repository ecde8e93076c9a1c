package resources

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFileSubscribeFollowsLinkTarget subscribes a file resource whose path
// is a link: once a CheckApply has found the link, a change of the target
// (which the resource manages through the link) is an event; after the
// subscription's stop, nothing is.
func TestFileSubscribeFollowsLinkTarget(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	other := t.TempDir() // the target's directory, which the path's watch does not see
	target := filepath.Join(other, "target")
	mustWrite(t, target, "old")
	p := filepath.Join(dir, "l")
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	f := newFile(t, h, p, &FileRes{State: "exists", Content: strp("new\n")})
	var failed []error
	stop, err := f.Subscribe(func(err error) { failed = append(failed, err) })
	if err != nil {
		t.Fatal(err)
	}
	checkApply(t, f, true, false)
	if got := mustRead(t, target); got != "new\n" {
		t.Fatalf("target content %q", got)
	}
	expectEvent(t, h, "target changed", func() { mustWrite(t, target, "drift") })
	checkApply(t, f, true, false)
	checkApply(t, f, true, true)
	if failed != nil {
		t.Fatalf("subscription failed: %v", failed)
	}
	stop()
	for len(h.events) > 0 {
		<-h.events
	}
	// The watcher delivers events in order: once a later change, seen
	// by another resource's subscription, is delivered, the event of the
	// target's write would have been too.
	h2 := newHarness(t)
	marker := filepath.Join(other, "marker")
	sub := newFile(t, h2, marker, &FileRes{State: "exists"})
	stop2, err := sub.Subscribe(func(error) {})
	if err != nil {
		t.Fatal(err)
	}
	defer stop2()
	mustWrite(t, target, "drift again")
	expectEvent(t, h2, "marker made", func() { mustWrite(t, marker, "") })
	select {
	case <-h.events:
		t.Fatal("an event after the subscription's stop")
	default:
	}
}

// TestFileMadeByLinkStillWatched subscribes a file resource whose path is
// missing: its CheckApply creates the file by linking its complete
// unnamed file to the path, whose creation event is its own (not an
// event of the resource, fswatch.Sub.Made); every change after it by
// someone else still is one.
func TestFileMadeByLinkStillWatched(t *testing.T) {
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "f")
	f := newFile(t, h, p, &FileRes{State: "exists", Content: strp("want\n")})
	stop, err := f.Subscribe(func(err error) { t.Errorf("subscription failed: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	checkApply(t, f, true, false)
	if got := mustRead(t, p); got != "want\n" {
		t.Fatalf("content %q", got)
	}
	expectEvent(t, h, "overwritten", func() { mustWrite(t, p, "drift\n") })
	checkApply(t, f, true, false)
	expectEvent(t, h, "chmod", func() {
		if err := os.Chmod(p, 0o600); err != nil {
			t.Fatal(err)
		}
	})
	expectEvent(t, h, "removed", func() {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	})
	checkApply(t, f, true, false)
	// Made again by the resource, then removed and made by someone else
	// with one link: the removal is an event, and so is that creation.
	src := filepath.Join(t.TempDir(), "src")
	mustWrite(t, src, "other\n")
	expectEvent(t, h, "removed again", func() {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	})
	expectEvent(t, h, "linked by someone else", func() {
		if err := os.Link(src, p); err != nil {
			t.Fatal(err)
		}
	})
	checkApply(t, f, true, false)
	if got := mustRead(t, p); got != "want\n" {
		t.Fatalf("content %q after the repair", got)
	}
}

// TestFileDirGroup: file resources that follow entries of one directory
// share one subscription (dirGroup). A change of one entry is an event of
// its resource alone; a change of the directory is an event of all; the
// same path subscribed twice (a graph and the one replacing it) is told
// to both; the last stop closes the group.
func TestFileDirGroup(t *testing.T) {
	dir := t.TempDir()
	names := []string{"a", "b", "c"}
	hs := make([]*harness, len(names))
	var stops []func()
	for i, n := range names {
		hs[i] = newHarness(t)
		f := newFile(t, hs[i], filepath.Join(dir, n), &FileRes{State: "exists", Content: strp(n + "\n")})
		stop, err := f.Subscribe(func(err error) { t.Errorf("subscription failed: %v", err) })
		if err != nil {
			t.Fatal(err)
		}
		stops = append(stops, stop)
		checkApply(t, f, true, false)
	}
	dirGroups.mu.Lock()
	g := dirGroups.m[dir]
	refs := 0
	if g != nil {
		refs = g.refs
	}
	dirGroups.mu.Unlock()
	if g == nil || refs != len(names) {
		t.Fatalf("group of %s: %v with %d members, want one with %d", dir, g, refs, len(names))
	}
	quiet := func(what string, hs ...*harness) {
		t.Helper()
		for _, h := range hs {
			select {
			case <-h.events:
				t.Fatalf("%s: an event of another resource", what)
			default:
			}
		}
	}
	// The watcher delivers in order: once c's event is in, what was made
	// before was delivered too (a creation may be told before the
	// resource marks it as its own: a spurious event).
	expectEvent(t, hs[2], "c overwritten first", func() { mustWrite(t, filepath.Join(dir, "c"), "fence\n") })
	for _, h := range hs {
		for len(h.events) > 0 {
			<-h.events
		}
	}
	expectEvent(t, hs[1], "b overwritten", func() { mustWrite(t, filepath.Join(dir, "b"), "drift\n") })
	expectEvent(t, hs[2], "c overwritten", func() { mustWrite(t, filepath.Join(dir, "c"), "drift\n") })
	quiet("b and c overwritten", hs[0])
	// A chmod of the directory changes none of its files: no event.
	for _, h := range hs {
		for len(h.events) > 0 {
			<-h.events
		}
	}
	if err := os.Chmod(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	expectEvent(t, hs[2], "c overwritten after a chmod of the directory", func() { mustWrite(t, filepath.Join(dir, "c"), "drift again\n") })
	quiet("chmod of the directory", hs[0], hs[1])
	// A directory renamed away is an event of every file.
	for i, h := range hs {
		expectEvent(t, h, "directory moved "+names[i], func() {
			if err := os.Rename(dir, dir+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(dir+".old", dir); err != nil {
				t.Fatal(err)
			}
		})
	}
	// a second resource of a's path
	h2 := newHarness(t)
	a2 := newFile(t, h2, filepath.Join(dir, "a"), &FileRes{State: "exists"})
	stop2, err := a2.Subscribe(func(err error) { t.Errorf("subscription failed: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	expectEvent(t, hs[0], "a overwritten", func() { mustWrite(t, filepath.Join(dir, "a"), "drift\n") })
	expectEvent(t, h2, "a overwritten again", func() { mustWrite(t, filepath.Join(dir, "a"), "drift again\n") })
	stops[0]()
	for len(hs[0].events) > 0 {
		<-hs[0].events
	}
	expectEvent(t, h2, "a overwritten after the first stopped", func() { mustWrite(t, filepath.Join(dir, "a"), "more\n") })
	quiet("a overwritten after the first stopped", hs[0])
	stop2()
	for _, stop := range stops[1:] {
		stop()
	}
	dirGroups.mu.Lock()
	left := dirGroups.m[dir]
	dirGroups.mu.Unlock()
	if left != nil {
		t.Fatalf("group of %s still there after the last stop", dir)
	}
}

// TestFileDirGroupUnderScratch: the files of a directory right in a
// sticky, world-writable directory (such as /tmp) keep subscriptions of
// their own, which do not watch that directory, and are still told of
// their changes.
func TestFileDirGroupUnderScratch(t *testing.T) {
	scratch := filepath.Join(t.TempDir(), "scratch")
	dir := filepath.Join(scratch, "d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(scratch, os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	p := filepath.Join(dir, "f")
	f := newFile(t, h, p, &FileRes{State: "exists", Content: strp("want\n")})
	stop, err := f.Subscribe(func(err error) { t.Errorf("subscription failed: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	dirGroups.mu.Lock()
	g := dirGroups.m[dir]
	dirGroups.mu.Unlock()
	if g == nil || !g.scratch || g.sub != nil || len(g.members) > 0 {
		t.Fatalf("group of %s, right in a sticky world-writable directory: %+v, want a mark without a subscription", dir, g)
	}
	checkApply(t, f, true, false)
	expectEvent(t, h, "overwritten", func() { mustWrite(t, p, "drift\n") })
	stop()
	dirGroups.mu.Lock()
	g = dirGroups.m[dir]
	dirGroups.mu.Unlock()
	if g != nil {
		t.Fatalf("the mark of %s still there after the last stop", dir)
	}
}
