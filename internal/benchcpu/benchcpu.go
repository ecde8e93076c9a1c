// Package benchcpu measures the CPU time benchmarks spend, which on a
// machine shared with other jobs varies less than their wall time.
package benchcpu

import (
	"syscall"
	"testing"
	"time"
)

// Time returns the CPU time (user and system, the collector's included)
// the process used so far, or 0 when it cannot be read.
func Time() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Report adds the CPU time per operation since start (a Time) to b's
// results, as cpu-ms/op.
func Report(b *testing.B, start time.Duration) {
	b.ReportMetric(float64((Time()-start).Microseconds())/1e3/float64(b.N), "cpu-ms/op")
}
