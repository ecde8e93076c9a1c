package metrics

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// memstat is a go_memstats_* family: its name after the prefix, its
// type, help and value in a runtime.MemStats.
type memstat struct {
	name, help string
	typ        Type
	value      func(*runtime.MemStats) float64
}

// memstats are the families of runtime.MemStats, with the names and
// meanings of Prometheus's Go client.
var memstats = []memstat{
	{"alloc_bytes", "Bytes of allocated heap objects (HeapAlloc).", Gauge, func(m *runtime.MemStats) float64 { return float64(m.HeapAlloc) }},
	{"alloc_bytes_total", "Bytes allocated for heap objects since the start, freed ones included (TotalAlloc).", Counter, func(m *runtime.MemStats) float64 { return float64(m.TotalAlloc) }},
	{"buck_hash_sys_bytes", "Bytes of memory in the profiling bucket hash tables (BuckHashSys).", Gauge, func(m *runtime.MemStats) float64 { return float64(m.BuckHashSys) }},
	{"frees_total", "Heap objects freed since the start (Frees).", Counter, func(m *runtime.MemStats) float64 { return float64(m.Frees) }},
	{"gc_sys_bytes", "Bytes of memory in garbage collection metadata (GCSys).", Gauge, func(m *runtime.MemStats) float64 { return float64(m.GCSys) }},
	{"heap_alloc_bytes", "Bytes of allocated heap objects, as go_memstats_alloc_bytes (HeapAlloc).", Gauge, func(m *runtime.MemStats) float64 { return float64(m.HeapAlloc) }},
	{"heap_idle_bytes", "Bytes in idle (unused) heap spans (HeapIdle).", Gauge, func(m *runtime.MemStats) float64 { return float64(m.HeapIdle) }},
	{"heap_inuse_bytes", "Bytes in in-use heap spans (HeapInuse).", Gauge, func(m *runtime.MemStats) float64 { return float64(m.HeapInuse) }},
	{"heap_objects", "Number of allocated heap objects (HeapObjects).", Gauge, func(m *runtime.MemStats) float64 { return float64(m.HeapObjects) }},
	{"heap_released_bytes", "Bytes of physical memory returned to the OS (HeapReleased).", Gauge, func(m *runtime.MemStats) float64 { return float64(m.HeapReleased) }},
	{"heap_sys_bytes", "Bytes of heap memory obtained from the OS (HeapSys).", Gauge, func(m *runtime.MemStats) float64 { return float64(m.HeapSys) }},
	{"last_gc_time_seconds", "Time the last garbage collection finished, in seconds since 1970 (LastGC).", Gauge, func(m *runtime.MemStats) float64 { return float64(m.LastGC) / 1e9 }},
	{"mallocs_total", "Heap objects allocated since the start (Mallocs).", Counter, func(m *runtime.MemStats) float64 { return float64(m.Mallocs) }},
	{"mcache_inuse_bytes", "Bytes of allocated mcache structures (MCacheInuse).", Gauge, func(m *runtime.MemStats) float64 { return float64(m.MCacheInuse) }},
	{"mcache_sys_bytes", "Bytes of memory obtained from the OS for mcache structures (MCacheSys).", Gauge, func(m *runtime.MemStats) float64 { return float64(m.MCacheSys) }},
	{"mspan_inuse_bytes", "Bytes of allocated mspan structures (MSpanInuse).", Gauge, func(m *runtime.MemStats) float64 { return float64(m.MSpanInuse) }},
	{"mspan_sys_bytes", "Bytes of memory obtained from the OS for mspan structures (MSpanSys).", Gauge, func(m *runtime.MemStats) float64 { return float64(m.MSpanSys) }},
	{"next_gc_bytes", "Heap size the next garbage collection aims at (NextGC).", Gauge, func(m *runtime.MemStats) float64 { return float64(m.NextGC) }},
	{"other_sys_bytes", "Bytes of memory in miscellaneous off-heap runtime allocations (OtherSys).", Gauge, func(m *runtime.MemStats) float64 { return float64(m.OtherSys) }},
	{"stack_inuse_bytes", "Bytes in stack spans (StackInuse).", Gauge, func(m *runtime.MemStats) float64 { return float64(m.StackInuse) }},
	{"stack_sys_bytes", "Bytes of stack memory obtained from the OS (StackSys).", Gauge, func(m *runtime.MemStats) float64 { return float64(m.StackSys) }},
	{"sys_bytes", "Bytes of memory obtained from the OS in all (Sys).", Gauge, func(m *runtime.MemStats) float64 { return float64(m.Sys) }},
}

