package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/internal/benchcpu"
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// benchDoc returns n tval resources: independent ("flat"), a chain of
// edges ("chain"), or all before one more ("fanin").
func benchDoc(n int, shape string) *graph.Document {
	d := &graph.Document{Mgmt: graph.Version, Graph: "bench", Seq: 1}
	for i := 0; i < n; i++ {
		d.Resources = append(d.Resources, &graph.Resource{Kind: "tval", Name: fmt.Sprint("r", i),
			Params: map[string]any{"want": "v"}})
		if shape == "chain" && i > 0 {
			d.Edges = append(d.Edges, &graph.Edge{From: graph.Ref{Kind: "tval", Name: fmt.Sprint("r", i-1)},
				To: graph.Ref{Kind: "tval", Name: fmt.Sprint("r", i)}})
		}
		if shape == "fanin" {
			d.Edges = append(d.Edges, &graph.Edge{From: graph.Ref{Kind: "tval", Name: fmt.Sprint("r", i)},
				To: graph.Ref{Kind: "tval", Name: "sink"}, Notify: true})
		}
	}
	if shape == "fanin" {
		d.Resources = append(d.Resources, &graph.Resource{Kind: "tval", Name: "sink", Params: map[string]any{"want": "v"}})
	}
	return d
}

// BenchmarkEngine measures the engine's own cost: preparing a graph of n
// in-memory resources, running every Watch and CheckApply until the graph
// has converged, and shutting down.
func BenchmarkEngine(b *testing.B) {
	register()
	for _, shape := range []string{"flat", "chain", "fanin"} {
		for _, n := range []int{1000, 10000} {
			b.Run(fmt.Sprintf("%s/N=%d", shape, n), func(b *testing.B) {
				d := benchDoc(n, shape)
				var stop, stopCPU time.Duration
				for i := 0; i < b.N; i++ {
					sys.reset()
					g, err := engine.Build(d, engine.BuildOptions{})
					if err != nil {
						b.Fatal(err)
					}
					e := engine.New(engine.Config{ConvergedTimeout: 0, Prefix: b.TempDir()})
					ctx, cancel := context.WithCancel(context.Background())
					done := make(chan struct{})
					go func() { e.Run(ctx); close(done) }()
					e.Load(g)
					select {
					case <-e.Converged():
					case <-time.After(time.Minute):
						b.Fatal("not converged")
					}
					t0, c0 := time.Now(), benchcpu.Time()
					cancel()
					<-done
					stop += time.Since(t0)
					stopCPU += benchcpu.Time() - c0
					if got := len(changed()); got < n {
						b.Fatalf("%d resources changed, want %d", got, n)
					}
				}
				b.ReportMetric(float64(stop.Microseconds())/1e3/float64(b.N), "shutdown-ms")
				b.ReportMetric(float64(stopCPU.Microseconds())/1e3/float64(b.N), "shutdown-cpu-ms")
			})
		}
	}
}

// BenchmarkBuild measures graph preparation alone (decode, validate,
// autoedges, autogroup) for 10,000 resources.
func BenchmarkBuild(b *testing.B) {
	register()
	d := benchDoc(10000, "chain")
	for i := 0; i < b.N; i++ {
		if _, err := engine.Build(d, engine.BuildOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
