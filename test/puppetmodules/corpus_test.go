// Package puppetmodules runs puppet-graph on a corpus of real Puppet
// modules: the modules Debian packages (.ci/setup.d/25-puppet-modules.sh),
// one case per module taken from its README or examples (cases/*.pp). For
// each case the test compiles the manifest with real Puppet and with the
// native engine, requires the native graph to be identical to the real
// one or a clear refusal, and applies the real graph with mgmt-apply
// --noop, which must finish without failures other than the ones a
// machine without the service has. Each case's header names what it
// expects:
//
//	# native: same
//	# native: refused <text of the error>
//	# noop: clean
//	# noop: <text an allowed failure contains> (one line each)
//
// With MGMT_PUPPET_CORPUS_REPORT=FILE the test also writes the table of
// results (times included) as Markdown.
//
// A graph with a svc resource is applied inside the booted systemd
// container (scripts/systemd-container, named by MGMT_E2E_MACHINE; its
// root holds Puppet, see build.sh's MGMT_E2E_PUPPET, and the test copies
// this host's modules to the same path in it), so that its units are
// checked against a real systemd: a fresh Debian machine. The others run on this host. In
// CI, a missing container fails the test.
//
// The corpus takes minutes (Facter, real Puppet and a noop apply per
// case), so `go test ./...` runs it only with MGMT_PUPPET_CORPUS=1; CI
// runs it so in .ci/check.d/50-puppet-corpus.sh.
package puppetmodules

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/resources/system/systemtest"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// modulePath is where Debian installs Puppet modules.
const modulePath = "/usr/share/puppet/modules"

// A corpusCase is one manifest of cases/ and what it expects.
type corpusCase struct {
	name, file string
	native     string   // expectation from the header
	noop       []string // "clean", or texts an allowed failure contains
}

// A result is what one case did, for the report.
type result struct {
	name                 string
	native, real, same   string
	nativeRes, pippetRes int
	noop                 string
	nativeTime, realTime time.Duration
	noopTime             time.Duration
}

func loadCases(t *testing.T) []corpusCase {
	files, err := filepath.Glob("cases/*.pp")
	if err != nil || len(files) < 30 {
		t.Fatalf("want at least 30 cases, got %d (%v)", len(files), err)
	}
	var out []corpusCase
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c := corpusCase{name: strings.TrimSuffix(filepath.Base(f), ".pp"), file: f}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "# native: "); ok {
				c.native = v
			}
			if v, ok := strings.CutPrefix(line, "# noop: "); ok {
				c.noop = append(c.noop, v)
			}
		}
		if c.native == "" || len(c.noop) == 0 {
			t.Errorf("%s: the header needs '# native: ...' and '# noop: ...'", f)
		}
		out = append(out, c)
	}
	return out
}

// realCompiler compiles manifests with real Puppet, all in one process
// (pkg/puppet/testdata/batch.rb), with the node's Facter facts.
type realCompiler struct {
	mu  sync.Mutex
	in  *json.Encoder
	out *bufio.Scanner
}

func startReal(t *testing.T) *realCompiler {
	testneed.Puppet(t)
	cmd := exec.Command("ruby", filepath.Join(testutil.Root(), "pkg", "puppet", "testdata", "batch.rb"))
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.Close()
		cmd.Wait()
	})
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	return &realCompiler{in: json.NewEncoder(w), out: sc}
}

// compile returns the catalog (rich-data JSON) and the compile time, or
// Puppet's error.
func (rc *realCompiler) compile(t *testing.T, manifest string) ([]byte, time.Duration, string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	abs, _ := filepath.Abs(manifest)
	if err := rc.in.Encode(map[string]any{"manifest": abs, "modulepath": modulePath}); err != nil {
		t.Fatal(err)
	}
	if !rc.out.Scan() {
		t.Fatalf("the Puppet compiler ended: %v", rc.out.Err())
	}
	var resp struct {
		Catalog json.RawMessage
		Seconds float64
		Error   string
	}
	if err := json.Unmarshal(rc.out.Bytes(), &resp); err != nil {
		t.Fatal(err)
	}
	return resp.Catalog, time.Duration(resp.Seconds * float64(time.Second)), resp.Error
}

