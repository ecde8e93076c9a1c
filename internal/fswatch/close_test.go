package fswatch

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/internal/leakcheck"
)

// TestCloseJoins: Close returns once the watcher's goroutines have ended,
// even while events are pouring in, and no Notify function runs after it.
func TestCloseJoins(t *testing.T) {
	for i := 0; i < 10; i++ {
		dir := t.TempDir()
		w, err := New()
		if err != nil {
			t.Fatal(err)
		}
		var closed, late atomic.Bool
		var once sync.Once
		called := make(chan struct{})
		if _, err := w.Subscribe(dir, Options{Contents: true, Notify: func(error) {
			once.Do(func() { close(called) })
			if closed.Load() {
				late.Store(true)
			}
		}}); err != nil {
			t.Fatal(err)
		}
		// Events are being read and dispatched when Close comes.
		for j := 0; j < 200; j++ {
			if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(j)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		select {
		case <-called:
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: no Notify for 200 new files", i)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		closed.Store(true)
		// This watcher's reader, by its receiver (the process-wide one
		// of other tests runs on).
		if s := leakcheck.Running(fmt.Sprintf("fswatch.(*Watcher).readLoop(%p", w)); len(s) != 0 {
			t.Fatalf("round %d: the reader still runs after Close:\n%s", i, s[0])
		}
		// More events for the closed watcher: nobody is told.
		for j := 0; j < 50; j++ {
			os.Remove(filepath.Join(dir, strconv.Itoa(j)))
		}
		if late.Load() {
			t.Fatalf("round %d: a Notify function ran after Close returned", i)
		}
	}
}
