package resources

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// TestFileWatchNeedsNoGoroutine runs the engine on 500 file resources:
// once converged, their watches hold no goroutine each (the file kind is
// an engine.Subscriber), and an overwrite of any of them is still
// repaired.
func TestFileWatchNeedsNoGoroutine(t *testing.T) {
	const n = 500
	dir := t.TempDir()
	var rs []*graph.Resource
	for i := range n {
		rs = append(rs, &graph.Resource{Kind: "file", Name: filepath.Join(dir, fmt.Sprint(i)),
			Params: map[string]any{"content": "want\n", "state": "exists"}})
	}
	g, err := engine.Build(&graph.Document{Mgmt: graph.Version, Graph: "t", Seq: 1, Resources: rs}, engine.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	var logs lockedLog
	e := runEngine(t, engine.Config{Prefix: t.TempDir(), ConvergedTimeout: 0, Logf: logs.logf})
	e.Load(g)
	select {
	case <-e.Converged():
	case <-time.After(30 * time.Second):
		t.Fatalf("not converged; log:\n%s", logs.String())
	}
	// The engine's loop, the shared watcher's two and a few of the
	// runtime's: a number that does not grow with the graph.
	if extra := runtime.NumGoroutine() - before; extra >= 20 {
		t.Fatalf("%d goroutines more than before the engine started, for %d idle files", extra, n)
	}
	for _, i := range []int{0, n / 2, n - 1} {
		p := filepath.Join(dir, fmt.Sprint(i))
		if err := os.WriteFile(p, []byte("drift\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		waitUntil(t, p+" repaired", func() bool {
			b, _ := os.ReadFile(p)
			return string(b) == "want\n"
		}, logs.String)
	}
}
