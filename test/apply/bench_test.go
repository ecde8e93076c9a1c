package apply

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// fileGraph writes a graph of the directory dir and n files in it (a chain
// of edges when chain is set) to a file and returns its path. The files
// depend on the directory through automatic edges.
func fileGraph(b *testing.B, dir string, n int, chain bool) string {
	b.Helper()
	var sb strings.Builder
	fmt.Fprintf(&sb, `{"mgmt":"graph/v1","graph":"bench","seq":1,"resources":[`)
	fmt.Fprintf(&sb, `{"kind":"file","name":"%s/","params":{"state":"exists"}}`, dir)
	for i := 0; i < n; i++ {
		sb.WriteByte(',')
		fmt.Fprintf(&sb, `{"kind":"file","name":"%s/f%d","params":{"state":"exists","content":"file %d\n","mode":"0644"}}`, dir, i, i)
	}
	sb.WriteString("]")
	if chain && n > 1 {
		sb.WriteString(`,"edges":[`)
		for i := 1; i < n; i++ {
			if i > 1 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `{"from":{"kind":"file","name":"%s/f%d"},"to":{"kind":"file","name":"%s/f%d"}}`, dir, i-1, dir, i)
		}
		sb.WriteString("]")
	}
	sb.WriteString("}\n")
	path := filepath.Join(b.TempDir(), "graph.json")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

var convergedIn = regexp.MustCompile(`converged in ([0-9.]+[µmn]?s)`)

// runOnce runs mgmt-apply on graph until it has converged and exited, and
// returns the time from graph load to convergence (as the engine logs
// it), from the "converged for" line to the exit, and the peak RSS.
func runOnce(b *testing.B, graph string) (conv, exitLag time.Duration, rssKB int64) {
	b.Helper()
	in, err := os.Open(graph)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	cmd := exec.Command(testutil.Bin(b, "mgmt-apply"), "--tmp-prefix", "--converged-timeout", "0")
	cmd.Stdin = in
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	peak := samplePeak(cmd.Process.Pid)
	var fired time.Time
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		l := sc.Text()
		if m := convergedIn.FindStringSubmatch(l); m != nil {
			conv, _ = time.ParseDuration(m[1])
		}
		if strings.Contains(l, "converged for") {
			fired = time.Now()
		}
	}
	if err := cmd.Wait(); err != nil {
		b.Fatalf("mgmt-apply: %v", err)
	}
	exitLag = time.Since(fired)
	return conv, exitLag, peak()
}

// samplePeak follows the peak resident memory (VmHWM) of the running
// process pid, reading it every 2ms, and returns the function that stops
// and returns the last value read, in KiB. This is the process's own
// memory: the rusage of a child (wait4's ru_maxrss) also counts the
// parent's memory that the child shared before exec. Growth in the last
// 2ms before exit goes unseen.
func samplePeak(pid int) func() int64 {
	stop, done := make(chan struct{}), make(chan int64)
	go func() {
		var last int64
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			if kb := statusKB(pid, "VmHWM:"); kb > 0 {
				last = kb
			}
			select {
			case <-stop:
				done <- last
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		close(stop)
		return <-done
	}
}

// BenchmarkApplyFiles measures N file resources (flat or a chain of edges)
// applied from nothing and when already converged: ns/op is the whole run
// (start, read, apply, exit); converge-ms is from graph load to convergence;
// exit-ms from the converged-timeout firing to process exit.
func BenchmarkApplyFiles(b *testing.B) {
	testutil.Tools(b) // build outside the timed runs
	for _, shape := range []string{"flat", "chain"} {
		for _, n := range []int{100, 1000, 10000} {
			for _, state := range []string{"nothing", "converged"} {
				b.Run(fmt.Sprintf("%s/N=%d/%s", shape, n, state), func(b *testing.B) {
					dir := b.TempDir() + "/files"
					graph := fileGraph(b, dir, n, shape == "chain")
					if state == "converged" {
						runOnce(b, graph)
					}
					var conv, lag time.Duration
					var rss int64
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if state == "nothing" {
							b.StopTimer()
							os.RemoveAll(dir)
							b.StartTimer()
						}
						c, l, r := runOnce(b, graph)
						conv += c
						lag += l
						rss = max(rss, r)
					}
					b.ReportMetric(float64(conv.Microseconds())/1e3/float64(b.N), "converge-ms")
					b.ReportMetric(float64(lag.Microseconds())/1e3/float64(b.N), "exit-ms")
					b.ReportMetric(float64(rss)/1024, "peak-RSS-MB")
				})
			}
		}
	}
}

