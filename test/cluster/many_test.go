package cluster

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/mgmtpipe/mgmt/pkg/world"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// A manyWorld is a 3-member cluster (mgmt-cluster run, each member a
// process of its own) and n hosts on this machine, each host an agent
// `mcl-compile --seeds ... --hostname hI | mgmt-apply --seeds ...
// --hostname hI` with a state directory (--prefix) and a root directory of
// its own. Host hI exports one file to every other host hJ, at
// rootJ/from-hI, whose content is hI's version file; and collects the
// n-1 files addressed to it. So n(n-1) files in all.
type manyWorld struct {
	t       testing.TB
	n       int
	dir     string
	members []*host
	seeds   string
	conv    int // --converged-timeout of every mgmt-apply, in seconds
	gogc    string
	agents  []*agent
	obs     *world.Client // the test's own client, to read etcd's status
	metrics []string      // the members' Prometheus endpoints
}

// The memory a host's tools and a member need, with some margin: the
// figures measured with 100 hosts are about 34 MiB for mcl-compile and
// 50 MiB for mgmt-apply with its world process (GOGC 50), some 35 MiB of
// which are pages of the programs' files, counted in each process but
// shared by all, and under 400 MiB for a member.
const (
	agentMiB  = 80
	memberMiB = 500
)

// memAvailableMiB returns the memory available for new processes.
func memAvailableMiB() (int64, error) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("no MemAvailable in /proc/meminfo")
}

// An agent is one host of a manyWorld.
type agent struct {
	w       *manyWorld
	name    string
	root    string // where the files addressed to it are collected
	prefix  string // state directory of both tools
	version string // the file whose content the host exports
	gen     int    // the version the file holds
	compile *testutil.Proc
	apply   *testutil.Proc
}

// manyHosts returns the number of hosts from MGMT_MANY_HOSTS, or def.
func manyHosts(t testing.TB, def int) int {
	t.Helper()
	return rounds(t, "MGMT_MANY_HOSTS", def)
}

