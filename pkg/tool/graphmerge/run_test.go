package graphmerge

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const (
	docA = `{"mgmt":"graph/v1","graph":"a","seq":1,"resources":[{"kind":"file","name":"/a"}]}` + "\n"
	docB = `{"mgmt":"graph/v1","graph":"b","seq":1,"resources":[{"kind":"file","name":"/b"}]}` + "\n"
)

func TestRunFiles(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.json", docA)
	out, errs, code := run(t, docB, a, "-")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	d, err := graph.ReadAll(strings.NewReader(out), "out")
	if err != nil || len(d) != 1 || d[0].Graph != "a+b" || len(d[0].Resources) != 2 || d[0].Seq != 1 {
		t.Fatalf("output %q (%v)", out, err)
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.json", docA)
	bad := writeFile(t, dir, "bad.json", `{"mgmt":"graph/v1","graph":"x","resources":[{"kind":"file","name":"/x"}],"edges":[{"from":{"kind":"file","name":"/x"},"to":{"kind":"file","name":"/y"}}]}`+"\n")
	tests := []struct {
		name     string
		args     []string
		code     int
		wantErr  string
		wantDocs int
	}{
		{"missing file", []string{a, filepath.Join(dir, "nope")}, 1, "nope: open", 0},
		{"edge to nowhere", []string{a, bad}, 1, "graph-merge: " + bad + ":1:83: edge file[/x] -> file[/y]: no resource file[/y]\n", 1},
		{"usage", []string{"-o", "xml", a}, 2, "graph-merge: --output must be one of", 0},
		{"no inputs", nil, 2, "expected", 0},
		{"two stdins", []string{"-", "-"}, 2, "stdin (-) given more than once", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := run(t, "", tt.args...)
			if code != tt.code || !strings.Contains(errs, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, errs, tt.code, tt.wantErr)
			}
			if n := strings.Count(out, "\n"); n != tt.wantDocs {
				t.Errorf("%d documents out, want %d: %s", n, tt.wantDocs, out)
			}
		})
	}
}

func TestRunOutputFormats(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.json", docA)
	for f, want := range map[string]string{"yaml": "---\nmgmt: graph/v1\n", "dot": "digraph \"a\" {\n", "json": `{"mgmt":"graph/v1","graph":"a",`} {
		out, errs, code := run(t, "", "-o", f, a)
		if code != 0 || !strings.HasPrefix(out, want) {
			t.Errorf("-o %s: exit %d %s: %q", f, code, errs, out)
		}
	}
}

// lines reads output documents as they arrive.
func lines(r io.Reader) <-chan *graph.Document {
	ch := make(chan *graph.Document, 16)
	go func() {
		defer close(ch)
		dec := graph.NewDecoder(r, "out")
		for {
			d, err := dec.Next()
			if err != nil {
				return
			}
			ch <- d
		}
	}()
	return ch
}

func next(t *testing.T, ch <-chan *graph.Document) *graph.Document {
	t.Helper()
	select {
	case d, ok := <-ch:
		if !ok {
			t.Fatal("output ended")
		}
		return d
	case <-time.After(20 * time.Second):
		t.Fatal("no output document within 20s")
	}
	return nil
}

func names(d *graph.Document) string {
	var s []string
	for _, r := range d.Resources {
		s = append(s, r.Name)
	}
	return strings.Join(s, ",")
}

func TestRunStreamingFifos(t *testing.T) {
	dir := t.TempDir()
	fa, fb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, p := range []string{fa, fb} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatalf("mkfifo: %v", err)
		}
	}
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Run(context.Background(), []string{fa, fb}, strings.NewReader(""), pw, &stderr)
		pw.Close()
	}()
	out := lines(pr)
	wa, err := os.OpenFile(fa, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	wb, err := os.OpenFile(fb, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	write := func(w io.Writer, s string) {
		t.Helper()
		if _, err := io.WriteString(w, s); err != nil {
			t.Fatal(err)
		}
	}
	write(wa, docA)
	write(wb, docB)
	if d := next(t, out); d.IsError() || names(d) != "/a,/b" || d.Seq != 1 {
		t.Fatalf("first merge: %+v", d)
	}
	write(wa, strings.Replace(docA, `"/a"}`, `"/a"},{"kind":"file","name":"/a2"}`, 1))
	if d := next(t, out); names(d) != "/a,/a2,/b" || d.Seq != 2 {
		t.Fatalf("second merge: %s", names(d))
	}
	write(wb, `{"mgmt":"graph/v1","graph":"b","seq":2,"error":{"message":"boom","pos":"b.mcl:3:4"}}`+"\n")
	if d := next(t, out); !d.IsError() || d.Error.Message != fb+": boom" || d.Error.Pos != "b.mcl:3:4" {
		t.Fatalf("error document not passed on: %+v", d.Error)
	}
	write(wa, "{\"mgmt\":\"graph/v1\",\"graph\":\"a\",\"resources\":[{\"kind\":\"file\",\"name\":\"/a3\"}]}\n")
	// b is still failing: no merge, and a's good graph is remembered.
	write(wa, "{not json}\n")
	if d := next(t, out); !d.IsError() || d.Error.Pos != fa+":4:2" {
		t.Fatalf("bad document: %+v", d.Error)
	}
	write(wa, "{\"mgmt\":\"graph/v1\",\"graph\":\"a\",\"resources\":[{\"kind\":\"file\",\"name\":\"/a4\"}]}\n")
	write(wb, docB)
	if d := next(t, out); d.IsError() || names(d) != "/a4,/b" {
		t.Fatalf("merge after recovery: %+v %+v", names(d), d.Error)
	}
	wa.Close()
	wb.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d: %s", code, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("graph-merge did not exit after its inputs closed")
	}
	if !strings.Contains(stderr.String(), "graph-merge: b.mcl:3:4: "+fb+": boom") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

func TestRunEndsWithoutGraph(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.json", docA)
	e := writeFile(t, dir, "e.json", `{"mgmt":"graph/v1","graph":"e","error":{"message":"nope"}}`+"\n")
	out, errs, code := run(t, "", a, e)
	if code != 1 || !strings.Contains(errs, e+": input ended without a valid graph") {
		t.Errorf("exit %d: %s", code, errs)
	}
	var d graph.Document
	if err := json.Unmarshal([]byte(out), &d); err != nil || !d.IsError() {
		t.Errorf("output %q", out)
	}
}
