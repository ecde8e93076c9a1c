// Package graphmerge_test runs the real graph-merge binary on real files
// and fifos.
package graphmerge_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

func testdata(name string) string {
	return filepath.Join(testutil.Root(), "pkg", "graph", "testdata", name)
}

func decode(t *testing.T, s string) []*graph.Document {
	t.Helper()
	docs, err := graph.ReadAll(strings.NewReader(s), "stdout")
	if err != nil {
		t.Fatalf("output does not decode: %v\n%s", err, s)
	}
	return docs
}

// summary prints vertices (sorted by kind, name) and edges (sorted as
// strings), as the reference's merged.txt files do.
func summary(d *graph.Document) string {
	c := graph.Canonical(d)
	var b strings.Builder
	b.WriteString("graph: " + d.Graph + "\nvertices:\n")
	for _, r := range c.Resources {
		b.WriteString("  - " + r.Ref().String() + "\n")
	}
	var es []string
	for _, e := range c.Edges {
		es = append(es, e.From.String()+" -> "+e.To.String())
	}
	sort.Strings(es)
	b.WriteString("edges:\n")
	for _, e := range es {
		b.WriteString("  - " + e + "\n")
	}
	return b.String()
}

func TestGoldenMixedGraphs(t *testing.T) {
	for _, ex := range []string{"ex2", "ex3"} {
		t.Run(ex, func(t *testing.T) {
			res := testutil.Run(t, "", "graph-merge", testdata(ex+".lang.yaml"), testdata(ex+".mgmtgraph.yaml"))
			if res.Code != 0 {
				t.Fatalf("exit %d: %s", res.Code, res.Stderr)
			}
			docs := decode(t, res.Stdout)
			want, err := os.ReadFile(testdata(ex + ".merged.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if len(docs) != 1 || summary(docs[0]) != string(want) {
				t.Errorf("got\n%s\nwant\n%s", res.Stdout, want)
			}
		})
	}
}

// TestSharedExamples runs the same merges on ../shared when it is there.
func TestSharedExamples(t *testing.T) {
	sh := testutil.NeedShared(t)
	dir := filepath.Join(sh, "puppet", "examples")
	for _, ex := range []string{"ex2", "ex3"} {
		res := testutil.Run(t, "", "graph-merge", filepath.Join(dir, ex+".lang.yaml"), filepath.Join(dir, ex+".mgmtgraph.yaml"))
		want, err := os.ReadFile(filepath.Join(dir, ex+".merged.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if res.Code != 0 || summary(decode(t, res.Stdout)[0]) != string(want) {
			t.Errorf("%s: exit %d %s\n%s", ex, res.Code, res.Stderr, res.Stdout)
		}
	}
}

func stripSource(d *graph.Document) string {
	c := *d
	c.Source, c.Seq = "", 0
	var b bytes.Buffer
	graph.Encode(&b, &c, graph.JSON)
	return b.String()
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	src, err := os.ReadFile(filepath.Join(testutil.Root(), "examples", "graphs", "hello.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(a, src, 0o644)
	first := testutil.Run(t, "", "graph-merge", a, testdata("ex3.lang.yaml"), testdata("ex3.mgmtgraph.yaml"))
	if first.Code != 0 {
		t.Fatalf("exit %d: %s", first.Code, first.Stderr)
	}
	for _, format := range []string{"json", "yaml"} {
		mid := testutil.Run(t, first.Stdout, "graph-merge", "-o", format, "-")
		again := testutil.Run(t, mid.Stdout, "graph-merge", "-")
		if mid.Code != 0 || again.Code != 0 {
			t.Fatalf("%s: exit %d/%d: %s%s", format, mid.Code, again.Code, mid.Stderr, again.Stderr)
		}
		if x, y := stripSource(decode(t, first.Stdout)[0]), stripSource(decode(t, again.Stdout)[0]); x != y {
			t.Errorf("%s round trip changed the graph:\n%s\n%s", format, x, y)
		}
	}
	dot := testutil.Run(t, first.Stdout, "graph-merge", "-o", "dot", "-")
	if dot.Code != 0 || !strings.HasPrefix(dot.Stdout, "digraph ") {
		t.Errorf("dot: %d %s", dot.Code, dot.Stdout)
	}
}

// TestYAMLKeepsEveryByte sends strings that YAML writes in special ways
// through graph-merge -o yaml | graph-merge: every byte comes back.
func TestYAMLKeepsEveryByte(t *testing.T) {
	for _, content := range []string{"\n", "\n\n", "\n\n\n", "a\n\n", "\na\n", " a\n b\n", "\t\n", "a\tb\n", "x \n", "\r\n", "a\n...\n---\n"} {
		doc := map[string]any{"mgmt": "graph/v1", "graph": "g", "seq": 1,
			"resources": []any{map[string]any{"kind": "file", "name": "/tmp/x", "params": map[string]any{"content": content}}}}
		in, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		mid := testutil.Run(t, string(in)+"\n", "graph-merge", "-o", "yaml", "-")
		back := testutil.Run(t, mid.Stdout, "graph-merge", "-")
		if mid.Code != 0 || back.Code != 0 {
			t.Fatalf("%q: exit %d/%d: %s%s", content, mid.Code, back.Code, mid.Stderr, back.Stderr)
		}
		got := decode(t, back.Stdout)[0].Resources[0].Params["content"]
		if got != content {
			t.Errorf("content %q came back as %q through:\n%s", content, got, mid.Stdout)
		}
	}
}

var errLine = regexp.MustCompile(`^graph-merge: [^:\s]+:\d+(:\d+)?: \S`)

// TestBadInput feeds bad input of every kind: each gives positioned
// one-line errors and exit status 1, never a panic.
func TestBadInput(t *testing.T) {
	ok := `{"mgmt":"graph/v1","graph":"ok","seq":1,"resources":[{"kind":"noop","name":"n"}]}`
	tests := []struct{ name, in, want string }{
		{"truncated JSON", `{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"noop"`, "in:1:67: unexpected end of JSON document"},
		{"wrong type", `{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"noop","name":3}]}`, "in:1:75: resources[0].name: got number, want string"},
		{"wrong param type", `{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"file","name":"/x","params":{"recurse":"yes"}}]}`, `in:1:53: file[/x]: parameter "recurse": got str, want bool`},
		{"unknown param", `{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"file","name":"/x","params":{"stat":"exists"}}]}`, `unknown parameter "stat" (did you mean "state"?)`},
		{"unknown mgmt tag", `{"mgmt":"graph/v0","graph":"g","seq":1}`, `in:1:1: unknown mgmt tag "graph/v0", want "graph/v1"`},
		{"duplicate names", `{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"noop","name":"n","pos":"a.mcl:1:1"},{"kind":"noop","name":"n","params":{"comment":"x"},"pos":"a.mcl:2:1"}]}`,
			"a.mcl:2:1: duplicate resource noop[n] differs from the one at a.mcl:1:1"},
		{"cycle", `{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"noop","name":"a"},{"kind":"noop","name":"b"}],"edges":[{"from":{"kind":"noop","name":"a"},"to":{"kind":"noop","name":"b"}},{"from":{"kind":"noop","name":"b"},"to":{"kind":"noop","name":"a"}}]}`,
			"in:1:53: cycle: noop[a] -> noop[b] -> noop[a]"},
		{"edge to nowhere", `{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"noop","name":"a"}],"edges":[{"from":{"kind":"noop","name":"a"},"to":{"kind":"noop","name":"z"}}]}`,
			"in:1:90: edge noop[a] -> noop[z]: no resource noop[z]"},
		{"binary garbage", "\x7fELF\x02\x01\x01\x00\x00\x00", "in:1: control characters are not allowed"},
		{"binary after JSON", ok + "\n\x00\x00\xff\xfe", "in:2:1: expected '{' to start a JSON graph document, got byte 0x00"},
		{"yaml syntax", "graph: g\nresources:\n  noop:\n  - name: [\n", "in:5: did not find expected node content"},
		{"yaml wrong type", "graph: g\nresources:\n  noop:\n  - name: n\n    meta: {retry: many}\n", "in:5:19: meta.retry: got string, want integer (int16)"},
		{"yaml list", "- a\n- b\n", "in:1:1: document: got sequence, want mapping"},
		{"invalid UTF-8 in a JSON name", `{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"file","name":"/tmp/a` + "\xff" + `"}]}`, "in:1:82: invalid UTF-8 byte 0xff in string literal"},
		{"invalid UTF-8 in a YAML name", "graph: g\nresources:\n  file:\n  - name: /tmp/a\xfe\n", "in:4:17: invalid UTF-8 byte 0xfe"},
		{"bad kind", `{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"No-op","name":"a"}]}`, `bad resource kind "No-op"`},
		{"empty input", "", "in: input ended without a valid graph"},
		// MGMT_MAX_DOCUMENT_MIB=1 below
		{"document too large", ok + "\n" + `{"mgmt":"graph/v1","graph":"g","seq":2,"resources":[` + strings.Repeat(`{"kind":"noop","name":"n"},`, 80000) + "]}\n",
			"in:2:1: document larger than 1 MiB (--max-document-mib): skipped to its end"},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := filepath.Join(dir, "in")
			if err := os.WriteFile(in, []byte(tt.in), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(testutil.Bin(t, "graph-merge"), "in")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "MGMT_MAX_DOCUMENT_MIB=1")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			se := stderr.String()
			if !strings.Contains(se, tt.want) {
				t.Errorf("stderr %q lacks %q", se, tt.want)
			}
			if strings.Contains(se, "panic") || strings.Contains(se, "goroutine ") {
				t.Errorf("stack trace: %s", se)
			}
			for _, line := range strings.Split(strings.TrimSpace(se), "\n") {
				if !errLine.MatchString(line) && !strings.HasSuffix(line, "input ended without a valid graph") {
					t.Errorf("error line without position: %q", line)
				}
			}
			for _, d := range decode(t, stdout.String()) {
				if !d.IsError() && d.Graph != "ok" {
					t.Errorf("a graph came out of bad input: %+v", d)
				}
			}
		})
	}
}

// TestStreamingFifos drives the binary through two fifos and checks that a
// merged graph comes out after each new input graph.
func TestStreamingFifos(t *testing.T) {
	dir := t.TempDir()
	fa, fb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, p := range []string{fa, fb} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatalf("mkfifo: %v", err)
		}
	}
	cmd := exec.Command(testutil.Bin(t, "graph-merge"), "-o", "yaml", fa, fb)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	docs := make(chan *graph.Document, 8)
	go func() {
		defer close(docs)
		dec := graph.NewDecoder(bufio.NewReader(out), "stdout")
		for {
			d, err := dec.Next()
			if err == io.EOF {
				return
			}
			if err == nil {
				docs <- d
			}
		}
	}()
	next := func() *graph.Document {
		t.Helper()
		select {
		case d, ok := <-docs:
			if !ok {
				t.Fatalf("output ended; stderr: %s", stderr.String())
			}
			return d
		case <-time.After(30 * time.Second):
			t.Fatalf("no document within 30s; stderr: %s", stderr.String())
		}
		return nil
	}
	wa, err := os.OpenFile(fa, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	wb, err := os.OpenFile(fb, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// a speaks JSON lines, b graph.yaml ending each document with "...".
	io.WriteString(wa, `{"mgmt":"graph/v1","graph":"a","seq":1,"resources":[{"kind":"noop","name":"one"}]}`+"\n")
	io.WriteString(wb, "---\ngraph: b\nresources:\n  noop:\n  - name: two\n...\n")
	if d := next(); d.IsError() || len(d.Resources) != 2 || d.Graph != "a+b" {
		t.Fatalf("first merge: %+v", d)
	}
	io.WriteString(wb, "---\ngraph: b\nresources:\n  noop:\n  - name: three\n...\n")
	if d := next(); len(d.Resources) != 2 || d.Resources[1].Name != "three" || d.Seq != 2 {
		t.Fatalf("second merge: %+v", d.Resources)
	}
	io.WriteString(wa, "{\"mgmt\":\"graph/v1\",\"graph\":\"a\",\"seq\":2,\"resources\":[\n")
	io.WriteString(wa, `{"mgmt":"graph/v1","graph":"a","seq":3,"resources":[{"kind":"noop","name":"four"}]}`+"\n")
	if d := next(); !d.IsError() || d.Error.Pos != fa+":2:53" {
		t.Fatalf("truncated document not reported: %+v", d.Error)
	}
	if d := next(); d.IsError() || d.Resources[0].Name != "four" {
		t.Fatalf("merge after recovery: %+v", d)
	}
	wa.Close()
	wb.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("graph-merge: %v: %s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("graph-merge did not exit when its inputs closed")
	}
}

func TestHelpAndVersion(t *testing.T) {
	if r := testutil.Run(t, "", "graph-merge", "--help"); r.Code != 0 || !strings.Contains(r.Stdout, "--allow-unmatched") {
		t.Errorf("--help: %d %s", r.Code, r.Stdout)
	}
	if r := testutil.Run(t, "", "graph-merge", "--version"); r.Code != 0 || !strings.HasPrefix(r.Stdout, "graph-merge ") {
		t.Errorf("--version: %d %s", r.Code, r.Stdout)
	}
	if r := testutil.Run(t, "", "graph-merge", "--bogus"); r.Code != 2 {
		t.Errorf("--bogus: exit %d", r.Code)
	}
}

func TestUnmatched(t *testing.T) {
	lang := filepath.Join(t.TempDir(), "lang.json")
	os.WriteFile(lang, []byte(`{"mgmt":"graph/v1","graph":"lang","seq":1,"resources":[{"kind":"noop","name":"puppet_other","pos":"main.mcl:3:1"}]}`+"\n"), 0o644)
	r := testutil.Run(t, "", "graph-merge", lang, testdata("ex2.mgmtgraph.yaml"))
	if r.Code != 1 || !strings.Contains(r.Stderr, "unmatched class mgmt_handover_to_mgmt") || !strings.Contains(r.Stderr, "main.mcl:3:1: unmatched noop noop[puppet_other]: no class mgmt_other in any input (noop[puppet_other] from ") {
		t.Errorf("exit %d: %s", r.Code, r.Stderr)
	}
	r = testutil.Run(t, "", "graph-merge", "--allow-unmatched", lang, testdata("ex2.mgmtgraph.yaml"))
	if r.Code != 0 || strings.Count(r.Stderr, " WARN   graph-merge: ") != 2 {
		t.Errorf("--allow-unmatched: exit %d: %s", r.Code, r.Stderr)
	}
	if d := decode(t, r.Stdout); len(d) != 1 || !strings.Contains(summary(d[0]), "noop[puppet_other]") || !strings.Contains(summary(d[0]), "admissible_Class[Mgmt_handover_to_mgmt]") {
		t.Errorf("unmatched vertices not kept: %s", r.Stdout)
	}
}
