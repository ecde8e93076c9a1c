package cluster

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/world"
)

// BenchmarkPutWatchLatency measures how long a value written through one
// member of a 3-member cluster (separate processes) takes to reach a
// watcher connected to another member. It reports p50 and p99.
func BenchmarkPutWatchLatency(b *testing.B) {
	hs := benchCluster(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	writer := benchClient(b, ctx, hs[0].client, "writer")
	reader := benchClient(b, ctx, hs[2].client, "reader")
	watch, err := reader.StrWatch(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	<-watch // established
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := writer.StrSet(ctx, "bench", strconv.Itoa(i)); err != nil {
			b.Fatal(err)
		}
		select {
		case err := <-watch:
			if err != nil {
				b.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			b.Fatal("no watch event within 10s")
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// benchHosts is the 3-member cluster of BenchmarkPutWatchLatency, started
// once for all its rounds and stopped by TestMain.
var benchHosts []*host

func benchCluster(b *testing.B) []*host {
	if benchHosts != nil {
		return benchHosts
	}
	dir, err := os.MkdirTemp("", "mgmt-bench-cluster-")
	if err != nil {
		b.Fatal(err)
	}
	benchDir = dir
	for i := 1; i <= 3; i++ {
		h := newHost(b, fmt.Sprintf("b%d", i), "http")
		h.dir, h.shared = fmt.Sprintf("%s/b%d", dir, i), true
		benchHosts = append(benchHosts, h)
		if i == 1 {
			h.start()
		} else {
			h.start(benchHosts[0].client)
		}
		h.waitLog("running as member "+h.name, joinTimeout)
	}
	return benchHosts
}

var benchDir string

// TestMain stops the benchmark cluster after every test and benchmark.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, h := range benchHosts {
		h.kill()
	}
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

func benchClient(b *testing.B, ctx context.Context, endpoint, name string) *world.Client {
	b.Helper()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := world.Connect(cctx, world.Config{Endpoints: []string{endpoint}, Hostname: name})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

// BenchmarkIdleMemberRSS reports the resident memory of a single idle
// member process, measured after it has been ready for two seconds.
func BenchmarkIdleMemberRSS(b *testing.B) {
	var rss float64
	for i := 0; i < b.N; i++ {
		h := newHost(b, "idle", "http")
		h.start()
		h.waitLog("running as member idle", joinTimeout)
		time.Sleep(2 * time.Second) // the idle period being measured
		kb, err := vmRSS(h.cmd.Process.Pid)
		if err != nil {
			b.Fatal(err)
		}
		rss = float64(kb) / 1024
		h.stop(10 * time.Second)
	}
	b.ReportMetric(rss, "RSS-MiB")
}

func vmRSS(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			return strconv.Atoi(f[1])
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
