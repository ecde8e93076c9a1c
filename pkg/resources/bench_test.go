package resources

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// benchFiles returns n initialised file resources with content and mode
// in one directory.
func benchFiles(b *testing.B, h *harness, dir string, n int) []*FileRes {
	fs := make([]*FileRes, n)
	for i := range fs {
		c := fmt.Sprintf("content of file %d\n", i)
		f := &FileRes{State: "exists", Content: &c, Mode: "0644"}
		f.SetKind("file")
		f.SetName(filepath.Join(dir, fmt.Sprintf("f%05d", i)))
		if err := f.Validate(); err != nil {
			b.Fatal(err)
		}
		if err := f.Init(h.init()); err != nil {
			b.Fatal(err)
		}
		fs[i] = f
	}
	return fs
}

// BenchmarkFileFromNothing measures creating N files (one CheckApply each,
// sequentially): the resource's share of a graph applied from nothing.
func BenchmarkFileFromNothing(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			h := newHarness(b)
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				dir := b.TempDir()
				fs := benchFiles(b, h, dir, n)
				b.StartTimer()
				for _, f := range fs {
					if _, err := f.CheckApply(context.Background(), true); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/file")
		})
	}
}

// BenchmarkFileConverged measures CheckApply on N files that are already
// right.
func BenchmarkFileConverged(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			h := newHarness(b)
			dir := b.TempDir()
			fs := benchFiles(b, h, dir, n)
			for _, f := range fs {
				if _, err := f.CheckApply(context.Background(), true); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, f := range fs {
					if ok, err := f.CheckApply(context.Background(), true); err != nil || !ok {
						b.Fatal(ok, err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/file")
		})
	}
}

// BenchmarkFileWatchStart measures starting the Watch of N files: their
// subscriptions to the shared watcher, one kernel watch for the directory.
func BenchmarkFileWatchStart(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				h := newHarness(b)
				h.running = make(chan struct{}, n)
				dir := b.TempDir()
				fs := benchFiles(b, h, dir, n)
				ctx, cancel := context.WithCancel(context.Background())
				b.StartTimer()
				done := make(chan struct{}, n)
				for _, f := range fs {
					go func(f *FileRes) {
						f.Watch(ctx)
						done <- struct{}{}
					}(f)
				}
				for range fs {
					<-h.running
				}
				b.StopTimer()
				cancel()
				for range fs {
					<-done
				}
			}
		})
	}
}

// BenchmarkDriftRepair measures, on a watched file among 1,000, the time
// from an edit to the file being right again: the kernel event, the
// shared watcher's routing, the Watch's event and a CheckApply that
// rewrites it. It reports the median and 99th percentile.
func BenchmarkDriftRepair(b *testing.B) {
	const n = 1000
	dir := b.TempDir()
	h := newHarness(b)
	fs := benchFiles(b, h, dir, n)
	hs := make([]*harness, n)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i, f := range fs {
		if _, err := f.CheckApply(ctx, true); err != nil {
			b.Fatal(err)
		}
		hs[i] = newHarness(b)
		f.init = hs[i].init()
		go f.Watch(ctx)
		<-hs[i].running
	}
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := (i * 7919) % n
		f, fh := fs[k], hs[k]
		drainEvents(fh)
		start := time.Now()
		if err := os.WriteFile(f.path(), []byte("drift"), 0o644); err != nil {
			b.Fatal(err)
		}
		repairUntilRight(b, ctx, f, fh)
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

func drainEvents(h *harness) {
	for {
		select {
		case <-h.events:
		default:
			return
		}
	}
}

// repairUntilRight does what the engine does on events: CheckApply after
// each event until one finds the file right.
func repairUntilRight(b *testing.B, ctx context.Context, f engine.Res, h *harness) {
	for {
		select {
		case <-h.events:
		case <-time.After(10 * time.Second):
			b.Fatal("no event")
		}
		ok, err := f.CheckApply(ctx, true)
		if err != nil {
			b.Fatal(err)
		}
		if !ok {
			return // repaired
		}
	}
}
