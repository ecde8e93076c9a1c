package resources

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// BenchmarkFileGraphLive runs the engine on a directory and N files of
// one line each (mode 0644), as mgmt-apply does with such a graph, and
// reports what the graph costs once it has converged and every file is
// watched: the live heap per resource (B/resource), and what the load and
// the first run allocated per resource (alloc-B/resource).
func BenchmarkFileGraphLive(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint("N=", n), func(b *testing.B) {
			var live, alloc uint64
			for i := 0; i < b.N; i++ {
				l, a := liveAfterConverged(b, n)
				live += l
				alloc += a
			}
			b.ReportMetric(float64(live)/float64(b.N*(n+1)), "B/resource")
			b.ReportMetric(float64(alloc)/float64(b.N*(n+1)), "alloc-B/resource")
		})
	}
}

// liveAfterConverged applies a directory and n files in it with an
// engine of its own and returns the heap still live once the graph has
// converged, and the bytes allocated until then, both less what was
// there before the graph was built.
func liveAfterConverged(b *testing.B, n int) (live, alloc uint64) {
	dir := b.TempDir()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g := fileGraph(b, dir, n)
	e := engine.New(engine.Config{Prefix: b.TempDir(), ConvergedTimeout: 0})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Run(ctx)
	}()
	defer func() {
		cancel()
		<-done
	}()
	e.Load(g)
	g = nil
	select {
	case <-e.Converged():
	case <-time.After(5 * time.Minute):
		b.Fatal("not converged")
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(e)
	if after.HeapAlloc < before.HeapAlloc {
		return 0, after.TotalAlloc - before.TotalAlloc
	}
	return after.HeapAlloc - before.HeapAlloc, after.TotalAlloc - before.TotalAlloc
}

// fileGraph builds (consuming the document) and compacts, as mgmt-apply
// does, the graph of dir and n files in it.
func fileGraph(b *testing.B, dir string, n int) *engine.Graph {
	rs := []*graph.Resource{{Kind: "file", Name: dir + "/", Params: map[string]any{"state": "exists"}}}
	for i := range n {
		rs = append(rs, &graph.Resource{Kind: "file", Name: filepath.Join(dir, fmt.Sprint("f", i)),
			Params: map[string]any{"state": "exists", "content": fmt.Sprintf("file %d\n", i), "mode": "0644"}})
	}
	g, err := engine.Build(&graph.Document{Mgmt: graph.Version, Graph: "bench", Seq: 1, Resources: rs}, engine.BuildOptions{Consume: true})
	if err != nil {
		b.Fatal(err)
	}
	g.Compact()
	return g
}
