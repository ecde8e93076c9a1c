package resources

import (
	"context"
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
	// runtime's: a number that does not grow with the graph. Workers of
	// the task pool started for the last checks may not have run yet
	// (on a loaded machine): they find the queue empty and end, so the
	// count is awaited, not sampled once.
	waitUntil(t, fmt.Sprintf("fewer than 20 goroutines more than before the engine started, for %d idle files", n), func() bool {
		return runtime.NumGoroutine()-before < 20
	}, func() string {
		buf := make([]byte, 1<<20)
		return fmt.Sprintf("%d goroutines more:\n%s", runtime.NumGoroutine()-before, buf[:runtime.Stack(buf, true)])
	})
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

// TestStatelessNeedsNoGoroutine: the kinds with no state to follow (noop,
// msg, print) hold no goroutine each once converged: a chain of 300 of
// them, which cannot group, held one per resource, 590 MB and 3.1 s for a
// chain of 100,000 noops in a one-time run (now 124 MB, 1.5 s).
func TestStatelessNeedsNoGoroutine(t *testing.T) {
	const n = 100
	var rs []*graph.Resource
	var es []*graph.Edge
	for i := range n {
		rs = append(rs,
			&graph.Resource{Kind: "noop", Name: fmt.Sprint(i)},
			&graph.Resource{Kind: "msg", Name: fmt.Sprint(i), Params: map[string]any{"body": "m"}},
			&graph.Resource{Kind: "print", Name: fmt.Sprint(i), Params: map[string]any{"msg": "p"}})
		es = append(es,
			&graph.Edge{From: graph.Ref{Kind: "noop", Name: fmt.Sprint(i)}, To: graph.Ref{Kind: "msg", Name: fmt.Sprint(i)}},
			&graph.Edge{From: graph.Ref{Kind: "msg", Name: fmt.Sprint(i)}, To: graph.Ref{Kind: "print", Name: fmt.Sprint(i)}})
		if i > 0 {
			es = append(es, &graph.Edge{From: graph.Ref{Kind: "print", Name: fmt.Sprint(i - 1)}, To: graph.Ref{Kind: "noop", Name: fmt.Sprint(i)}})
		}
	}
	g, err := engine.Build(&graph.Document{Mgmt: graph.Version, Graph: "t", Seq: 1, Resources: rs, Edges: es}, engine.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Vertices) != 3*n {
		t.Fatalf("%d vertices, want %d (grouped?)", len(g.Vertices), 3*n)
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
	waitUntil(t, fmt.Sprintf("fewer than 20 goroutines more than before the engine started, for %d idle resources", 3*n), func() bool {
		return runtime.NumGoroutine()-before < 20
	}, func() string {
		buf := make([]byte, 1<<20)
		return fmt.Sprintf("%d goroutines more:\n%s", runtime.NumGoroutine()-before, buf[:runtime.Stack(buf, true)])
	})
}

// TestExitAfterRun: an engine whose program exits once Run returns
// (engine.Config.ExitAfterRun) lets go of the subscriptions of its files
// without stopping them: their directory's group is still there, with
// every file in it, once Run has returned; an engine without it stops
// each, and the group goes.
func TestExitAfterRun(t *testing.T) {
	for _, exit := range []bool{false, true} {
		dir := t.TempDir()
		var rs []*graph.Resource
		for i := range 3 {
			rs = append(rs, &graph.Resource{Kind: "file", Name: filepath.Join(dir, fmt.Sprint(i)),
				Params: map[string]any{"content": "want\n", "state": "exists"}})
		}
		g, err := engine.Build(&graph.Document{Mgmt: graph.Version, Graph: "t", Seq: 1, Resources: rs}, engine.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var logs lockedLog
		e := engine.New(engine.Config{Prefix: t.TempDir(), ConvergedTimeout: 0, Logf: logs.logf, ExitAfterRun: exit})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			e.Run(ctx)
		}()
		e.Load(g)
		select {
		case <-e.Converged():
		case <-time.After(30 * time.Second):
			t.Fatalf("not converged; log:\n%s", logs.String())
		}
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("exit %v: Run did not return; log:\n%s", exit, logs.String())
		}
		dirGroups.mu.Lock()
		refs := -1
		if g := dirGroups.m[dir]; g != nil {
			refs = g.refs
		}
		dirGroups.mu.Unlock()
		switch {
		case exit && refs != 3:
			t.Errorf("with ExitAfterRun: the group of %s holds %d files once Run returned, want the 3 left as they were", dir, refs)
		case !exit && refs != -1:
			t.Errorf("without ExitAfterRun: the group of %s still there (%d files) once Run returned", dir, refs)
		}
	}
}

// TestOneShotSubscribesNothing: an engine whose program stops at the
// first convergence (engine.Config.OneShot) makes no subscription for its
// files, whose directory then has no group, and still applies them, a
// graph that replaces the first one included, and stops.
func TestOneShotSubscribesNothing(t *testing.T) {
	dir := t.TempDir()
	doc := func(seq int64, content string, n int) *engine.Graph {
		var rs []*graph.Resource
		for i := range n {
			rs = append(rs, &graph.Resource{Kind: "file", Name: filepath.Join(dir, fmt.Sprint(i)),
				Params: map[string]any{"content": content, "state": "exists"}})
		}
		g, err := engine.Build(&graph.Document{Mgmt: graph.Version, Graph: "t", Seq: seq, Resources: rs}, engine.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	var logs lockedLog
	e := runEngine(t, engine.Config{Prefix: t.TempDir(), ConvergedTimeout: 0, Logf: logs.logf, OneShot: true})
	e.Load(doc(1, "one\n", 3))
	select {
	case <-e.Converged():
	case <-time.After(30 * time.Second):
		t.Fatalf("not converged; log:\n%s", logs.String())
	}
	dirGroups.mu.Lock()
	g := dirGroups.m[dir]
	dirGroups.mu.Unlock()
	if g != nil {
		t.Errorf("one-shot: %s has a group of %d subscribed files, want none", dir, g.refs)
	}
	for i := range 3 {
		if b, err := os.ReadFile(filepath.Join(dir, fmt.Sprint(i))); string(b) != "one\n" {
			t.Errorf("file %d: %q, %v; log:\n%s", i, b, err, logs.String())
		}
	}
	// A new graph replaces the vertices parked with nothing behind them.
	e.Load(doc(2, "two\n", 2))
	for i := range 2 {
		p := filepath.Join(dir, fmt.Sprint(i))
		waitUntil(t, p+" rewritten by graph 2", func() bool {
			b, _ := os.ReadFile(p)
			return string(b) == "two\n"
		}, logs.String)
	}
}