// TestModuleCorpus runs every case; see the package comment.
func TestModuleCorpus(t *testing.T) {
	if os.Getenv("MGMT_PUPPET_CORPUS") != "1" {
		t.Skip("the module corpus is long: run it with MGMT_PUPPET_CORPUS=1 (CI: .ci/check.d/50-puppet-corpus.sh)")
	}
	testneed.Path(t, modulePath+"/stdlib", "puppet-module-puppetlabs-stdlib")
	cases := loadCases(t)
	rc := startReal(t)
	dir := t.TempDir()
	var mu sync.Mutex
	var results []result
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := runCase(t, rc, c, dir)
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
			})
		}
	})
	sort.Slice(results, func(i, j int) bool { return results[i].name < results[j].name })
	report := reportTable(results)
	t.Log("\n" + report)
	if f := os.Getenv("MGMT_PUPPET_CORPUS_REPORT"); f != "" {
		if err := os.WriteFile(f, []byte(report), 0o644); err != nil {
			t.Error(err)
		}
	}
}

func runCase(t *testing.T, rc *realCompiler, c corpusCase, dir string) result {
	r := result{name: c.name}
	cat, realTime, perr := rc.compile(t, c.file)
	r.realTime = realTime
	if perr != "" {
		t.Fatalf("real Puppet cannot compile the case: %s", perr)
	}
	r.real = "ok"
	catFile := filepath.Join(dir, c.name+".catalog.json")
	if err := os.WriteFile(catFile, cat, 0o644); err != nil {
		t.Fatal(err)
	}
	real := testutil.Run(t, "", "puppet-graph", "--catalog", catFile)
	if real.Code != 0 {
		t.Fatalf("translating the real catalog: exit %d: %s", real.Code, real.Stderr)
	}
	realDoc := decode(t, real.Stdout)
	for _, res := range realDoc.Resources {
		switch res.Kind {
		case "pippet":
			r.pippetRes++
		case "noop":
		default:
			r.nativeRes++
		}
	}
	start := time.Now()
	nat := testutil.Run(t, "", "puppet-graph", "--engine", "native", c.file)
	r.nativeTime = time.Since(start)
	r.native, r.same = checkNative(t, c, nat, realDoc)
	r.noop, r.noopTime = checkNoop(t, c, real.Stdout)
	t.Logf("RESULT %s | native %s | same %s | native/pippet %d/%d | noop %s | %.3fs / %.2fs / %.1fs", c.name,
		r.native, r.same, r.nativeRes, r.pippetRes, r.noop, r.nativeTime.Seconds(), r.realTime.Seconds(), r.noopTime.Seconds())
	return r
}

// checkNative compares the native result with the real graph and the
// case's expectation.
func checkNative(t *testing.T, c corpusCase, nat testutil.Result, realDoc *graph.Document) (native, same string) {
	if nat.Code != 0 {
		msg := lastLine(nat.Stderr)
		if !refusal.MatchString(msg) {
			t.Errorf("native: exit %d without a clear, positioned refusal: %s", nat.Code, msg)
		}
		want, ok := strings.CutPrefix(c.native, "refused ")
		if !ok || !strings.Contains(msg, want) {
			t.Errorf("native refused (%s), want %q", msg, c.native)
		}
		return "refused: " + shorten(msg), "-"
	}
	g, w := canonical(decode(t, nat.Stdout)), canonical(realDoc)
	if g != w {
		t.Errorf("WRONG GRAPH: the native graph differs from real Puppet's:\n%s", lineDiff(g, w))
		return "ok", "NO"
	}
	if c.native != "same" {
		t.Errorf("native gave the same graph as Puppet, want %q (update the case)", c.native)
	}
	return "ok", "yes"
}

// refusal is what a clear native refusal looks like: a position and a
// hint to use real Puppet.
var refusal = regexp.MustCompile(`^puppet-graph: [^ ]+:\d+:\d+: .*(install Puppet|--engine puppet)`)

