package mcl

import (
	"bytes"
	"context"
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

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// expectedFailures reads testdata/conformance-expected-failures.txt: the
// cases that are expected to fail, with the reason for each.
func expectedFailures(t *testing.T) map[string]string {
	data, err := os.ReadFile(filepath.Join("testdata", "conformance-expected-failures.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for i, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		name, why, ok := strings.Cut(l, ": ")
		if !ok || !strings.HasSuffix(name, ".txtar") || strings.TrimSpace(why) == "" {
			t.Fatalf("conformance-expected-failures.txt:%d: want \"NAME.txtar: reason\", got %q", i+1, l)
		}
		out[name] = why
	}
	return out
}

var (
	txtarHeader = regexp.MustCompile(`^-- (.+?) --\s*$`)
	errLine     = regexp.MustCompile(`^# err: (\w+):`)
	stageWord   = regexp.MustCompile(`\b(syntax|scope|type|runtime) error\b`)
	stageOf     = map[string]string{
		"errLexParse": "syntax", "errInterpolate": "syntax", "errSetScope": "scope", "errUnify": "type",
	}
)

func parseTxtar(s string) map[string]string {
	files := map[string]string{}
	name := ""
	var buf strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if m := txtarHeader.FindStringSubmatch(strings.TrimRight(l, "\n")); m != nil {
			if name != "" {
				files[name] = buf.String()
			}
			name = m[1]
			buf.Reset()
			continue
		}
		if name != "" {
			buf.WriteString(l)
		}
	}
	if name != "" {
		files[name] = buf.String()
	}
	return files
}

// conformanceCase runs one case the way the shared runner does (the case's
// files in a fresh directory, `mcl-compile --once DIR/ | mgmt-apply
// --print-graph --tmp-prefix`) and returns "" when it passes.
func conformanceCase(bin, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	files := parseTxtar(string(data))
	output, ok := files["OUTPUT"]
	if !ok {
		return ""
	}
	delete(files, "OUTPUT")
	dir, err := os.MkdirTemp("", "mclconf-")
	if err != nil {
		return err.Error()
	}
	defer os.RemoveAll(dir)
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	compile := exec.CommandContext(ctx, filepath.Join(bin, "mcl-compile"), "--once", "--var", "purpleidea=hello world!", dir+"/")
	apply := exec.CommandContext(ctx, filepath.Join(bin, "mgmt-apply"), "--print-graph", "--tmp-prefix")
	compile.Dir, apply.Dir = dir, dir
	var cerr, aerr, aout bytes.Buffer
	compile.Stderr, apply.Stderr, apply.Stdout = &cerr, &aerr, &aout
	pipe, _ := compile.StdoutPipe()
	apply.Stdin = pipe
	compile.Start()
	apply.Start()
	aErr := apply.Wait()
	cErr := compile.Wait()
	failed := aErr != nil || cErr != nil
	stderr := cerr.String() + aerr.String()
	var last map[string]any
	for _, l := range strings.Split(aout.String(), "\n") {
		var doc map[string]any
		if strings.HasPrefix(strings.TrimSpace(l), "{") && json.Unmarshal([]byte(l), &doc) == nil {
			last = doc
		}
	}
	if e, ok := last["error"]; ok {
		failed = true
		b, _ := json.Marshal(e)
		stderr += "\n" + string(b)
	}
	var want []string
	wantErr := ""
	for _, l := range strings.Split(output, "\n") {
		l = strings.TrimSpace(l)
		if m := errLine.FindStringSubmatch(l); m != nil {
			wantErr = stageOf[m[1]]
			if wantErr == "" {
				wantErr = "runtime"
			}
			break
		}
		if strings.HasPrefix(l, "Vertex:") || strings.HasPrefix(l, "Edge:") {
			want = append(want, strings.TrimSpace(strings.Split(l, " # ")[0]))
		} else if l != "" && !strings.HasPrefix(l, "#") {
			want = append(want, l)
		}
	}
	if wantErr != "" {
		m := stageWord.FindStringSubmatch(stderr)
		switch {
		case !failed:
			return "expected a " + wantErr + " error, got success"
		case m == nil || m[1] != wantErr:
			return "want a " + wantErr + " error, got: " + strings.TrimSpace(stderr)
		}
		return ""
	}
	if failed || last == nil {
		return "the pipeline failed: " + strings.TrimSpace(stderr)
	}
	var got []string
	rs, _ := last["resources"].([]any)
	for _, r := range rs {
		m := r.(map[string]any)
		got = append(got, fmt.Sprintf("Vertex: %s[%s]", m["kind"], m["name"]))
	}
	es, _ := last["edges"].([]any)
	for _, e := range es {
		m := e.(map[string]any)
		f, t := m["from"].(map[string]any), m["to"].(map[string]any)
		got = append(got, fmt.Sprintf("Edge: %s[%s] -> %s[%s]", f["kind"], f["name"], t["kind"], t["name"]))
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		return fmt.Sprintf("graph differs: got %q, want %q", got, want)
	}
	return ""
}

// TestConformance runs the shared mcl conformance corpus through the built
// tools (the same procedure as ../shared/conformance/run-mcl.py, so it
// needs no python). Every case must pass except those listed, with their
// reason, in testdata/conformance-expected-failures.txt, and every listed
// case must fail: any regression fails the test, and so does a fix that
// leaves the list stale.
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: runs the whole corpus")
	}
	shared := testutil.NeedShared(t)
	cases, _ := filepath.Glob(filepath.Join(shared, "conformance", "mcl", "*.txtar"))
	if len(cases) == 0 {
		t.Fatal("no conformance cases in ../shared/conformance/mcl")
	}
	expected := expectedFailures(t)
	bin := testutil.Tools(t)
	var mu sync.Mutex
	var fails []string
	work := make(chan string)
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				if why := conformanceCase(bin, c); why != "" {
					mu.Lock()
					fails = append(fails, filepath.Base(c)+": "+why)
					mu.Unlock()
				}
			}
		}()
	}
	for _, c := range cases {
		work <- c
	}
	close(work)
	wg.Wait()
	sort.Strings(fails)
	t.Logf("conformance: %d passed, %d failed", len(cases)-len(fails), len(fails))
	failed := map[string]bool{}
	for _, f := range fails {
		name, why, _ := strings.Cut(f, ": ")
		failed[name] = true
		if reason, ok := expected[name]; ok {
			t.Logf("expected failure %s (%s): %s", name, reason, why)
			continue
		}
		t.Errorf("FAIL %s", f)
	}
	known := map[string]bool{}
	for _, c := range cases {
		known[filepath.Base(c)] = true
	}
	for name := range expected {
		switch {
		case !known[name]:
			t.Errorf("%s is listed as an expected failure but is not in the corpus", name)
		case !failed[name]:
			t.Errorf("%s is listed as an expected failure but passes: remove it from testdata/conformance-expected-failures.txt", name)
		}
	}
}