// startLong starts mgmt-apply on graph, without a converged timeout, and
// waits for its first convergence.
func startLong(b *testing.B, graph string) *exec.Cmd {
	b.Helper()
	in, err := os.Open(graph)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close() })
	cmd := exec.Command(testutil.Bin(b, "mgmt-apply"), "--tmp-prefix")
	cmd.Stdin = in
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if convergedIn.MatchString(sc.Text()) {
			go func() {
				for sc.Scan() {
				}
			}()
			return cmd
		}
	}
	b.Fatal("mgmt-apply ended before converging")
	return nil
}

// BenchmarkDriftRepair measures, on a converged graph of 1,000 files, the
// time from an external overwrite of a managed file to its repair, as a
// reader that reads the file again on every change of its directory sees
// it (p50-ms, p99-ms, max-ms), and the CPU time the engine used per repair
// (cpu-ms/repair: the second check its own rename causes included). The
// floor is what the kernel alone needs for the same atomic write, timed
// in the same directory: create, write, chmod, close, rename (floor-p50-ms,
// and p50-per-floor, the median over it), so that the engine's share shows
// on a loaded machine too.
//
// With MGMT_BENCH_UPSTREAM set to the command that runs upstream mgmt on a
// graph.yaml, "{}" standing for its path (for one, "mgmt run --tmp-prefix
// yaml --yaml {}"), the same repairs are timed for it too (upstream), on
// the same files, so the two show side by side.
func BenchmarkDriftRepair(b *testing.B) {
	b.Run("mgmt-apply", func(b *testing.B) {
		dir := b.TempDir() + "/files"
		driftRepairs(b, dir, startLong(b, fileGraph(b, dir, 1000, false)))
	})
	if cmdline := os.Getenv("MGMT_BENCH_UPSTREAM"); cmdline != "" {
		b.Run("upstream", func(b *testing.B) {
			dir := b.TempDir() + "/files"
			driftRepairs(b, dir, startUpstream(b, cmdline, dir, 1000))
		})
	}
}

// driftRepairs times b.N times 20 overwrites of the files of dir that the
// engine cmd runs, each until the file is right again.
func driftRepairs(b *testing.B, dir string, cmd *exec.Cmd) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	var ticks int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0c := cpuTicks(b, cmd.Process.Pid)
		for j := 0; j < 20; j++ {
			k := (i*20 + j*37) % 1000
			path := fmt.Sprintf("%s/f%d", dir, k)
			want := fmt.Sprintf("file %d\n", k)
			t0 := time.Now()
			if err := os.WriteFile(path, []byte("drift\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			waitContent(b, w, path, want)
			lat = append(lat, time.Since(t0))
		}
		ticks += cpuTicks(b, cmd.Process.Pid) - t0c
	}
	b.StopTimer()
	sortDurations(lat)
	floor := atomicWriteFloor(b, dir, len(lat))
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[(len(lat)*99)/100]), "p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
	b.ReportMetric(float64(ticks)*10/float64(len(lat)), "cpu-ms/repair")
	b.ReportMetric(ms(floor), "floor-p50-ms")
	b.ReportMetric(float64(lat[len(lat)/2])/float64(floor), "p50-per-floor")
}

