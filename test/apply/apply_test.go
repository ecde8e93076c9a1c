package apply

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

func TestApplyFromNothing(t *testing.T) {
	d := t.TempDir()
	g := gdoc(1, []res{
		file(d+"/a/", nil),
		file(d+"/a/b/", nil),
		file(d+"/a/b/c.txt", P{"content": "hello\n", "mode": "0640"}),
		ex("greet", "echo hi from exec", nil),
		file(d+"/out.txt", nil),
	}, edge{From: ref{"exec", "greet"}, To: ref{"file", d + "/out.txt"}, Send: "output", Recv: "content"})
	r := testutil.Run(t, g, "mgmt-apply", "--tmp-prefix", "--converged-timeout", "0.2")
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	if got := readFile(t, d+"/a/b/c.txt"); got != "hello\n" {
		t.Errorf("c.txt = %q", got)
	}
	if fi, err := os.Stat(d + "/a/b/c.txt"); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("c.txt mode %v %v", fi.Mode(), err)
	}
	if got := readFile(t, d+"/out.txt"); got != "hi from exec\n" {
		t.Errorf("out.txt (send/recv from exec) = %q", got)
	}
	for _, want := range []string{"5 added, 0 removed", "file[" + d + "/a/b/c.txt]: changed", "converged for"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
		}
	}
	// Run again: already converged, nothing changes.
	r = testutil.Run(t, g, "mgmt-apply", "--tmp-prefix", "--converged-timeout", "0")
	if r.Code != 0 || strings.Contains(r.Stderr, "file["+d) {
		t.Errorf("second run changed files (exit %d):\n%s", r.Code, r.Stderr)
	}
}

func TestDriftRepaired(t *testing.T) {
	d := t.TempDir()
	path := d + "/f.txt"
	p := startApply(t, "--tmp-prefix")
	p.Write(gdoc(1, []res{file(path, P{"content": "managed\n", "mode": "0644"})}))
	changed := `file\[` + regexp.QuoteMeta(path) + `\]: changed`
	p.WaitLines(changed, 1)

	os.WriteFile(path, []byte("edited\n"), 0o644)
	p.WaitLines(changed, 2)
	if got := readFile(t, path); got != "managed\n" {
		t.Fatalf("after edit: %q", got)
	}
	os.Remove(path)
	p.WaitLines(changed, 3)
	if got := readFile(t, path); got != "managed\n" {
		t.Fatalf("after delete: %q", got)
	}
	os.Chmod(path, 0o600)
	p.WaitLines(changed, 4)
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Fatalf("after chmod: %v", fi.Mode())
	}
	p.Terminate()
	leftovers, _ := filepath.Glob(d + "/.*")
	if len(leftovers) != 0 {
		t.Fatalf("temporary files left behind: %v", leftovers)
	}
}

func TestNoopChangesNothing(t *testing.T) {
	d := t.TempDir()
	g := gdoc(1, []res{file(d+"/x/", nil), file(d+"/x/y", P{"content": "y"}), ex("e", "touch "+d+"/touched", nil)})
	r := testutil.Run(t, g, "mgmt-apply", "--tmp-prefix", "--noop", "--converged-timeout", "0.1")
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	ents, _ := os.ReadDir(d)
	if len(ents) != 0 {
		t.Fatalf("noop created %v", ents)
	}
	for _, want := range []string{"file[" + d + "/x/]: would change", "exec[e]: would change"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
		}
	}
}

func TestSwapKeepsUnchanged(t *testing.T) {
	d := t.TempDir()
	counter := d + "/count"
	keep := ex("keep", "echo run >> "+counter, nil)
	p := startApply(t, "--tmp-prefix")
	p.Write(gdoc(1, []res{keep, file(d+"/old", P{"content": "1"}), file(d+"/same", P{"content": "s"})}))
	p.WaitLines(`graph seq 1 converged in`, 1)
	p.Write(gdoc(2, []res{keep, file(d+"/new", P{"content": "2"}), file(d+"/same", P{"content": "s2"})}))
	p.WaitLines(`graph seq 2 converged in`, 1)
	p.Terminate()
	if got := readFile(t, counter); got != "run\n" {
		t.Errorf("the unchanged exec ran again: %q", got)
	}
	if got := readFile(t, d+"/same"); got != "s2" {
		t.Errorf("changed file: %q", got)
	}
	if got := readFile(t, d+"/new"); got != "2" {
		t.Errorf("added file: %q", got)
	}
	if !strings.Contains(p.Log(), "1 added, 1 removed, 1 changed, 1 unchanged") {
		t.Errorf("swap line missing:\n%s", p.Log())
	}
}

