package system

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fsnotify/fsnotify"
)

// watchFiles watches the directories holding files and calls event whenever
// one of those files is created, written, renamed over or removed. It calls
// running once the watches are in place and returns when ctx is done.
// Directories are watched rather than the files because the tools that
// maintain them (shadow-utils, dpkg, hostnamed) replace them by rename. A
// path "dir/*" stands for every file directly in dir (skipped if absent).
func watchFiles(ctx context.Context, files []string, running, event func()) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("inotify: %v", err)
	}
	defer w.Close()
	want := map[string]bool{}  // files
	anyIn := map[string]bool{} // directories given as "dir/*"
	dirs := map[string]bool{}
	for _, f := range files {
		if d, ok := strings.CutSuffix(f, "/*"); ok {
			anyIn[filepath.Clean(d)] = true
			continue
		}
		want[filepath.Clean(f)] = true
		dirs[filepath.Dir(f)] = true
	}
	for d := range dirs {
		if err := w.Add(d); err != nil {
			return fmt.Errorf("watch %s: %v", d, err)
		}
	}
	for d := range anyIn {
		if err := w.Add(d); err != nil && !dirs[d] {
			delete(anyIn, d) // optional: absent directories are skipped
		}
	}
	running()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			name := filepath.Clean(ev.Name)
			if (!want[name] && !anyIn[filepath.Dir(name)]) || ev.Op == fsnotify.Chmod {
				continue
			}
			event()
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			return fmt.Errorf("inotify: %v", err)
		}
	}
}
