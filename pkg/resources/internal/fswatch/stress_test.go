package fswatch

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// state is what a subscriber can observe of a path: existence, kind,
// permissions and, for files, size and modification time.
type state struct {
	exists, dir bool
	mode        os.FileMode
	size        int64
	mtime       int64
}

func observe(p string) state {
	fi, err := os.Lstat(p)
	if err != nil {
		return state{}
	}
	st := state{exists: true, dir: fi.IsDir(), mode: fi.Mode()}
	if !st.dir {
		st.size, st.mtime = fi.Size(), fi.ModTime().UnixNano()
	}
	return st
}

// TestRandomOperations follows every path of a small tree while random
// creations, writes, chmods, removals and renames (of files and whole
// subtrees) happen, and checks that each path whose observable state
// changed was signalled: the property "no missed event", against the naive
// reference of comparing the states before and after.
func TestRandomOperations(t *testing.T) {
	w := newWatcher(t)
	root := t.TempDir()
	var paths []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if depth == 3 {
			return
		}
		for _, n := range []string{"a", "b", "c"} {
			p := filepath.Join(dir, n)
			paths = append(paths, p)
			walk(p, depth+1)
		}
	}
	walk(root, 0)
	subs := map[string]*Sub{}
	for _, p := range paths {
		subs[p] = subscribe(t, w, p, Options{})
	}
	rng := rand.New(rand.NewSource(1))
	steps := 400
	if testing.Short() {
		steps = 100
	}
	for step := 0; step < steps; step++ {
		before := map[string]state{}
		for _, p := range paths {
			before[p] = observe(p)
			drain(subs[p])
		}
		what := randomOp(rng, paths)
		for _, p := range paths {
			if observe(p) == before[p] {
				continue
			}
			select {
			case <-subs[p].C:
			case <-time.After(5 * time.Second):
				t.Fatalf("step %d (%s): %s changed (%+v -> %+v) but was not signalled", step, what, p, before[p], observe(p))
			}
		}
	}
}

// randomOp applies one random operation and describes it.
func randomOp(rng *rand.Rand, paths []string) string {
	p := paths[rng.Intn(len(paths))]
	q := paths[rng.Intn(len(paths))]
	switch rng.Intn(6) {
	case 0:
		os.Mkdir(p, 0o755)
		return "mkdir " + p
	case 1:
		os.WriteFile(p, []byte(fmt.Sprint(rng.Int())), 0o644)
		return "write " + p
	case 2:
		os.Chmod(p, os.FileMode(0o600+rng.Intn(2)*0o44))
		return "chmod " + p
	case 3:
		os.RemoveAll(p)
		return "remove " + p
	case 4:
		if filepath.Dir(p) == filepath.Dir(q) {
			os.Rename(p, q)
		} else {
			os.MkdirAll(p, 0o755)
		}
		return "rename " + p + " " + q
	default:
		os.MkdirAll(p, 0o755)
		return "mkdir -p " + p
	}
}