func TestNotifyRefresh(t *testing.T) {
	d := t.TempDir()
	log := d + "/log"
	g := gdoc(1, []res{
		file(d+"/conf", P{"content": "v1"}),
		ex("reload", "echo reload >> "+log, nil),
		ex("other", "echo other >> "+log, nil),
	}, edge{From: ref{"file", d + "/conf"}, To: ref{"exec", "reload"}, Notify: true},
		e("file", d+"/conf", "exec", "other"))
	p := startApply(t, "--tmp-prefix")
	p.Write(g)
	p.WaitLines(`exec\[reload\]: changed`, 1)
	p.WaitLines(`exec\[other\]: changed`, 1)
	// Drift: the repair of conf notifies reload (which runs again) and
	// pokes other (which has nothing to do).
	os.WriteFile(d+"/conf", []byte("drift"), 0o644)
	p.WaitLines(`exec\[reload\]: changed`, 2)
	p.Signal(syscall.SIGTERM)
	p.Wait()
	lines := strings.Fields(readFile(t, log))
	n := map[string]int{}
	for _, l := range lines {
		n[l]++
	}
	if n["reload"] != 2 || n["other"] != 1 {
		t.Fatalf("runs %v, want reload twice and other once", n)
	}
}

func TestRetryDelay(t *testing.T) {
	d := t.TempDir()
	n := d + "/n"
	// fails until it has run three times
	cmd := fmt.Sprintf("echo x >> %s; [ $(wc -l < %s) -ge 3 ]", n, n)
	g := gdoc(1, []res{{Kind: "exec", Name: "flaky", Params: P{"cmd": cmd, "shell": "/bin/sh"}, Meta: P{"retry": 3, "delay": 100}}})
	t0 := time.Now()
	r := testutil.Run(t, g, "mgmt-apply", "--tmp-prefix", "--converged-timeout", "0")
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	if got := readFile(t, n); got != "x\nx\nx\n" {
		t.Fatalf("ran %q", got)
	}
	if el := time.Since(t0); el < 200*time.Millisecond {
		t.Fatalf("two retries with 100ms delay took %s", el)
	}
	// Without retries the failure is reported and the exit code is 1.
	os.Remove(n)
	g = gdoc(1, []res{ex("flaky", cmd, nil)})
	r = testutil.Run(t, g, "mgmt-apply", "--tmp-prefix", "--converged-timeout", "0")
	if r.Code != 1 || !strings.Contains(r.Stderr, "exec[flaky]: error") {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
}

func TestSemaphore(t *testing.T) {
	d := t.TempDir()
	os.Mkdir(d+"/run", 0o755)
	var rs []res
	for i := 0; i < 5; i++ {
		cmd := fmt.Sprintf("touch %[1]s/run/%[2]d; ls %[1]s/run | wc -l >> %[1]s/seen; sleep 0.1; rm %[1]s/run/%[2]d", d, i)
		rs = append(rs, res{Kind: "exec", Name: fmt.Sprint("e", i), Params: P{"cmd": cmd, "shell": "/bin/sh"}, Meta: P{"sema": []string{"pool:2"}}})
	}
	r := testutil.Run(t, gdoc(1, rs), "mgmt-apply", "--tmp-prefix", "--converged-timeout", "0")
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	seen := strings.Fields(readFile(t, d+"/seen"))
	if len(seen) != 5 {
		t.Fatalf("seen %v", seen)
	}
	for _, s := range seen {
		if s != "1" && s != "2" {
			t.Fatalf("%s CheckApply calls ran at once with sema pool:2 (%v)", s, seen)
		}
	}
}

func TestConvergedTimeoutExit(t *testing.T) {
	d := t.TempDir()
	p := startApply(t, "--tmp-prefix", "--converged-timeout", "0.3")
	p.Write(gdoc(1, []res{file(d+"/f", P{"content": "x"})}))
	p.WaitLines(`converged for`, 1)
	fired := time.Now()
	if code := p.Wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	// The process exits right after the line; allow for a loaded machine.
	if lag := p.Ended().Sub(fired); lag > 2*time.Second {
		t.Fatalf("exit %s after convergence was declared", lag)
	}
}

func TestBadInputKeepsLastGraph(t *testing.T) {
	d := t.TempDir()
	p := startApply(t, "--tmp-prefix", "--debug")
	p.Write(gdoc(1, []res{file(d+"/f", P{"content": "x"})}))
	p.WaitLines(`file\[.*/f\]: changed`, 1)
	p.Write(`{"mgmt":"graph/v1","graph":"test","seq":2,"error":{"message":"upstream broke","pos":"m.mcl:2:3"}}` + "\n")
	p.Write(`{"mgmt":"graph/v1","graph":"test","seq":3,"resources":[{"kind":"file","name":"rel","pos":"m.mcl:9:1"}]}` + "\n")
	p.CloseStdin()
	p.WaitLines(`input closed; enforcing graph seq 1 until stopped`, 1)
	// The first graph is still enforced.
	os.Remove(d + "/f")
	p.WaitLines(`file\[.*/f\]: changed`, 2)
	p.Terminate()
	for _, want := range []string{"error from upstream: m.mcl:2:3: upstream broke (keeping the last good graph, seq 1)", "m.mcl:9:1: runtime error: file[rel]"} {
		if !strings.Contains(p.Log(), want) {
			t.Errorf("log lacks %q:\n%s", want, p.Log())
		}
	}
}

func TestNoValidGraph(t *testing.T) {
	r := testutil.Run(t, `{"mgmt":"graph/v1","graph":"x","seq":1,"resources":[{"kind":"nope","name":"a"}]}`+"\n", "mgmt-apply", "--tmp-prefix")
	if r.Code != 1 || !strings.Contains(r.Stderr, "before any valid graph") {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	r = testutil.Run(t, "", "mgmt-apply", "--tmp-prefix")
	if r.Code != 1 {
		t.Fatalf("empty input: exit %d", r.Code)
	}
}

func TestPrintGraph(t *testing.T) {
	d := t.TempDir()
	g := gdoc(1, []res{file(d+"/a/", nil), file(d+"/a/b", nil), ex("e", "true", P{"cwd": d + "/a/"})})
	r := testutil.Run(t, g, "mgmt-apply", "--print-graph", "--tmp-prefix")
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	for _, want := range []string{
		`{"from":{"kind":"file","name":"` + d + `/a/"},"to":{"kind":"exec","name":"e"}}`,
		`{"from":{"kind":"file","name":"` + d + `/a/"},"to":{"kind":"file","name":"` + d + `/a/b"}}`,
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("autoedge %s missing:\n%s", want, r.Stdout)
		}
	}
	if _, err := os.Stat(d + "/a"); err == nil {
		t.Errorf("--print-graph applied the graph")
	}
	r = testutil.Run(t, gdoc(1, []res{file("relative", nil)}), "mgmt-apply", "--print-graph", "--tmp-prefix")
	if r.Code != 1 || !strings.Contains(r.Stderr, "runtime error") || !strings.Contains(r.Stdout, `"error"`) {
		t.Fatalf("invalid graph: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
}

func TestPrometheus(t *testing.T) {
	d := t.TempDir()
	p := startApply(t, "--tmp-prefix", "--prometheus", "--prometheus-listen", "127.0.0.1:0")
	p.Write(gdoc(1, []res{file(d+"/f", P{"content": "x"}), file(d+"/g", P{"content": "y"})}))
	// both files' CheckApply are counted once the graph has converged
	// (they run in parallel: either may end first)
	p.WaitLines(`graph seq 1 converged`, 1)
	p.WaitLines(`prometheus metrics on`, 1)
	text := scrape(t, p)
	for _, want := range []string{
		`mgmt_resources_total{kind="file"} 2`,
		`mgmt_checkapply_total{apply="true",errorful="false",eventful="true",kind="file"} 2`,
		`mgmt_graph_start_time_seconds `,
		`go_goroutines `,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		// every kind of the graph has its failure series from the start, at 0
		if strings.HasPrefix(sc.Text(), "mgmt_failures") && !strings.HasSuffix(sc.Text(), " 0") {
			t.Errorf("unexpected failure metric: %s", sc.Text())
		}
	}
}

// scrape returns what the metrics endpoint of p serves.
func scrape(t *testing.T, p *testutil.Proc) string {
	t.Helper()
	addr := regexp.MustCompile(`http://\S+/metrics`).FindString(p.Log())
	resp, err := http.Get(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

func TestReverseFile(t *testing.T) {
	d := t.TempDir()
	prefix := t.TempDir()
	made := res{Kind: "file", Name: d + "/made", Params: P{"state": "exists", "content": "new\n"}, Meta: P{"reverse": true}}
	keep := file(d+"/keep", P{"content": "k"})
	// The first run creates the file and saves how to undo it.
	r := testutil.Run(t, gdoc(1, []res{made, keep}), "mgmt-apply", "--prefix", prefix, "--converged-timeout", "0")
	if r.Code != 0 || readFile(t, d+"/made") != "new\n" {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	// A later run (after a restart) without the resource removes the file.
	r = testutil.Run(t, gdoc(2, []res{keep}), "mgmt-apply", "--prefix", prefix, "--converged-timeout", "0")
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(d + "/made"); !os.IsNotExist(err) {
		t.Fatalf("the reversed file is still there (%v):\n%s", err, r.Stderr)
	}
	// Within one run: the swap that drops the resource reverses it.
	p := startApply(t, "--prefix", prefix)
	p.Write(gdoc(1, []res{made, keep}))
	p.WaitLines(`graph seq 1 converged in`, 1)
	p.Write(gdoc(2, []res{keep}))
	p.WaitLines(`graph seq 2 converged in`, 1)
	p.Terminate()
	if _, err := os.Stat(d + "/made"); !os.IsNotExist(err) {
		t.Fatalf("the reversed file is still there (%v):\n%s", err, p.Log())
	}
}

func TestPoll(t *testing.T) {
	d := t.TempDir()
	path := d + "/polled"
	p := startApply(t, "--tmp-prefix")
	p.Write(gdoc(1, []res{{Kind: "file", Name: path, Params: P{"state": "exists", "content": "p"}, Meta: P{"poll": 1}}}))
	changed := `file\[.*/polled\]: changed`
	p.WaitLines(changed, 1)
	os.WriteFile(path, []byte("drift"), 0o644)
	p.WaitLines(changed, 2) // repaired by the next poll, within a second
	if got := readFile(t, path); got != "p" {
		t.Fatalf("content %q", got)
	}
}

func TestLimitBurst(t *testing.T) {
	d := t.TempDir()
	log := d + "/log"
	// an event every 50 ms, for as long as it runs: however slow the
	// machine, a change is always pending, and only the limit spaces runs
	watch := "while :; do echo x; sleep 0.05; done"
	p := startApply(t, "--tmp-prefix")
	p.Write(gdoc(1, []res{{Kind: "exec", Name: "limited",
		Params: P{"cmd": "date +%s%N >> " + log, "shell": "/bin/sh", "watchcmd": watch, "watchshell": "/bin/sh"},
		Meta:   P{"limit": 4.0, "burst": 1}}}))
	p.WaitLines(`exec\[limited\]: changed`, 3)
	p.Signal(syscall.SIGTERM)
	p.Wait()
	// A limit of 4 a second with a burst of 1 lets run k+1 start no
	// sooner than k quarters of a second after the first. Two runs may
	// be closer than a quarter: a run that waited for the processor
	// after its turn came does not move the turns after it. The times
	// are the runs' own, so 50 ms are left for starting date.
	var first int64
	for i, f := range strings.Fields(readFile(t, log)) {
		var ns int64
		fmt.Sscan(f, &ns)
		if i == 0 {
			first = ns
			continue
		}
		if min := time.Duration(i)*250*time.Millisecond - 50*time.Millisecond; time.Duration(ns-first) < min {
			t.Errorf("run %d only %s after the first with limit 4/s (at least %s)", i+1, time.Duration(ns-first), min)
		}
	}
}

func TestAutogroupNoop(t *testing.T) {
	g := gdoc(1, []res{{Kind: "noop", Name: "a"}, {Kind: "noop", Name: "b"}, {Kind: "noop", Name: "c", Meta: P{"autogroup": false}}})
	r := testutil.Run(t, g, "mgmt-apply", "--print-graph")
	if r.Code != 0 || strings.Count(r.Stdout, `"kind":"noop"`) != 3 {
		t.Fatalf("print-graph keeps every resource (exit %d):\n%s", r.Code, r.Stdout)
	}
	r = testutil.Run(t, g, "mgmt-apply", "--tmp-prefix", "--converged-timeout", "0")
	if r.Code != 0 || !strings.Contains(r.Stderr, "(3 resources in 2 vertices)") {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
}

func TestSendRecvTypeMismatch(t *testing.T) {
	g := gdoc(1, []res{ex("e", "true", nil), {Kind: "test", Name: "t", Params: P{}}},
		edge{From: ref{"exec", "e"}, To: ref{"test", "t"}, Send: "output", Recv: "int64ptr"})
	r := testutil.Run(t, g, "mgmt-apply", "--print-graph")
	if r.Code != 1 || !strings.Contains(r.Stderr, "exec[e]") || !strings.Contains(r.Stderr, "test[t]") {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
}

func TestWorldResourceOnPrivateWorld(t *testing.T) {
	g := gdoc(1, []res{{Kind: "kv", Name: "greeting", Params: P{"value": "hi"}}})
	r := testutil.Run(t, g, "mgmt-apply", "--tmp-prefix", "--converged-timeout", "0")
	if r.Code != 0 || !strings.Contains(r.Stderr, "kv[greeting]: changed") {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
}

func TestClusterConvergedTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd member")
	}
	c, client := testutil.StartMember(t)
	g := gdoc(1, []res{{Kind: "kv", Name: "greeting", Params: P{"value": "hi"}}})
	r := testutil.Run(t, g, "mgmt-apply", "--seeds", client, "--tmp-prefix", "--converged-timeout", "0.3")
	if r.Code != 0 || !strings.Contains(r.Stderr, "the cluster converged") {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	got := testutil.Run(t, "", "mgmt-cluster", "--seeds", client, "get", "strings/greeting")
	if strings.TrimSpace(got.Stdout) != "hi" {
		t.Fatalf("world value %q (%s)", got.Stdout, got.Stderr)
	}
	c.Signal(syscall.SIGTERM)
	c.Wait()
}

func TestFileYAMLGraphvizMaxRuntime(t *testing.T) {
	d := t.TempDir()
	yml := d + "/g.yaml"
	os.WriteFile(yml, []byte(fmt.Sprintf(`graph: g
resources:
  file:
  - name: %s/y.txt
    state: exists
    content: from yaml
  noop:
  - name: n1
edges:
- name: e1
  from: {kind: noop, name: n1}
  to: {kind: file, name: %s/y.txt}
`, d, d)), 0o644)
	t0 := time.Now()
	r := testutil.Run(t, "", "mgmt-apply", "--file", yml, "--tmp-prefix", "--graphviz", d+"/g.dot", "--max-runtime", "0.5")
	if r.Code != 0 || readFile(t, d+"/y.txt") != "from yaml" {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	if el := time.Since(t0); el < 500*time.Millisecond || !strings.Contains(r.Stderr, "maximum run time") {
		t.Fatalf("stopped after %s:\n%s", el, r.Stderr)
	}
	if dot := readFile(t, d+"/g.dot"); !strings.Contains(dot, `"noop[n1]" -> "file[`+d+`/y.txt]"`) {
		t.Fatalf("graphviz:\n%s", dot)
	}
}

// TestFileYAMLCollect applies a graph.yaml that exports a file ("@@")
// and collects its kind, as upstream's examples do: the file is written
// under its path, and the exported name loses its "@@".
func TestFileYAMLCollect(t *testing.T) {
	d := t.TempDir()
	yml := d + "/g.yaml"
	os.WriteFile(yml, []byte(fmt.Sprintf(`graph: g
resources:
  file:
  - name: "@@shared"
    path: %s/shared.txt
    state: exists
    content: exported
collect:
- kind: file
  pattern: %s/
`, d, d)), 0o644)
	r := testutil.Run(t, "", "mgmt-apply", "--file", yml, "--tmp-prefix", "--converged-timeout", "0.3")
	if r.Code != 0 || readFile(t, d+"/shared.txt") != "exported" {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	p := testutil.Run(t, "", "mgmt-apply", "--file", yml, "--print-graph")
	if p.Code != 0 || !strings.Contains(p.Stdout, `"name":"shared"`) {
		t.Fatalf("exit %d: %s\n%s", p.Code, p.Stdout, p.Stderr)
	}
}

func TestEnvironmentFlags(t *testing.T) {
	d := t.TempDir()
	cmd := exec.Command(testutil.Bin(t, "mgmt-apply"), "--tmp-prefix")
	cmd.Env = append(os.Environ(), "MGMT_CONVERGED_TIMEOUT=0", "MGMT_NOOP=true")
	cmd.Stdin = strings.NewReader(gdoc(1, []res{file(d+"/env", P{"content": "x"})}))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "would change") {
		t.Fatalf("%v:\n%s", err, out)
	}
	if _, err := os.Stat(d + "/env"); !os.IsNotExist(err) {
		t.Fatal("MGMT_NOOP ignored")
	}
}
