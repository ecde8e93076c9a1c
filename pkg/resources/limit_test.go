package resources

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/internal/nstest"
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// TestWatchLimitFallback runs TestWatchLimitChild in a user namespace of
// its own, once for each inotify limit, lowered there to nothing.
func TestWatchLimitFallback(t *testing.T) {
	for _, limit := range []string{"max_inotify_watches", "max_inotify_instances"} {
		t.Run(limit, func(t *testing.T) {
			nstest.Run(t, "TestWatchLimitChild", "MGMT_TEST_LIMIT="+limit)
		})
	}
}

// TestWatchLimitChild runs the engine on a file resource while an inotify
// limit keeps its Watch from starting: the file is still enforced (polled),
// the log names the sysctl to raise, and once the limit is raised the
// resource watches again and is still enforced.
func TestWatchLimitChild(t *testing.T) {
	if !nstest.Child(t) {
		return
	}
	limit := os.Getenv("MGMT_TEST_LIMIT")
	nstest.SetLimit(t, limit, 0)
	sysctl := map[string]string{"max_inotify_watches": "fs.inotify.max_user_watches",
		"max_inotify_instances": "fs.inotify.max_user_instances"}[limit]
	p := filepath.Join(t.TempDir(), "f")
	var logs lockedLog
	e := runEngine(t, engine.Config{Prefix: t.TempDir(), ConvergedTimeout: -1, LimitPoll: 100 * time.Millisecond, Logf: logs.logf})
	g, err := engine.Build(&graph.Document{Mgmt: graph.Version, Graph: "t", Seq: 1, Resources: []*graph.Resource{
		{Kind: "file", Name: p, Params: map[string]any{"content": "want\n", "state": "exists"}},
	}}, engine.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.Load(g)
	enforced := func(what string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(what), 0o644); err != nil {
			t.Fatal(err)
		}
		waitUntil(t, what+" repaired", func() bool {
			b, _ := os.ReadFile(p)
			return string(b) == "want\n"
		}, logs.String)
	}
	enforced("drift while polled\n")
	if l := logs.String(); !strings.Contains(l, "raise the sysctl "+sysctl) || !strings.Contains(l, "polled every 100ms") {
		t.Fatalf("the log does not say what to raise (%s):\n%s", sysctl, l)
	}
	nstest.SetLimit(t, limit, 1000)
	waitUntil(t, "watching again", func() bool { return strings.Contains(logs.String(), "watching again") }, logs.String)
	enforced("drift while watched\n")
}

// runEngine runs an engine of cfg until the test ends.
func runEngine(t *testing.T, cfg engine.Config) *engine.Engine {
	t.Helper()
	e := engine.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return e
}

// waitUntil waits for cond, with a deadline.
func waitUntil(t *testing.T, what string, cond func() bool, log func() string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; log:\n%s", what, log())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type lockedLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *lockedLog) logf(format string, v ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, v...))
	l.mu.Unlock()
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}
