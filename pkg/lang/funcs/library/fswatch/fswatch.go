// Package fswatch lets streaming mcl functions re-read a file each time it
// may have changed.
//
// Watch subscribes with inotify (fsnotify) to the directory holding the
// file rather than to the file itself, so creation, atomic replacement
// (write to a temporary file and rename) and removal are all seen. When
// that directory does not exist yet, it watches the closest existing
// ancestor instead and moves its watch down as the missing directories
// appear (or up again when they are removed). Events on other names in the
// watched directory are ignored.
package fswatch

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsnotify/fsnotify"
)

// Watch calls fn once, then again after every event that may have changed
// path, until ctx is done (it returns nil) or fn fails (it returns fn's
// error). path must be absolute.
func Watch(ctx context.Context, path string, fn func() error) error {
	path = filepath.Clean(path)
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	a := &armer{w: w, path: path}
	if err := a.arm(); err != nil {
		return err
	}
	if err := fn(); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if !a.relevant(ev.Name) {
				continue
			}
			if err := a.arm(); err != nil {
				return err
			}
			if err := fn(); err != nil {
				return err
			}
		case _, ok := <-w.Errors:
			// An overflow loses events: read again to be sure.
			if !ok {
				return nil
			}
			if err := fn(); err != nil {
				return err
			}
		}
	}
}

// armer keeps one watch on the closest existing ancestor directory of path.
type armer struct {
	w       *fsnotify.Watcher
	path    string
	watched string
}

// arm moves the watch to the deepest existing directory above path. It
// checks again after each move: a directory created between the check and
// the watch sent its event to nobody, so the watch moves on down to it. A
// directory removed in between is not an error either: the search starts
// again from the top.
func (a *armer) arm() error {
	for {
		dir := a.deepest()
		if dir == a.watched {
			return nil
		}
		if a.watched != "" {
			_ = a.w.Remove(a.watched) // gone already if the directory was removed
			a.watched = ""
		}
		if err := a.w.Add(dir); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return err
		}
		a.watched = dir
	}
}

// deepest returns the deepest existing directory above path.
func (a *armer) deepest() string {
	dir := filepath.Dir(a.path)
	for {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

// relevant reports whether an event on name may concern path: name is
// path, one of its ancestors (created or removed), or the watched
// directory itself.
func (a *armer) relevant(name string) bool {
	name = filepath.Clean(name)
	return name == a.path || name == a.watched || strings.HasPrefix(a.path, name+string(filepath.Separator))
}
