package mgmtapply

import (
	"os"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// TestGCPercentFor: 100% below 4 MiB live, 50% below 8 MiB, then 30%, 50%
// from 32 MiB, at most 32 MiB of headroom and never less than 25%.
func TestGCPercentFor(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 100},
		{4<<20 - 1, 100},
		{4 << 20, 50},
		{7 << 20, 50},
		{8 << 20, 30},
		{16 << 20, 30},
		{32<<20 - 1, 30},
		{32 << 20, 50},
		{64 << 20, 50},
		{80 << 20, 40},
		{100 << 20, 32},
		{110 << 20, 29},
		{128 << 20, 25},
		{170 << 20, 25},
		{4 << 30, 25},
	} {
		if got := gcPercentFor(c.live); got != c.want {
			t.Errorf("gcPercentFor(%d MiB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
}

// TestGCPolicyFollowsLiveHeap: with GOGC unset, a live heap of 120 MiB
// brings the GOGC in force down to 26 after a collection, and back to 100
// once it is freed.
func TestGCPolicyFollowsLiveHeap(t *testing.T) {
	if v, set := os.LookupEnv("GOGC"); set {
		t.Setenv("GOGC", v) // restored at the end
		os.Unsetenv("GOGC")
	}
	tuneGC()
	live := make([][]byte, 120)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	waitGOGC(t, 26)
	runtime.KeepAlive(live)
	live = nil
	waitGOGC(t, 100)
}

// waitGOGC collects until the GOGC in force is want, for at most a
// minute.
func waitGOGC(t *testing.T, want int) {
	t.Helper()
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	deadline := time.Now().Add(time.Minute)
	for {
		runtime.GC()
		metrics.Read(s)
		got := int(s[0].Value.Uint64())
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GOGC %d, want %d", got, want)
		}
		runtime.Gosched()
	}
}

// TestTuneProfiling: allocations are sampled for heap profiles only when
// --pprof serves them or GODEBUG asks for a rate.
func TestTuneProfiling(t *testing.T) {
	const dflt = 512 * 1024
	defer func(r int) { runtime.MemProfileRate = r }(runtime.MemProfileRate)
	for _, c := range []struct {
		pprof, godebug string
		want           int
	}{
		{"", "", 0},
		{"127.0.0.1:6060", "", dflt},
		{"", "memprofilerate=524288", dflt},
		{"", "madvdontneed=1", 0},
	} {
		t.Setenv("GODEBUG", c.godebug)
		runtime.MemProfileRate = dflt
		tuneProfiling(c.pprof)
		if runtime.MemProfileRate != c.want {
			t.Errorf("pprof %q, GODEBUG %q: MemProfileRate %d, want %d", c.pprof, c.godebug, runtime.MemProfileRate, c.want)
		}
	}
}
