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

// minConformance is the share of the shared mcl conformance corpus that
// must pass through mcl-compile | mgmt-apply (239 of 241 pass; the two
// others expect a resource name containing a newline, which the corpus's
// line-based expected output cannot express).
const minConformance = 0.95

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
// needs no python) and fails if the pass rate drops below minConformance.
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: runs the whole corpus")
	}
	shared := testutil.Shared()
	if shared == "" {
		t.Skip("../shared not present")
	}
	cases, _ := filepath.Glob(filepath.Join(shared, "conformance", "mcl", "*.txtar"))
	if len(cases) == 0 {
		t.Skip("no conformance cases")
	}
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
	pass := len(cases) - len(fails)
	rate := float64(pass) / float64(len(cases))
	t.Logf("conformance: %d passed, %d failed (%.1f%%)", pass, len(fails), 100*rate)
	for _, f := range fails {
		t.Logf("FAIL %s", f)
	}
	if rate < minConformance {
		t.Errorf("conformance %.1f%% is below %.0f%%", 100*rate, 100*minConformance)
	}
}