// startUpstream writes the graph of fileGraph as upstream's graph.yaml,
// starts the command line (with "{}" replaced by the graph's path) on it,
// and waits until every file is right.
func startUpstream(b *testing.B, cmdline, dir string, n int) *exec.Cmd {
	b.Helper()
	var sb strings.Builder
	fmt.Fprintf(&sb, "graph: bench\nresources:\n  file:\n  - name: dir\n    path: %q\n    state: exists\n", dir+"/")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "  - name: f%d\n    path: %q\n    state: exists\n    content: %q\n    mode: \"0644\"\n", i, fmt.Sprintf("%s/f%d", dir, i), fmt.Sprintf("file %d\n", i))
	}
	sb.WriteString("edges: []\n")
	graph := filepath.Join(b.TempDir(), "graph.yaml")
	if err := os.WriteFile(graph, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	args := strings.Fields(strings.ReplaceAll(cmdline, "{}", graph))
	cmd := exec.Command(args[0], args[1:]...)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	if err := os.MkdirAll(dir, 0o755); err != nil { // to watch it from the start
		b.Fatal(err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		b.Fatal(err)
	}
	deadline := time.After(time.Minute)
	for next := 0; next < n; {
		if c, err := os.ReadFile(fmt.Sprintf("%s/f%d", dir, next)); err == nil && string(c) == fmt.Sprintf("file %d\n", next) {
			next++
			continue
		}
		select {
		case <-w.Events:
		case err := <-w.Errors:
			b.Fatal(err)
		case <-deadline:
			b.Fatalf("upstream did not converge in a minute (file f%d)", next)
		}
	}
	return cmd
}

// atomicWriteFloor returns the median time of n atomic replacements of
// files of dir done directly: a new file created, written, given its
// mode, closed and renamed over the old one.
func atomicWriteFloor(b *testing.B, dir string, n int) time.Duration {
	b.Helper()
	var lat []time.Duration
	for i := 0; i < n; i++ {
		tmp, path := fmt.Sprintf("%s/.floor%d", dir, i), fmt.Sprintf("%s/floor%d", dir, i%20)
		t0 := time.Now()
		fd, err := syscall.Open(tmp, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o600)
		if err != nil {
			b.Fatal(err)
		}
		_, werr := syscall.Write(fd, []byte("file 1\n"))
		cerr := syscall.Fchmod(fd, 0o644)
		if err := errors.Join(werr, cerr, syscall.Close(fd), syscall.Rename(tmp, path)); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	sortDurations(lat)
	return lat[len(lat)/2]
}

func sortDurations(d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

func waitContent(b *testing.B, w *fsnotify.Watcher, path, want string) {
	deadline := time.After(10 * time.Second)
	for {
		if c, err := os.ReadFile(path); err == nil && string(c) == want {
			return
		}
		select {
		case <-w.Events:
		case err := <-w.Errors:
			b.Fatal(err)
		case <-deadline:
			b.Fatalf("%s not repaired", path)
		}
	}
}

// BenchmarkIdle measures, on a converged graph of 1,000 files, the CPU used
// while nothing happens, the inotify instances and descriptors held, and the
// resident memory.
func BenchmarkIdle(b *testing.B) {
	dir := b.TempDir() + "/files"
	graph := fileGraph(b, dir, 1000, false)
	cmd := startLong(b, graph)
	pid := cmd.Process.Pid
	window := 2 * time.Second
	b.ResetTimer()
	var cpu float64
	for i := 0; i < b.N; i++ {
		t0 := cpuTicks(b, pid)
		time.Sleep(window) // the measurement window
		cpu += float64(cpuTicks(b, pid)-t0) / 100 / window.Seconds() * 100
	}
	b.StopTimer()
	fds, inotify := fdCounts(pid)
	b.ReportMetric(cpu/float64(b.N), "idle-CPU-%")
	b.ReportMetric(float64(inotify), "inotify-instances")
	b.ReportMetric(float64(fds), "fds")
	b.ReportMetric(float64(statusKB(pid, "VmHWM:"))/1024, "peak-RSS-MB")
}

// cpuTicks returns utime+stime of pid in clock ticks (1/100 s).
func cpuTicks(b *testing.B, pid int) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return u + st
}

func fdCounts(pid int) (fds, inotify int) {
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, e := range ents {
		fds++
		if l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name())); l == "anon_inode:inotify" {
			inotify++
		}
	}
	return fds, inotify
}

func statusKB(pid int, key string) int64 {
	raw, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(l, key) {
			n, _ := strconv.ParseInt(strings.Fields(l)[1], 10, 64)
			return n
		}
	}
	return 0
}
