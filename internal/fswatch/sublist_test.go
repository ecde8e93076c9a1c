package fswatch

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWaitersOfOneKey checks the chain of the subscriptions waiting on
// one component (every path under a missing directory): closed in any
// order, each leaves it and the others stay, in order; once the directory
// is made, those left are signalled and none that was closed is.
func TestWaitersOfOneKey(t *testing.T) {
	root := t.TempDir()
	missing := filepath.Join(root, "missing")
	w, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	const n = 300
	subs := make([]*Sub, n)
	for i := range subs {
		if subs[i], err = w.Subscribe(filepath.Join(missing, fmt.Sprint("d", i%3), fmt.Sprint(i)), Options{}); err != nil {
			t.Fatal(err)
		}
	}
	chain := func() []*Sub {
		w.mu.Lock()
		defer w.mu.Unlock()
		var out []*Sub
		var prev *Sub
		for s := w.byKey[missing]; s != nil; s = s.keyNext {
			if s.keyPrev != prev || s.key() != missing {
				t.Fatalf("subscription %s: keyPrev %p, want %p; key %q", s.path, s.keyPrev, prev, s.key())
			}
			out = append(out, s)
			prev = s
		}
		return out
	}
	if got := len(chain()); got != n {
		t.Fatalf("%d subscriptions wait on %s, want %d", got, missing, n)
	}
	// the first, the last, then every third in the order of subscribing
	// (the end of the chain), and a run in the middle
	closed := map[*Sub]bool{}
	for _, i := range []int{0, n - 1, 3, 6, 9, 12, 150, 151, 152, 153} {
		subs[i].Close()
		closed[subs[i]] = true
	}
	var want []*Sub
	for i := n - 1; i >= 0; i-- {
		if !closed[subs[i]] {
			want = append(want, subs[i])
		}
	}
	got := chain()
	if len(got) != len(want) {
		t.Fatalf("%d subscriptions wait, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("waiter %d is %s, want %s", i, got[i].path, want[i].path)
		}
	}
	if err := os.Mkdir(missing, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range want {
		select {
		case <-s.C:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no signal once %s was made", s.path, missing)
		}
	}
	for s := range closed {
		select {
		case <-s.C:
			t.Fatalf("closed %s signalled", s.path)
		default:
		}
	}
	if got := len(chain()); got != 0 {
		t.Fatalf("%d subscriptions still wait on %s once it exists", got, missing)
	}
	for _, s := range want {
		s.Close()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.byKey) != 0 {
		t.Fatalf("%d keys waited on after every subscription closed", len(w.byKey))
	}
}
