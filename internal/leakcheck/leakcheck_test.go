package leakcheck

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func parked(stop <-chan struct{}) { <-stop }

// TestRunning sees a goroutine while its function runs, and no longer once
// the WaitGroup that started it has been waited for.
func TestRunning(t *testing.T) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { parked(stop) })
	for deadline := time.Now().Add(5 * time.Second); len(Running("leakcheck.parked")) == 0; runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatal("the goroutine never ran")
		}
	}
	if s := Running("leakcheck.parked"); len(s) != 1 || !strings.Contains(s[0], "goroutine ") {
		t.Fatalf("got %q", s)
	}
	close(stop)
	wg.Wait()
	if s := Running("leakcheck.parked"); len(s) != 0 {
		t.Fatalf("still running after Wait: %q", s)
	}
	if s := Running("leakcheck.TestRunning"); len(s) != 0 {
		t.Fatalf("the caller's own goroutine is listed: %q", s)
	}
}
