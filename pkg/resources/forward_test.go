package resources

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/fswatch"
	"github.com/mgmtpipe/mgmt/internal/leakcheck"
)

// TestForwardEventsJoins: the goroutines forwardEvents starts for the
// second and later subscriptions have ended when it returns.
func TestForwardEventsJoins(t *testing.T) {
	w, err := fswatch.Default()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var subs []*fswatch.Sub
	for _, n := range []string{"a", "b", "c"} {
		s, err := w.Subscribe(filepath.Join(dir, n), fswatch.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		subs = append(subs, s)
	}
	for i := 0; i < 10; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		// A change of the last file is forwarded; the event ends the
		// forwarding.
		if err := os.WriteFile(filepath.Join(dir, "c"), []byte{byte(i)}, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := forwardEvents(ctx, subs, cancel); err != nil {
			t.Fatal(err)
		}
		if s := leakcheck.Running("resources.forwardEvents"); len(s) != 0 {
			t.Fatalf("round %d: a forwarding goroutine still runs:\n%s", i, s[0])
		}
	}
}