// newManyWorld starts the three members and prepares n agents, without
// starting them. Every member, agent and the directory go away with the
// test.
func newManyWorld(t testing.TB, n int) *manyWorld {
	t.Helper()
	need := int64(n)*agentMiB + 3*memberMiB
	avail, err := memAvailableMiB()
	if err != nil {
		t.Fatal(err)
	}
	testutil.Need(t, avail >= need, fmt.Sprintf("%d MiB of available memory for %d hosts and 3 members (%d MiB available)", need, n, avail))
	// Each tool of a host holds an inotify instance; a watch that cannot
	// start is polled, and its host is then never converged for long.
	inst, err := os.ReadFile("/proc/sys/fs/inotify/max_user_instances")
	if err != nil {
		t.Fatal(err)
	}
	limit, _ := strconv.Atoi(strings.TrimSpace(string(inst)))
	testutil.Need(t, limit >= 2*n+128, fmt.Sprintf("fs.inotify.max_user_instances of at least %d for %d hosts (it is %d; .ci/setup.d/45-inotify-instances.sh raises it)", 2*n+128, n, limit))
	w := &manyWorld{t: t, n: n, dir: t.TempDir(), conv: 20, gogc: os.Getenv("MGMT_MANY_GOGC")}
	if w.gogc == "" {
		w.gogc = "50"
	}
	if n < 20 {
		w.conv = 10
	}
	var urls []string
	for i := 1; i <= 3; i++ {
		at := fmt.Sprintf("127.0.0.1:%d", testutil.FreePort(t))
		m := newHost(t, fmt.Sprintf("m%d", i), "http", "--ideal-cluster-size", "3", "--prometheus", "--prometheus-listen", at)
		w.metrics = append(w.metrics, "http://"+at+"/metrics")
		if i == 1 {
			m.start()
		} else {
			m.start(w.members[0].client)
		}
		m.waitLog("running as member "+m.name, joinTimeout)
		w.members = append(w.members, m)
		urls = append(urls, m.client)
	}
	w.seeds = strings.Join(urls, ",")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	obs, err := world.Connect(ctx, world.Config{Endpoints: urls, Hostname: "observer"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { obs.Close() })
	w.obs = obs
	for i := 1; i <= n; i++ {
		a := &agent{w: w, name: fmt.Sprintf("h%d", i)}
		a.root, a.prefix = filepath.Join(w.dir, a.name, "root"), filepath.Join(w.dir, a.name, "state")
		a.version = filepath.Join(w.dir, a.name, "version")
		for _, d := range []string{a.root, a.prefix} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		w.agents = append(w.agents, a)
	}
	for _, a := range w.agents {
		a.writeVersion()
		if err := os.WriteFile(a.program(), []byte(a.source()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (a *agent) program() string { return filepath.Join(a.w.dir, a.name, "main.mcl") }

// source is the agent's mcl program.
func (a *agent) source() string {
	var b strings.Builder
	fmt.Fprintf(&b, "import \"os\"\n$v = os.readfile(%q)\n", a.version)
	for _, o := range a.w.agents {
		if o != a {
			fmt.Fprintf(&b, "file %q { content => $v, state => \"exists\", Meta:export => [%q], Meta:hidden => true, }\n", o.file(a), o.name)
		}
	}
	b.WriteString("collect file [")
	for _, o := range a.w.agents {
		if o != a {
			fmt.Fprintf(&b, "%q, ", a.file(o))
		}
	}
	b.WriteString("] {}\n")
	return b.String()
}

// file is the path of the file from exports to a.
func (a *agent) file(from *agent) string { return filepath.Join(a.root, "from-"+from.name) }

// content is what a's exported files hold at its current version.
func (a *agent) content() string { return fmt.Sprintf("%s %d\n", a.name, a.gen) }

// writeVersion writes a's version file at once (renamed into place).
func (a *agent) writeVersion() {
	tmp := a.version + ".tmp"
	if err := os.WriteFile(tmp, []byte(a.content()), 0o644); err != nil {
		a.w.t.Fatal(err)
	}
	if err := os.Rename(tmp, a.version); err != nil {
		a.w.t.Fatal(err)
	}
}

// start runs the agent's two tools, the compiler's output piped into
// mgmt-apply, with GOGC set for both.
func (a *agent) start() {
	t := a.w.t
	r, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer wr.Close()
	env := append(os.Environ(), "GOGC="+a.w.gogc)
	common := []string{"--seeds", a.w.seeds, "--hostname", a.name, "--prefix", a.prefix}
	a.compile = testutil.StartWith(t, func(c *exec.Cmd) { c.Stdout, c.Env = wr, env }, "mcl-compile", append(common, a.program())...)
	a.apply = testutil.StartWith(t, func(c *exec.Cmd) { c.Stdin, c.Env = r, env }, "mgmt-apply",
		append(common, "--converged-timeout", strconv.Itoa(a.w.conv))...)
}

// kill ends both tools of the agent at once (SIGKILL), as a crash would.
func (a *agent) kill() {
	a.compile.Signal(syscall.SIGKILL)
	a.apply.Signal(syscall.SIGKILL)
	a.compile.Wait()
	a.apply.Wait()
}

// startAll starts every agent and returns when the last one started.
func (w *manyWorld) startAll() {
	for _, a := range w.agents {
		a.start()
	}
}

// checkRunning fails the test if a tool of an agent has exited.
func (w *manyWorld) checkRunning() {
	w.t.Helper()
	for _, a := range w.agents {
		for _, p := range []*testutil.Proc{a.compile, a.apply} {
			if p.Exited() {
				w.t.Fatalf("a tool of %s exited (code %d):\n%s", a.name, p.Wait(), tail(p.Log(), 40))
			}
		}
	}
}

// missing returns the files not in place with their current content, as
// "path (have ...)" for the first few, and how many there are.
func (w *manyWorld) missing() (int, []string) {
	n := 0
	var some []string
	for _, a := range w.agents {
		for _, o := range w.agents {
			if o == a {
				continue
			}
			b, err := os.ReadFile(a.file(o))
			if err == nil && string(b) == o.content() {
				continue
			}
			n++
			if len(some) < 5 {
				some = append(some, fmt.Sprintf("%s (have %q, %v)", a.file(o), b, err))
			}
		}
	}
	return n, some
}

// waitFiles waits until every file is in place with its exporter's
// current content, failing after timeout or when a tool exits, and
// returns how long it took.
func (w *manyWorld) waitFiles(what string, timeout time.Duration) time.Duration {
	w.t.Helper()
	t0 := time.Now()
	for {
		n, some := w.missing()
		if n == 0 {
			return time.Since(t0)
		}
		w.checkRunning()
		if time.Since(t0) > timeout {
			w.t.Fatalf("%s: %d of %d files still missing or stale after %v, such as:\n%s\n%s",
				what, n, w.n*(w.n-1), timeout, strings.Join(some, "\n"), w.diagnose())
		}
		time.Sleep(250 * time.Millisecond) // pacing of the checks of the files
	}
}

// diagnose returns the last lines of the compiler and mgmt-apply of the
// first agent that misses a file.
func (w *manyWorld) diagnose() string {
	for _, a := range w.agents {
		for _, o := range w.agents {
			if b, err := os.ReadFile(a.file(o)); o != a && (err != nil || string(b) != o.content()) {
				return fmt.Sprintf("%s's mcl-compile:\n%s\n%s's mgmt-apply:\n%s", a.name, tail(a.compile.Log(), 20), a.name, tail(a.apply.Log(), 20))
			}
		}
	}
	return ""
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	l := strings.Split(s, "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// change writes a new version on a and returns, for each other host, how
// long the new content took to reach its file.
func (w *manyWorld) change(a *agent, timeout time.Duration) []time.Duration {
	w.t.Helper()
	a.gen++
	t0 := time.Now()
	a.writeVersion()
	want := a.content()
	var lat []time.Duration
	pending := slices.DeleteFunc(slices.Clone(w.agents), func(o *agent) bool { return o == a })
	for len(pending) > 0 {
		pending = slices.DeleteFunc(pending, func(o *agent) bool {
			b, err := os.ReadFile(o.file(a))
			if err == nil && string(b) == want {
				lat = append(lat, time.Since(t0))
				return true
			}
			return false
		})
		if len(pending) == 0 {
			break
		}
		if time.Since(t0) > timeout {
			w.checkRunning()
			w.t.Fatalf("%s's version %d reached %d of %d hosts within %v; not %s:\n%s", a.name, a.gen,
				w.n-1-len(pending), w.n-1, timeout, pending[0].name, w.diagnose())
		}
		time.Sleep(10 * time.Millisecond) // pacing of the checks; the resolution of the figures
	}
	return lat
}

// status returns the revision of the world and the size of the database
// of the first member that answers.
func (w *manyWorld) status() (rev, dbSize int64) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var err error
	for _, m := range w.members {
		st, e := w.obs.Etcd().Status(ctx, m.client)
		if e == nil {
			return st.Header.Revision, st.DbSize
		}
		err = e
	}
	w.t.Fatalf("no member answers the status request: %v", err)
	return 0, 0
}

// ranges returns the range requests (reads) the members served since
// they started, from etcd's etcd_mvcc_range_total; a member that does not
// answer counts none.
func (w *manyWorld) ranges() int64 {
	var n int64
	for _, u := range w.metrics {
		resp, err := http.Get(u)
		if err != nil {
			continue
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "etcd_mvcc_range_total "); ok {
				f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
				n += int64(f)
			}
		}
	}
	return n
}

// exportCount returns how many exported resources the world holds.
func (w *manyWorld) exportCount() int64 {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := w.obs.Etcd().Get(ctx, w.obs.Namespace()+"/exports/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		w.t.Fatalf("counting the exports: %v", err)
	}
	return r.Count
}

// dump returns the keys under the world key k (relative to the
// namespace) with their values, one a line.
func (w *manyWorld) dump(k string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := w.obs.Etcd().Get(ctx, w.obs.Namespace()+"/"+k, clientv3.WithPrefix())
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, kv := range r.Kvs {
		fmt.Fprintf(&b, "%s = %s (lease %x)\n", kv.Key, kv.Value, kv.Lease)
	}
	return b.String()
}

// rss returns the median and largest resident memory, in MiB, of the
// tool of each agent that pick selects (with its world-client child:
// mgmt-apply's world is held by one).
func (w *manyWorld) rss(pick func(*agent) *testutil.Proc) (median, largest float64) {
	w.t.Helper()
	var v []int
	for _, a := range w.agents {
		pid := pick(a).Pid()
		kb, err := vmRSS(pid)
		if err != nil {
			w.t.Fatal(err)
		}
		if child := worldChild(pid); child != 0 {
			ckb, err := vmRSS(child)
			if err != nil {
				w.t.Fatal(err)
			}
			kb += ckb
		}
		v = append(v, kb)
	}
	slices.Sort(v)
	return float64(v[(len(v)-1)/2]) / 1024, float64(v[len(v)-1]) / 1024
}

// waitConvergedExit waits until every agent's mgmt-apply exited on its
// own (--converged-timeout) with code 0, then stops the compilers, and
// returns how long the exits took.
func (w *manyWorld) waitConvergedExit(timeout time.Duration) time.Duration {
	w.t.Helper()
	t0 := time.Now()
	for {
		left := 0
		for _, a := range w.agents {
			if !a.apply.Exited() {
				left++
			}
		}
		if left == 0 {
			break
		}
		if time.Since(t0) > timeout {
			w.t.Fatalf("%d of %d agents still running %v after everything converged; the world's converged states:\n%s",
				left, w.n, timeout, w.dump("converged/"))
		}
		time.Sleep(100 * time.Millisecond) // pacing of the checks
	}
	took := time.Since(t0)
	for _, a := range w.agents {
		if code := a.apply.Wait(); code != 0 {
			w.t.Fatalf("%s's mgmt-apply exited %d, want 0 (converged):\n%s", a.name, code, tail(a.apply.Log(), 30))
		}
		a.compile.Signal(syscall.SIGTERM)
	}
	for _, a := range w.agents {
		a.compile.Wait()
	}
	return took
}

// percentile returns the p-th percentile of d (sorted in place).
func percentile(d []time.Duration, p int) time.Duration {
	slices.Sort(d)
	return d[min(len(d)-1, len(d)*p/100)]
}
