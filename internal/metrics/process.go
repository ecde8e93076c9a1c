package metrics

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// processNames are the process_* families, the names and meanings of
// Prometheus's Go client.
var processNames = []string{
	"process_cpu_seconds_total", "process_max_fds", "process_open_fds",
	"process_resident_memory_bytes", "process_start_time_seconds",
	"process_virtual_memory_bytes", "process_virtual_memory_max_bytes",
	"process_network_receive_bytes_total", "process_network_transmit_bytes_total",
}

// RegisterProcess registers the process's families (process_*), read
// from /proc/self and the process's resource limits at each scrape: CPU
// time, open and maximum file descriptors, resident and virtual memory,
// start time, and the bytes received and sent over the network
// namespace's interfaces. A family that cannot be read (no /proc) is
// left out.
func (r *Registry) RegisterProcess() {
	r.Register(&processCollector{}, processNames...)
}

type processCollector struct {
	once  sync.Once
	start float64 // seconds since 1970, 0 when unknown
}

// ticks is the unit of the times of /proc/PID/stat (USER_HZ), 1/100 s on
// every Linux architecture.
const ticks = 100

func (c *processCollector) Collect(add func(Family)) {
	one := func(name, help string, t Type, v float64) {
		add(Family{Name: name, Help: help, Type: t, Samples: []Sample{{Value: v}}})
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		one("process_cpu_seconds_total", "User and system CPU time of the process, in seconds.", Counter, cpu.Seconds())
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		one("process_max_fds", "The limit of open file descriptors (the soft RLIMIT_NOFILE).", Gauge, float64(lim.Cur))
	}
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		one("process_open_fds", "Open file descriptors.", Gauge, float64(len(fds)))
	}
	if st := readStat(); st != nil {
		one("process_resident_memory_bytes", "Resident memory of the process, in bytes.", Gauge, float64(st.rss*int64(os.Getpagesize())))
		one("process_virtual_memory_bytes", "Virtual memory of the process, in bytes.", Gauge, float64(st.vsize))
		c.once.Do(func() {
			if boot := bootTime(); boot > 0 {
				c.start = boot + float64(st.start)/ticks
			}
		})
		if c.start > 0 {
			one("process_start_time_seconds", "Start time of the process, in seconds since 1970.", Gauge, c.start)
		}
	}
	if syscall.Getrlimit(syscall.RLIMIT_AS, &lim) == nil {
		one("process_virtual_memory_max_bytes", "The limit of virtual memory (the soft RLIMIT_AS), in bytes.", Gauge, float64(lim.Cur))
	}
	if rx, tx, ok := netBytes(); ok {
		one("process_network_receive_bytes_total", "Bytes received over the interfaces of the process's network namespace.", Counter, rx)
		one("process_network_transmit_bytes_total", "Bytes sent over the interfaces of the process's network namespace.", Counter, tx)
	}
}

// stat is what process_* reads of /proc/self/stat.
type stat struct {
	start, vsize, rss int64 // ticks since boot, bytes, pages
}

// readStat reads /proc/self/stat, or returns nil.
func readStat() *stat {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return nil
	}
	// The command's name, in parentheses, may hold spaces and
	// parentheses: the fields after it start after the last ')'. They are
	// fields 3 on of proc(5): starttime is 22, vsize 23, rss 24.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 22 {
		return nil
	}
	var st stat
	for _, x := range []struct {
		field int
		to    *int64
	}{{22, &st.start}, {23, &st.vsize}, {24, &st.rss}} {
		v, err := strconv.ParseInt(f[x.field-3], 10, 64)
		if err != nil {
			return nil
		}
		*x.to = v
	}
	return &st
}

// bootTime returns the boot time of /proc/stat, in seconds since 1970,
// or 0.
func bootTime() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "btime "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err == nil {
				return float64(n)
			}
		}
	}
	return 0
}

// netBytes sums the bytes received and sent by every interface of
// /proc/self/net/dev.
func netBytes() (rx, tx float64, ok bool) {
	b, err := os.ReadFile("/proc/self/net/dev")
	if err != nil {
		return 0, 0, false
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 2 {
		return 0, 0, false
	}
	// Two lines of headers, then "name: rx_bytes rx_packets ... (8
	// receive fields) tx_bytes ...".
	for _, l := range lines[2:] {
		_, counts, found := strings.Cut(l, ":")
		f := strings.Fields(counts)
		if !found || len(f) < 9 {
			continue
		}
		r, err1 := strconv.ParseUint(f[0], 10, 64)
		t, err2 := strconv.ParseUint(f[8], 10, 64)
		if err1 != nil || err2 != nil {
			return 0, 0, false
		}
		rx += float64(r)
		tx += float64(t)
	}
	return rx, tx, true
}