// checkNoop applies the real graph with mgmt-apply --noop and checks its
// failures against the case's expectation.
func checkNoop(t *testing.T, c corpusCase, doc string) (string, time.Duration) {
	start := time.Now()
	args := []string{"--noop", "--converged-timeout", "2", "--max-runtime", "600"}
	var a testutil.Result
	where := ""
	if strings.Contains(doc, `"kind":"svc"`) {
		a, where = applyInMachine(t, doc, args), " (container)"
	} else {
		a = testutil.Run(t, doc, "mgmt-apply", args...)
	}
	took := time.Since(start)
	fails := failures(a.Stderr)
	if a.Code != 0 && len(fails) == 0 {
		t.Errorf("mgmt-apply --noop: exit %d: %s", a.Code, a.Stderr)
		return "exit " + fmt.Sprint(a.Code), took
	}
	if len(fails) == 0 {
		if c.noop[0] != "clean" {
			t.Errorf("noop is clean, want failures %q (update the case)", c.noop)
		}
		return "clean" + where, took
	}
	for _, f := range fails {
		if !allowed(f, c.noop) {
			t.Errorf("noop failure: %s (allowed: %q)", f, c.noop)
		}
	}
	return fmt.Sprintf("%d failed (allowed)%s", len(fails), where), took
}

// corpusMachine is the container the graphs with services are applied in,
// with mgmt-apply installed.
var corpusMachine struct {
	once sync.Once
	m    *systemtest.Machine
	bin  string
	err  string
}

// applyInMachine runs mgmt-apply with args and doc on stdin inside the
// container (see the package comment).
func applyInMachine(t *testing.T, doc string, args []string) testutil.Result {
	t.Helper()
	cm := &corpusMachine
	cm.once.Do(func() {
		if os.Getenv("MGMT_E2E_MACHINE") == "" {
			cm.err = "no systemd container: boot one (scripts/systemd-container/boot.sh) and set MGMT_E2E_MACHINE"
			return
		}
		cm.m = systemtest.Find(t)
		if _, err := os.Stat(cm.m.Path("/usr/bin/puppet")); err != nil {
			cm.err = "the container has no Puppet: build its root with MGMT_E2E_PUPPET=1"
			return
		}
		// The same modules at the same path as on this host, where the
		// graphs were compiled: Debian's module directory holds links
		// through /etc/alternatives, so copy what they point at. The
		// container's root is a throwaway overlay.
		dst := cm.m.Path(modulePath)
		if err := os.MkdirAll(dst, 0o755); err != nil {
			cm.err = err.Error()
			return
		}
		if out, err := exec.Command("cp", "-rL", modulePath+"/.", dst).CombinedOutput(); err != nil {
			cm.err = fmt.Sprintf("copying the modules into the container: %v\n%s", err, out)
			return
		}
		cm.bin = cm.m.Install(t, testutil.Root(), "mgmt-apply", "./cmd/mgmt-apply", false)
	})
	if cm.err != "" {
		testneed.Missing(t, "%s", cm.err)
	}
	const marker = "/run/mgmt-corpus-noop"
	cm.m.Run(t, "touch", marker)
	cmd := cm.m.Command(append([]string{cm.bin}, args...)...)
	cmd.Stdin = strings.NewReader(doc)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running mgmt-apply in the container: %v", err)
	}
	if changed := changedSince(t, cm.m, marker); changed != "" {
		t.Errorf("the noop run changed the container:\n%s", changed)
	}
	return testutil.Result{Code: code, Stdout: out.String(), Stderr: errb.String()}
}

