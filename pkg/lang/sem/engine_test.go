package sem_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/sem"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// feeds are the test streams: enginetest.feed(name) emits what the test
// sends on feeds[name] and closes when the channel is closed.
var (
	feedMu sync.Mutex
	feeds  = map[string]chan string{}
	active = map[string]int{}
)

func feed(name string) chan string {
	feedMu.Lock()
	defer feedMu.Unlock()
	if feeds[name] == nil {
		feeds[name] = make(chan string)
	}
	return feeds[name]
}

func activeCount(name string) int {
	feedMu.Lock()
	defer feedMu.Unlock()
	return active[name]
}

func init() {
	funcs.RegisterStream("enginetest", "feed", "func(name str) str", func(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
		name := string(c.Args[0].(values.Str))
		ch := feed(name)
		feedMu.Lock()
		active[name]++
		feedMu.Unlock()
		defer func() {
			feedMu.Lock()
			active[name]--
			feedMu.Unlock()
		}()
		for {
			select {
			case <-ctx.Done():
				return nil
			case v, ok := <-ch:
				if !ok {
					return nil
				}
				emit(values.Str(v))
			}
		}
	})
}

type runner struct {
	docs   chan *graph.Document
	done   chan error
	cancel context.CancelFunc
}

func start(t *testing.T, src string) *runner {
	t.Helper()
	path := filepath.Join(t.TempDir(), "main.mcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	prog, err := sem.Check(path, nil, sem.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	r := &runner{docs: make(chan *graph.Document, 100), done: make(chan error, 1), cancel: cancel}
	go func() {
		r.done <- sem.NewEngine(prog).Run(ctx, false, func(d *graph.Document) error {
			r.docs <- d
			return nil
		})
	}()
	return r
}

// next waits for the next document and returns its graph lines.
func (r *runner) next(t *testing.T) string {
	t.Helper()
	select {
	case d := <-r.docs:
		return graphLines(d)
	case err := <-r.done:
		t.Fatalf("engine stopped: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no document within 10s")
	}
	return ""
}

func waitActive(t *testing.T, name string, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for activeCount(name) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d active streams, want %d", name, activeCount(name), want)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestEngineStream: each new stream value gives a new document, an equal
// value gives none, and the engine exits once the stream closes.
func TestEngineStream(t *testing.T) {
	r := start(t, "import \"enginetest\"\n$v = enginetest.feed(\"s1\")\ntest [$v] {}\n")
	ch := feed("s1")
	ch <- "x"
	if got := r.next(t); got != "Vertex: test[x]\n" {
		t.Fatalf("got %q", got)
	}
	ch <- "x" // same value: no document
	ch <- "y"
	if got := r.next(t); got != "Vertex: test[y]\n" {
		t.Fatalf("got %q", got)
	}
	close(ch)
	select {
	case err := <-r.done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("engine did not exit after its only stream closed")
	}
	if len(r.docs) != 0 {
		t.Fatalf("extra document: %v", graphLines(<-r.docs))
	}
}

// TestEngineJoinsStreams: when Run returns, every stream it started has
// returned too (none is left running behind it).
func TestEngineJoinsStreams(t *testing.T) {
	r := start(t, "import \"enginetest\"\n$a = enginetest.feed(\"j1\")\n$b = enginetest.feed(\"j2\")\ntest [$a, $b,] {}\n")
	feed("j1") <- "x"
	feed("j2") <- "y"
	if got := r.next(t); got != "Vertex: test[x]\nVertex: test[y]\n" {
		t.Fatalf("got %q", got)
	}
	r.cancel()
	select {
	case err := <-r.done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
	if n := activeCount("j1") + activeCount("j2"); n != 0 {
		t.Fatalf("%d streams still running after Run returned", n)
	}
}

// TestEngineBranchTeardown: a stream in a branch that is no longer taken
// is stopped, and started again when the branch comes back.
func TestEngineBranchTeardown(t *testing.T) {
	r := start(t, `import "enginetest"
$c = enginetest.feed("cond")
test [if $c == "on" { enginetest.feed("inner") } else { "off" }] {}
`)
	cond, inner := feed("cond"), feed("inner")
	cond <- "on"
	waitActive(t, "inner", 1)
	inner <- "a"
	if got := r.next(t); got != "Vertex: test[a]\n" {
		t.Fatalf("got %q", got)
	}
	cond <- "off"
	if got := r.next(t); got != "Vertex: test[off]\n" {
		t.Fatalf("got %q", got)
	}
	waitActive(t, "inner", 0)
	cond <- "on"
	waitActive(t, "inner", 1)
	inner <- "b"
	if got := r.next(t); got != "Vertex: test[b]\n" {
		t.Fatalf("got %q", got)
	}
}

// TestEngineArgChange: a stream whose argument changes is restarted with
// the new argument.
func TestEngineArgChange(t *testing.T) {
	r := start(t, `import "enginetest"
$name = enginetest.feed("which")
test [enginetest.feed($name)] {}
`)
	which := feed("which")
	which <- "first"
	waitActive(t, "first", 1)
	feed("first") <- "1"
	if got := r.next(t); got != "Vertex: test[1]\n" {
		t.Fatalf("got %q", got)
	}
	which <- "second"
	waitActive(t, "second", 1)
	waitActive(t, "first", 0)
	feed("second") <- "2"
	if got := r.next(t); got != "Vertex: test[2]\n" {
		t.Fatalf("got %q", got)
	}
}

// TestHistory: history($v, ms) follows $v with a delay, on one stream
// (the call keeps running when its argument changes).
func TestHistory(t *testing.T) {
	r := start(t, "import \"enginetest\"\n$v = enginetest.feed(\"hist\")\ntest [history($v, 100)] {}\n")
	ch := feed("hist")
	ch <- "a"
	if got := r.next(t); got != "Vertex: test[a]\n" {
		t.Fatalf("got %q", got)
	}
	sent := time.Now()
	ch <- "b"
	if got := r.next(t); got != "Vertex: test[b]\n" {
		t.Fatalf("got %q", got)
	}
	if d := time.Since(sent); d < 100*time.Millisecond {
		t.Fatalf("the new value came after %v, before the 100ms of history", d)
	}
}

// waitLines waits, up to the deadline, for a document whose graph lines are
// want, skipping the documents before it.
func (r *runner) waitLines(t *testing.T, want string, deadline time.Duration) {
	t.Helper()
	timeout := time.After(deadline)
	got := ""
	for {
		select {
		case d := <-r.docs:
			if got = graphLines(d); got == want {
				return
			}
		case err := <-r.done:
			t.Fatalf("engine stopped: %v (last graph %q, want %q)", err, got, want)
		case <-timeout:
			t.Fatalf("no graph %q within %v (last %q)", want, deadline, got)
		}
	}
}

// TestReadfileFallback: os.readfile of a missing file is a catchable value
// of its stream, so `<|>` gives the default while the file is missing, the
// content once it appears, and the default again when it goes.
func TestReadfileFallback(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "input")
	r := start(t, `import "os"
test [os.readfile("`+path+`") <|> "default",] {}
`)
	const deadline = 60 * time.Second
	r.waitLines(t, "Vertex: test[default]\n", deadline)
	for round := 0; round < 2; round++ {
		tmp := filepath.Join(dir, "tmp")
		if err := os.WriteFile(tmp, []byte("recovered"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil { // appears whole
			t.Fatal(err)
		}
		r.waitLines(t, "Vertex: test[recovered]\n", deadline)
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		r.waitLines(t, "Vertex: test[default]\n", deadline)
	}
}

// TestDuplicateAdapts: a package declared installed (by default) and newest
// is one resource wanting it newest, whichever declaration comes first.
func TestDuplicateAdapts(t *testing.T) {
	for _, src := range []string{
		"pkg \"cowsay\" {}\npkg \"cowsay\" {\n\tstate => \"newest\",\n}\n",
		"pkg \"cowsay\" {\n\tstate => \"newest\",\n}\npkg \"cowsay\" {}\n",
	} {
		r := start(t, src)
		var doc *graph.Document
		select {
		case doc = <-r.docs:
		case err := <-r.done: // a program without streams ends after its document
			select {
			case doc = <-r.docs:
			default:
				t.Fatalf("engine stopped without a document: %v", err)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("no document within 60s")
		}
		if len(doc.Resources) != 1 || doc.Resources[0].Params["state"] != "newest" {
			var b strings.Builder
			graph.Encode(&b, doc, graph.JSON)
			t.Errorf("%q gives %s; want pkg[cowsay] with state newest", src, b.String())
		}
		r.cancel()
	}
}
