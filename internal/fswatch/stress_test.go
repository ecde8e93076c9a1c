package fswatch

import (
	"fmt"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// busy keeps every CPU busy until the test ends, so that the watcher's
// goroutines are delayed the way they are on a loaded machine: events then
// pile up and interleave with re-anchoring.
func busy(t *testing.T) {
	var stop atomic.Bool
	var wg sync.WaitGroup
	for i := 0; i < runtime.GOMAXPROCS(0); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for !stop.Load() {
				x++
			}
			_ = x
		}()
	}
	t.Cleanup(func() {
		stop.Store(true)
		wg.Wait()
	})
}

// testSeed is FSWATCH_SEED when set, else a fresh seed.
func testSeed(t *testing.T) int64 {
	if s := os.Getenv("FSWATCH_SEED"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("FSWATCH_SEED=%q: %v", s, err)
		}
		return n
	}
	return time.Now().UnixNano()
}

// followed is one subscription of the randomized test.
type followed struct {
	rel    string
	follow int
	sub    *Sub
}

// TestRandomTree drives a real tree through random sequences of writes,
// mkdir -p, rm -rf, renames (of files and whole subtrees, over files and
// empty directories) and chmods, with every CPU kept busy, and checks the
// property "no missed event": every subscription whose followed state (per
// the model of the tree) differs between two quiescent points has been
// signalled. A quiescent point is reached when the write of a sentinel file
// has been signalled: events are delivered in order, so every event the
// operations caused has been delivered by then. The seed is printed on
// failure; FSWATCH_SEED=N replays it.
func TestRandomTree(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewSource(seed))
	w := newWatcher(t)
	root := t.TempDir()
	tree := filepath.Join(root, "t")
	if err := os.Mkdir(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	m := newModel()
	var paths []string
	var gen func(prefix string, depth int)
	gen = func(prefix string, depth int) {
		for _, n := range []string{"a", "b", "c"} {
			p := prefix + n
			paths = append(paths, p)
			if depth < 3 {
				gen(p+"/", depth+1)
			}
		}
	}
	gen("", 1)
	var subs []followed
	add := func(rel string, follow int) {
		opts := Options{Contents: follow == followContents, Recursive: follow == followTree}
		subs = append(subs, followed{rel, follow, subscribe(t, w, filepath.Join(tree, rel), opts)})
	}
	for _, p := range paths {
		add(p, followPath)
	}
	add("a", followContents)
	add("b/a", followContents)
	add("c", followTree)
	add("a/b", followTree)
	sentinel := subscribe(t, w, filepath.Join(root, "s"), Options{})
	busy(t)
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	for round := 0; round < rounds; round++ {
		before := make([]string, len(subs))
		for i, f := range subs {
			before[i] = m.state(f.rel, f.follow)
			drain(f.sub)
		}
		ops, err := randomOps(rng, m, tree, paths)
		drain(sentinel)
		if err := os.WriteFile(filepath.Join(root, "s"), []byte(strconv.Itoa(round)), 0o644); err != nil {
			t.Fatal(err)
		}
		fail := func(format string, v ...any) {
			t.Helper()
			t.Fatalf("seed %d (replay: FSWATCH_SEED=%d), round %d, after %s: %s",
				seed, seed, round, strings.Join(ops, "; "), fmt.Sprintf(format, v...))
		}
		if err != nil {
			fail("%v", err)
		}
		select {
		case <-sentinel.C:
		case <-time.After(10 * time.Second):
			fail("the sentinel write was not signalled")
		}
		if err := m.check(tree); err != nil {
			fail("the tree differs from the model: %v", err)
		}
		if err := checkKids(w); err != nil {
			fail("%v", err)
		}
		for i, f := range subs {
			if m.state(f.rel, f.follow) == before[i] {
				continue
			}
			select {
			case <-f.sub.C:
			case <-time.After(2 * time.Second):
				fail("%s (follow %d) changed but was not signalled:\nbefore:\n%safter:\n%s",
					f.rel, f.follow, before[i], m.state(f.rel, f.follow))
			}
		}
	}
	// Once every subscription is closed, no entry is watched or awaited.
	for _, f := range subs {
		f.sub.Close()
	}
	sentinel.Close()
	if err := checkKids(w); err != nil {
		t.Fatal(err)
	}
	if len(w.kids) != 0 {
		t.Fatalf("entries watched or awaited after every close: %v", w.kids)
	}
}

// checkKids compares the watcher's count of the watched or awaited
// entries of each directory (Watcher.kids) with one made from kref and
// byKey.
func checkKids(w *Watcher) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	want := map[string]int{}
	seen := map[string]bool{}
	count := func(p string) {
		if p != "/" && !seen[p] {
			seen[p] = true
			want[filepath.Dir(p)]++
		}
	}
	for p, n := range w.kref {
		if n > 0 {
			count(p)
		}
	}
	for p := range w.byKey {
		count(p)
	}
	if !maps.Equal(want, w.kids) {
		return fmt.Errorf("entries watched or awaited per directory: %v, want %v", w.kids, want)
	}
	return nil
}

// randomOps applies a random sequence of one to eight operations, back to
// back, and names them. The sequences favour the ones that race with the
// watcher: a subtree removed and made again at once, renames of
// directories over empty ones.
func randomOps(rng *rand.Rand, m *model, tree string, paths []string) ([]string, error) {
	pick := func() string { return paths[rng.Intn(len(paths))] }
	var done []string
	for n := 1 + rng.Intn(8); len(done) < n; {
		p := pick()
		var o op
		switch rng.Intn(7) {
		case 0, 1:
			o = writeOp(p, []byte(strconv.Itoa(rng.Int())))
		case 2:
			o = mkdirAllOp(p)
		case 3:
			o = removeAllOp(p)
		case 4:
			o = renameOp(p, pick())
		case 5:
			o = chmodOp(p)
		default:
			// rm -rf DIR; mkdir -p DIR/SUB; echo x > DIR/SUB/FILE
			top := strings.SplitN(p, "/", 2)[0]
			deep := paths[rng.Intn(len(paths))]
			deep = top + strings.TrimPrefix(deep, strings.SplitN(deep, "/", 2)[0])
			dir, _ := split(deep)
			seq := []op{removeAllOp(top)}
			if dir != "" {
				seq = append(seq, mkdirAllOp(dir))
			}
			seq = append(seq, writeOp(deep, []byte("x")))
			for _, o := range seq {
				if ok, err := o.do(m, tree); ok {
					done = append(done, o.name)
					if err != nil {
						return done, fmt.Errorf("%s: %v (the model allowed it)", o, err)
					}
				}
			}
			continue
		}
		if ok, err := o.do(m, tree); ok {
			done = append(done, o.name)
			if err != nil {
				return done, fmt.Errorf("%s: %v (the model allowed it)", o, err)
			}
		}
	}
	return done, nil
}
