package puppetgraph

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/mgmtpipe/mgmt/internal/cli"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/puppet"
	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// settle is how long the watcher waits for a burst of file events (an
// editor saving several files) to end before recompiling.
const settle = 100 * time.Millisecond

// watch writes a graph, then a new one whenever an input changes: a file
// the compilation read, any .pp/.erb/.epp file under the manifest's
// directory or the module path, or (with --agent) every runinterval. A
// failed compilation writes an error document and keeps watching.
func (t *tool) watch(ctx context.Context) int {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.lg.Errorf("%v", err)
		return cli.ExitFail
	}
	defer w.Close()
	var tick <-chan time.Time
	if t.f.Agent {
		iv := puppet.RunInterval(ctx, t.f.PuppetConf)
		tk := time.NewTicker(time.Duration(iv) * time.Second)
		defer tk.Stop()
		tick = tk.C
	}
	var timer *time.Timer
	var fire <-chan time.Time
	// watch before the first build, so that no change goes unseen
	t.watchPaths(w, []string{t.f.Manifest, t.f.Catalog, t.f.Mgmtgraph})
	for {
		read := t.step(ctx)
		t.watchPaths(w, read)
		for again := false; !again; {
			select {
			case <-ctx.Done():
				return cli.ExitOK
			case ev, ok := <-w.Events:
				if !ok {
					return cli.ExitOK
				}
				if !relevant(ev.Name, read) {
					continue
				}
				if ev.Op&fsnotify.Create != 0 {
					if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
						t.addTree(w, ev.Name)
					}
				}
				if timer == nil {
					timer = time.NewTimer(settle)
				} else {
					timer.Reset(settle)
				}
				fire = timer.C
			case err := <-w.Errors:
				t.lg.Errorf("watch: %v", err)
			case <-fire:
				fire, again = nil, true
			case <-tick:
				again = true
			}
		}
	}
}

// step builds and writes one document (an error document on failure)
// unless it equals the previous one.
func (t *tool) step(ctx context.Context) []string {
	doc, read, err := t.checked(ctx)
	if err != nil {
		t.lg.Fail(err)
		doc = &graph.Document{Mgmt: graph.Version, Graph: "puppet", Error: errDoc(err)}
	}
	var b bytes.Buffer
	if err := graph.Encode(&b, doc, graph.JSON); err == nil {
		if bytes.Equal(b.Bytes(), t.last) {
			return read
		}
		t.last = b.Bytes()
	}
	if err := t.write(doc); err != nil {
		t.lg.Errorf("%v", err)
	}
	return read
}

func errDoc(err error) *graph.Error {
	var se *syntax.Error
	if errors.As(err, &se) {
		return (&graph.PosError{Pos: se.Pos.String(), Msg: se.Msg}).Doc()
	}
	return graph.ErrorDoc(err)
}

func relevant(path string, read []string) bool {
	for _, r := range read {
		if filepath.Clean(r) == filepath.Clean(path) {
			return true
		}
	}
	for _, ext := range []string{".pp", ".erb", ".epp", ".json", ".yaml", ".yml"} {
		if strings.HasSuffix(path, ext) {
			return true
		}
	}
	return false
}

// watchPaths watches the directories of the files read, the manifest's
// directory tree and the module path.
func (t *tool) watchPaths(w *fsnotify.Watcher, read []string) {
	for _, r := range read {
		if r != "" {
			_ = w.Add(filepath.Dir(r))
		}
	}
	roots := t.mp
	if t.f.Manifest != "" {
		roots = append(roots, filepath.Dir(t.f.Manifest))
	}
	for _, root := range roots {
		t.addTree(w, root)
	}
}

func (t *tool) addTree(w *fsnotify.Watcher, root string) {
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && p != root {
				return filepath.SkipDir
			}
			_ = w.Add(p)
		}
		return nil
	})
}
