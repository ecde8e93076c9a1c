package world

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// A countingKV counts the range requests (Get) a client makes and the
// keys they return.
type countingKV struct {
	clientv3.KV
	ranges, keys *atomic.Int64
}

func (k countingKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	r, err := k.KV.Get(ctx, key, opts...)
	k.ranges.Add(1)
	if err == nil {
		k.keys.Add(int64(len(r.Kvs)))
	}
	return r, err
}

// countReads makes c count its range requests and the keys they return
// from now on, in ranges and keys.
func countReads(c *Client, ranges, keys *atomic.Int64) {
	c.cli.KV = countingKV{KV: c.cli.KV, ranges: ranges, keys: keys}
}

// BenchmarkConvergedRound runs ClusterConverged on H hosts of a single
// member: every host records "not converged" (the start), then every
// host becomes converged (the round) and waits until it sees the whole
// world converged. It reports the range requests the hosts made and the
// keys those returned, in all, during the start and during the round.
func BenchmarkConvergedRound(b *testing.B) {
	for _, h := range []int{10, 30, 60} {
		b.Run(fmt.Sprintf("hosts=%d", h), func(b *testing.B) {
			var st, rd [2]int64
			for i := 0; i < b.N; i++ {
				s, r := convergedRound(b, h, fmt.Sprintf("/bench-converged/%d-%d", h, time.Now().UnixNano()))
				for j := range 2 {
					st[j] += s[j]
					rd[j] += r[j]
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(st[0])/n, "start-ranges")
			b.ReportMetric(float64(st[1])/n, "start-keys")
			b.ReportMetric(float64(rd[0])/n, "round-ranges")
			b.ReportMetric(float64(rd[1])/n, "round-keys")
		})
	}
}

// convergedRound runs one start and one round of BenchmarkConvergedRound
// in namespace ns and returns the range requests and keys read in each.
func convergedRound(b *testing.B, h int, ns string) (start, round [2]int64) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	connect := func(name string) *Client {
		c, err := Connect(ctx, Config{Endpoints: shared.endpoints, Namespace: ns, Hostname: name})
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	obs := connect("observer")
	defer obs.Close()
	var ranges, keys atomic.Int64
	conv := make([]atomic.Bool, h)
	done := make([]<-chan struct{}, h)
	logf := func(f string, v ...any) { b.Logf(f, v...) }
	for i := range h {
		c := connect(fmt.Sprintf("h%d", i))
		defer c.Close()
		countReads(c, &ranges, &keys)
		done[i] = ClusterConverged(ctx, c, conv[i].Load, 0, 10*time.Millisecond, logf)
	}
	watch := obs.ConvergedWatch(ctx)
	for {
		select {
		case <-watch:
		case <-time.After(30 * time.Second):
			b.Fatal("the hosts did not record their states within 30 s")
		}
		if m, err := obs.Converged(ctx); err == nil && len(m) == h {
			break
		}
	}
	start = [2]int64{ranges.Swap(0), keys.Swap(0)}
	for i := range h {
		conv[i].Store(true)
	}
	for i := range h {
		select {
		case <-done[i]:
		case <-time.After(60 * time.Second):
			b.Fatalf("host %d did not see the world converged within 60 s", i)
		}
	}
	return start, [2]int64{ranges.Load(), keys.Load()}
}

// BenchmarkResCollectLargeWorld measures a collect by a host of a world
// holding 10,000 exports, 100 hosts each exporting one file to every
// other one and to itself: each collect reads the current revision, then
// returns the host's 100 files from its cache.
func BenchmarkResCollectLargeWorld(b *testing.B) {
	ctx := context.Background()
	ns := fmt.Sprintf("/bench-collect/%d", time.Now().UnixNano())
	c, err := Connect(ctx, Config{Endpoints: shared.endpoints, Namespace: ns, Hostname: "h0"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var ops []clientv3.Op
	for from := range 100 {
		for to := range 100 {
			k := fmt.Sprintf("%s%sh%d/h%d/file/f%d", ns, exportsDir, from, to, from)
			ops = append(ops, clientv3.OpPut(k, `{"params":{"content":"x"}}`))
		}
	}
	if err := c.commit(ctx, ops); err != nil {
		b.Fatal(err)
	}
	var ranges, keys atomic.Int64
	countReads(c, &ranges, &keys)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		got, err := c.ResCollect(ctx, "file")
		if err != nil || len(got) != 100 {
			b.Fatalf("collected %d, %v; want 100", len(got), err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(ranges.Load())/float64(b.N), "ranges/op")
}
