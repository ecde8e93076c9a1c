package mgmtapply

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
)

// The collector's policy. A long-running agent's heap is mostly its
// graph (about 1 KiB per file resource, alive for as long as the graph
// runs), so mgmt-apply lets the heap grow past what is live by less than
// Go's 100% once the graph is large. The first collection comes at a heap
// of 10 MiB (gcFirstPercent); from then on, while less than gcTinyHeap is
// live, the heap grows by Go's 100% (a heap of at least 4 MiB, as Go's
// minimum, where half of it, whose minimum is 2 MiB, made a warm run of
// 1,000 files collect four times, about 3 ms of CPU of a 25 ms run for at
// most a MiB or two more); up to
// gcSmallHeap, by half of it (gcSmallPercent), where a few MiB more cost
// little and more collections would slow a small graph's whole run;
// beyond, by gcPercent of it, by gcLargePercent from gcLargeHeap live on
// (fewer collections while a large graph loads, where 30% of the live heap
// is little beside its size), at most gcHeadroom and never less than
// gcMinPercent of it. A graph of 10,000
// files, about 10 MiB live, peaks at 1.3 times that instead of 1.5, and
// one of 100,000, about 110 MiB live, at 32 MiB above it. The collector
// then runs more often while the graph is loaded and first applied, and
// no more often than before once it runs: a running graph allocates
// little. GOGC in the environment replaces the whole policy; GOMEMLIMIT
// adds its limit to it, as for any Go program.
const (
	// gcFirstPercent is the GOGC until the first collection: Go's
	// smallest heap, 4 MiB at GOGC 100, is then 10 MiB. A graph of
	// 10,000 files grows to about 10 MiB live while it is read and built,
	// with little garbage: the collections that came at 4, 5 and 8 MiB
	// found most of the heap live, and cost 5 to 10% of the CPU of a
	// warm run, for no lower peak (the heap peaks at about 11 MiB
	// either way, once the document is let go of). A graph of 1,000
	// files, about 2 MiB live, needs no collection at all. From the first
	// collection on, the policy below follows the live heap.
	gcFirstPercent = 250
	gcTinyHeap     = 4 << 20
	gcTinyPercent  = 100
	gcSmallHeap    = 8 << 20
	gcSmallPercent = 50
	gcPercent      = 30
	gcLargeHeap    = 32 << 20
	gcLargePercent = 50
	gcHeadroom     = 32 << 20
	gcMinPercent   = 25
)

// gcPercentFor returns the GOGC that the policy gives a live heap of live
// bytes.
func gcPercentFor(live uint64) int {
	if live < gcTinyHeap {
		return gcTinyPercent
	}
	if live < gcSmallHeap {
		return gcSmallPercent
	}
	p := gcPercent
	if live >= gcLargeHeap {
		p = gcLargePercent
	}
	if live*uint64(p)/100 > gcHeadroom {
		p = int(gcHeadroom * 100 / live)
	}
	return max(p, gcMinPercent)
}

var gcPolicy sync.Once

// tuneGC applies the collector's policy unless GOGC is set. The policy
// holds for the rest of the process.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	gcPolicy.Do(func() {
		debug.SetGCPercent(gcFirstPercent)
		watchGC(gcFirstPercent)
	})
}

// A gcMark is allocated for each collection cycle: the cleanup that runs
// once a cycle has freed it sets the GOGC for the live heap that cycle
// found, and allocates the next one. It holds a pointer so that it is not
// one of the tiny objects the runtime packs together, whose cleanups may
// never run.
type gcMark struct{ _ *byte }

// watchGC arranges for the GOGC to follow the live heap from the next
// collection on; cur is the GOGC in force.
func watchGC(cur int) {
	runtime.AddCleanup(new(gcMark), func(cur int) {
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(s)
		p := cur
		if s[0].Value.Kind() == metrics.KindUint64 {
			p = gcPercentFor(s[0].Value.Uint64())
		}
		if p != cur {
			debug.SetGCPercent(p)
		}
		watchGC(p)
	}, cur)
}

// tuneProfiling stops the sampling of allocations for heap profiles
// unless the profiling endpoints are served (pprof, the --pprof address)
// or GODEBUG sets memprofilerate: each allocation sampled (one every 512
// KiB by default) is recorded under its stack in the runtime's table of
// stacks, a table of 1.4 MiB whose pages the samples touch at random, and
// a run that serves no profile never reads them. Heap profiles served by
// --pprof sample as usual.
func tuneProfiling(pprof string) {
	if pprof != "" || strings.Contains(os.Getenv("GODEBUG"), "memprofilerate") {
		return
	}
	runtime.MemProfileRate = 0
}
