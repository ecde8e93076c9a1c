package mcl

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
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

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// The corpus of upstream mgmt's examples/lang programs is not part of this
// repository (it is upstream's code): TestUpstreamExamples runs it from
// $MGMT_UPSTREAM_EXAMPLES, or from ../shared/upstream-examples/lang when
// that is there. Which examples are expected to fail, and with what
// error, is ours: testdata/upstream-examples.txt.
const upstreamExpected = "testdata/upstream-examples.txt"

var updateUpstream = flag.Bool("update-upstream", false, "rewrite "+upstreamExpected+" from this run")

// upstreamDir returns the corpus directory, or "" when there is none.
func upstreamDir() string {
	if d := os.Getenv("MGMT_UPSTREAM_EXAMPLES"); d != "" {
		return d
	}
	if s := testutil.Shared(); s != "" {
		d := filepath.Join(s, "upstream-examples", "lang")
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
	}
	return ""
}

// upstreamResult is what one example gave.
type upstreamResult struct {
	name     string
	compiled bool   // mcl-compile wrote a graph document
	graph    bool   // mgmt-apply --print-graph printed it
	why      string // the first error line, when there is no graph
}

// errNoise is what differs between runs of one error: temporary paths and
// positions.
var errNoise = regexp.MustCompile(`/tmp/[^\s:"']*|\b\d+:\d+(:\d+)?\b`)

// runUpstream runs one example (a .mcl file, or a module directory) as
// `mcl-compile --once PATH | mgmt-apply --print-graph --tmp-prefix`.
func runUpstream(bin, path string) upstreamResult {
	r := upstreamResult{name: filepath.Base(path)}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		r.name += "/"
		path += "/"
	}
	dir, err := os.MkdirTemp("", "upstream-ex-")
	if err != nil {
		r.why = err.Error()
		return r
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	compile := exec.CommandContext(ctx, filepath.Join(bin, "mcl-compile"), "--once", path)
	var cout, cerr bytes.Buffer
	compile.Dir, compile.Stdout, compile.Stderr = dir, &cout, &cerr
	cErr := compile.Run()
	docs := cout.Bytes()
	r.compiled = cErr == nil && hasGraph(docs)
	if !r.compiled {
		r.why = firstError(cerr.String(), docs, cErr)
		return r
	}
	apply := exec.CommandContext(ctx, filepath.Join(bin, "mgmt-apply"), "--print-graph", "--tmp-prefix")
	var aout, aerr bytes.Buffer
	apply.Dir, apply.Stdin, apply.Stdout, apply.Stderr = dir, bytes.NewReader(docs), &aout, &aerr
	aErr := apply.Run()
	r.graph = aErr == nil && hasGraph(aout.Bytes())
	if !r.graph {
		r.why = firstError(aerr.String(), aout.Bytes(), aErr)
	}
	return r
}

// relative drops the corpus directory from the paths in the errors, which
// then read the same wherever the corpus is.
func relative(r upstreamResult, dir string) upstreamResult {
	r.why = strings.ReplaceAll(r.why, dir+"/", "")
	return r
}

// hasGraph reports whether the last document of a stream is a graph (not
// an error document).
func hasGraph(stream []byte) bool {
	var last map[string]any
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var doc map[string]any
		if json.Unmarshal(sc.Bytes(), &doc) == nil {
			last = doc
		}
	}
	_, isErr := last["error"]
	return last != nil && !isErr
}

// firstError returns the first line saying what went wrong, without the
// parts that change between runs.
func firstError(stderr string, stream []byte, err error) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "error") || strings.Contains(l, ": ") {
			return strings.TrimSpace(errNoise.ReplaceAllString(l, "…"))
		}
	}
	if bytes.Contains(stream, []byte(`"error"`)) {
		return "an error document: " + errNoise.ReplaceAllString(firstLine(string(stream)), "…")
	}
	if err != nil {
		return err.Error()
	}
	return "no graph document"
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// readExpected reads the expected failures: "NAME: TEXT" per line, TEXT
// being a part of the error the example must fail with.
func readExpected(t *testing.T) map[string]string {
	b, err := os.ReadFile(upstreamExpected)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for i, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		name, text, ok := strings.Cut(l, ": ")
		if !ok {
			t.Fatalf("%s:%d: want NAME: ERROR TEXT", upstreamExpected, i+1)
		}
		want[name] = text
	}
	return want
}

// TestUpstreamExamples runs every upstream example through the tools and
// checks each result against the expected failures: an example not listed
// must give a graph, a listed one must fail with its listed error (so a
// regression, and an example fixed without updating the list, both fail
// the test). It logs a table of the results.
func TestUpstreamExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: runs the whole corpus")
	}
	dir := upstreamDir()
	if dir == "" {
		t.Skip("no upstream examples corpus: set MGMT_UPSTREAM_EXAMPLES or add ../shared/upstream-examples/lang")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".mcl") || e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	bin := testutil.Tools(t)
	results := make([]upstreamResult, len(paths))
	var wg sync.WaitGroup
	work := make(chan int)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				results[i] = relative(runUpstream(bin, paths[i]), dir)
			}
		}()
	}
	for i := range paths {
		work <- i
	}
	close(work)
	wg.Wait()
	t.Log("\n" + upstreamTable(results))
	if *updateUpstream {
		writeExpected(t, results)
		return
	}
	checkExpected(t, results, readExpected(t))
}

// checkExpected compares the results with the expected failures.
func checkExpected(t *testing.T, results []upstreamResult, want map[string]string) {
	seen := map[string]bool{}
	for _, r := range results {
		seen[r.name] = true
		text, listed := want[r.name]
		switch {
		case !listed && !r.graph:
			t.Errorf("%s: no graph: %s", r.name, r.why)
		case listed && r.graph:
			t.Errorf("%s gives a graph now: remove it from %s", r.name, upstreamExpected)
		case listed && !strings.Contains(r.why, text):
			t.Errorf("%s fails differently: got %q, want an error containing %q", r.name, r.why, text)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("%s names %s, which is not in the corpus", upstreamExpected, name)
		}
	}
}

// upstreamTable summarises the results: counts, then each failure.
func upstreamTable(results []upstreamResult) string {
	var b strings.Builder
	compiled, graphs := 0, 0
	var fails []string
	for _, r := range results {
		if r.compiled {
			compiled++
		}
		if r.graph {
			graphs++
		} else {
			fails = append(fails, fmt.Sprintf("| %s | %s |", r.name, strings.ReplaceAll(r.why, "|", `\|`)))
		}
	}
	sort.Strings(fails)
	fmt.Fprintf(&b, "| examples | compile | give a graph |\n| --- | --- | --- |\n| %d | %d | %d |\n\n", len(results), compiled, graphs)
	b.WriteString("| example | why there is no graph |\n| --- | --- |\n")
	b.WriteString(strings.Join(fails, "\n"))
	return b.String()
}

// writeExpected rewrites the expected failures from results, keeping the
// header comment.
func writeExpected(t *testing.T, results []upstreamResult) {
	old, _ := os.ReadFile(upstreamExpected)
	var b strings.Builder
	for _, l := range strings.Split(string(old), "\n") {
		if !strings.HasPrefix(l, "#") {
			break
		}
		b.WriteString(l + "\n")
	}
	sort.Slice(results, func(i, j int) bool { return results[i].name < results[j].name })
	for _, r := range results {
		if !r.graph {
			fmt.Fprintf(&b, "%s: %s\n", r.name, r.why)
		}
	}
	if err := os.WriteFile(upstreamExpected, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