// runtimeGauges are the go_* gauges read from runtime/metrics.
var runtimeGauges = []struct{ name, help, sample string }{
	{"go_gc_gogc_percent", "The heap size target percentage (GOGC, or debug.SetGCPercent), 100 by default.", "/gc/gogc:percent"},
	{"go_gc_gomemlimit_bytes", "The Go runtime's memory limit (GOMEMLIMIT, or debug.SetMemoryLimit), math.MaxInt64 by default.", "/gc/gomemlimit:bytes"},
	{"go_sched_gomaxprocs_threads", "The current runtime.GOMAXPROCS: how many threads can run Go code at once.", "/sched/gomaxprocs:threads"},
}

// goCollector makes the Go runtime's families.
type goCollector struct{}

// RegisterGo registers the Go runtime's families (go_*) under the names
// and with the meanings of Prometheus's Go client: goroutines, threads,
// the version, runtime.MemStats as go_memstats_*, the garbage collector's
// pauses as the summary go_gc_duration_seconds, GOGC, GOMEMLIMIT and
// GOMAXPROCS.
func (r *Registry) RegisterGo() {
	names := []string{"go_gc_duration_seconds", "go_goroutines", "go_info", "go_threads"}
	for _, m := range memstats {
		names = append(names, "go_memstats_"+m.name)
	}
	for _, g := range runtimeGauges {
		names = append(names, g.name)
	}
	r.Register(goCollector{}, names...)
}

func (goCollector) Collect(add func(Family)) {
	one := func(name, help string, t Type, v float64) {
		add(Family{Name: name, Help: help, Type: t, Samples: []Sample{{Value: v}}})
	}
	one("go_goroutines", "Goroutines that exist now.", Gauge, float64(runtime.NumGoroutine()))
	threads, _ := runtime.ThreadCreateProfile(nil)
	one("go_threads", "Operating system threads the Go runtime has created.", Gauge, float64(threads))
	add(Family{Name: "go_info", Help: "The version of Go the program was built with, as a label; always 1.", Type: Gauge,
		Samples: []Sample{{Labels: []Label{{"version", runtime.Version()}}, Value: 1}}})

	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	for _, m := range memstats {
		one("go_memstats_"+m.name, m.help, m.typ, m.value(&ms))
	}

	samples := make([]metrics.Sample, len(runtimeGauges))
	for i, g := range runtimeGauges {
		samples[i].Name = g.sample
	}
	metrics.Read(samples)
	for i, g := range runtimeGauges {
		if samples[i].Value.Kind() == metrics.KindUint64 {
			one(g.name, g.help, Gauge, float64(samples[i].Value.Uint64()))
		}
	}

	// The pauses: their minimum, quartiles and maximum over the last 256
	// collections (which the runtime keeps), their sum and count since the
	// start.
	st := debug.GCStats{PauseQuantiles: make([]time.Duration, 5)}
	debug.ReadGCStats(&st)
	f := Family{Name: "go_gc_duration_seconds", Help: "Stop-the-world pauses of the garbage collector, in seconds: minimum, quartiles and maximum of the last 256 collections, sum and count of all.", Type: Summary}
	for i, q := range []string{"0", "0.25", "0.5", "0.75", "1"} {
		f.Samples = append(f.Samples, Sample{Labels: []Label{{"quantile", q}}, Value: st.PauseQuantiles[i].Seconds()})
	}
	f.Samples = append(f.Samples,
		Sample{Suffix: "_sum", Value: st.PauseTotal.Seconds()},
		Sample{Suffix: "_count", Value: float64(st.NumGC)})
	add(f)
}