// changedSince lists what changed in the container since the marker file
// was touched, where a configuration run could write: the system's
// configuration, packages, units, accounts and the usual data
// directories: every file written since (Puppet's own state and caches,
// mgmt-apply's state directory and PackageKit's log of transactions, which
// records queries, left out). Directories are not compared: Puppet's
// augeas provider checks a noop change by writing a .augnew file beside
// the target and removing it, which only touches the directory.
func changedSince(t *testing.T, m *systemtest.Machine, marker string) string {
	t.Helper()
	out := m.Run(t, "find", "/etc", "/opt", "/srv", "/home", "/root", "/usr", "/var/lib",
		"-path", "/var/lib/puppet", "-prune", "-o", "-path", "/opt/mgmt", "-prune", "-o",
		"-path", "/var/lib/systemd/timers", "-prune", "-o", "-path", "/var/lib/PackageKit", "-prune", "-o",
		"-path", "/var/lib/mgmt", "-prune", "-o",
		"-newer", marker, "-not", "-type", "d", "-print")
	return strings.TrimSpace(out)
}

// allowed reports whether a noop failure contains one of the texts a
// case allows.
func allowed(failure string, texts []string) bool {
	for _, s := range texts {
		if s != "clean" && strings.Contains(failure, s) {
			return true
		}
	}
	return false
}

// failures lists the resources mgmt-apply reports as failed.
func failures(log string) []string {
	var out []string
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "]: error: ") {
			out = append(out, strings.TrimPrefix(line, "mgmt-apply: "))
		}
	}
	return out
}

func decode(t *testing.T, s string) *graph.Document {
	t.Helper()
	docs, err := graph.ReadAll(strings.NewReader(s), "stdout")
	if err != nil || len(docs) != 1 {
		t.Fatalf("decoding a graph: %v (%d documents)", err, len(docs))
	}
	return docs[0]
}

// canonical encodes a graph without positions and source: real Puppet
// reports no columns.
func canonical(d *graph.Document) string {
	d.Source = ""
	for _, r := range d.Resources {
		r.Pos = ""
	}
	var b bytes.Buffer
	graph.Encode(&b, d, graph.JSON)
	var v any
	json.Unmarshal(b.Bytes(), &v)
	out, _ := json.MarshalIndent(v, "", " ")
	return string(out)
}

// lineDiff shows the lines only one side has.
func lineDiff(got, want string) string {
	count := map[string]int{}
	for _, l := range strings.Split(want, "\n") {
		count[l]++
	}
	var b strings.Builder
	for _, l := range strings.Split(got, "\n") {
		if count[l] > 0 {
			count[l]--
			continue
		}
		b.WriteString("+native " + l + "\n")
	}
	for l, n := range count {
		for ; n > 0; n-- {
			b.WriteString("-puppet " + l + "\n")
		}
	}
	return b.String()
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func shorten(s string) string {
	s = strings.TrimPrefix(s, "puppet-graph: ")
	if len(s) > 110 {
		s = s[:110] + "..."
	}
	return s
}

func reportTable(rs []result) string {
	var b strings.Builder
	b.WriteString("| case | native | real | same graph | native/pippet | noop | native s | real s | noop s |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	same, refused, clean, pure, nat, pip := 0, 0, 0, 0, 0, 0
	for _, r := range rs {
		nat, pip = nat+r.nativeRes, pip+r.pippetRes
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d/%d | %s | %.3f | %.2f | %.1f |\n", r.name,
			strings.ReplaceAll(r.native, "|", "\\|"), r.real, r.same, r.nativeRes, r.pippetRes, r.noop,
			r.nativeTime.Seconds(), r.realTime.Seconds(), r.noopTime.Seconds())
		switch {
		case r.same == "yes":
			same++
		case strings.HasPrefix(r.native, "refused"):
			refused++
		}
		if strings.HasPrefix(r.noop, "clean") || strings.Contains(r.noop, "failed (allowed)") {
			clean++
		}
		if strings.HasPrefix(r.noop, "clean") {
			pure++
		}
	}
	fmt.Fprintf(&b, "\n%d cases: native identical %d, refused %d, wrong %d; noop clean %d, clean but for allowed failures %d; "+
		"resources of the real graphs: %d native kinds, %d pippet (%.0f%% native)\n",
		len(rs), same, refused, len(rs)-same-refused, pure, clean, nat, pip, 100*float64(nat)/float64(max(nat+pip, 1)))
	return b.String()
}
