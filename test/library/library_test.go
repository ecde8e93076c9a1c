// Package library holds end-to-end tests of the mcl function library with
// the real tools: mcl-compile piped into mgmt-apply, sharing a state
// directory, with the library's streams reacting to changes on the system.
package library

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/internal/fswatch"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// requireLibrary fails when mcl-compile is built without the library
// modules (pkg/tool/mclcompile imports pkg/lang/funcs/library).
func requireLibrary(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "probe.mcl")
	if err := os.WriteFile(p, []byte("import \"regexp\"\n$x = regexp.match(\"a\", \"a\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := testutil.Run(t, "", "mcl-compile", "--check", p); r.Code != 0 {
		t.Fatalf("mcl-compile lacks the library modules: %s", strings.TrimSpace(r.Stderr))
	}
}

// pipeline runs mcl-compile on src piped into mgmt-apply, both with the
// state directory prefix, until the test ends.
func pipeline(t *testing.T, src, prefix string) {
	t.Helper()
	dir := t.TempDir()
	main := filepath.Join(dir, "main.mcl")
	if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	compile := exec.Command(testutil.Bin(t, "mcl-compile"), "--prefix", prefix, main)
	apply := exec.Command(testutil.Bin(t, "mgmt-apply"), "--prefix", prefix)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	compile.Stdout, apply.Stdin = w, r
	var logs strings.Builder
	compile.Stderr, apply.Stderr = &lockedWriter{b: &logs}, &lockedWriter{b: &logs}
	if err := compile.Start(); err != nil {
		t.Fatal(err)
	}
	if err := apply.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r.Close()
	t.Cleanup(func() {
		compile.Process.Kill()
		compile.Wait()
		apply.Process.Kill()
		apply.Wait()
		if t.Failed() {
			t.Logf("tool output:\n%s", logs.String())
		}
	})
}

// waitContent waits until the file p holds want, re-reading it on each
// inotify event in its directory.
func waitContent(t *testing.T, p, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var got []byte
	found := errors.New("found")
	err := fswatch.Follow(ctx, p, func() error {
		got, _ = os.ReadFile(p)
		if string(got) == want {
			return found
		}
		return nil
	})
	if err != found {
		t.Fatalf("%s holds %q, want %q", p, got, want)
	}
}

// storeValue writes a value into the store as the value resource does.
func storeValue(t *testing.T, prefix, key, js string) {
	t.Helper()
	dir := filepath.Join(prefix, "value")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, ".tmp-e2e")
	if err := os.WriteFile(tmp, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, key)); err != nil {
		t.Fatal(err)
	}
}

// TestValueStoreLoop checks the value store across the two tools: a value
// resource applied by mgmt-apply is read back by value.get_str in
// mcl-compile, and a value written by someone else changes the managed
// file without a restart.
func TestValueStoreLoop(t *testing.T) {
	requireLibrary(t)
	prefix := t.TempDir()
	out := t.TempDir()
	src := `import "value"
import "fmt"

value "from-apply" {
	str => "written by mgmt-apply",
}
$a = value.get_str("from-apply")
$b = value.get_int("counter")
file "` + out + `/a" {
	state => "exists",
	content => if $a->ready { $a->value } else { "not yet" },
}
file "` + out + `/b" {
	state => "exists",
	content => fmt.printf("counter %d ready %t", $b->value, $b->ready),
}
`
	pipeline(t, src, prefix)
	waitContent(t, filepath.Join(out, "a"), "written by mgmt-apply")
	waitContent(t, filepath.Join(out, "b"), "counter 0 ready false")
	storeValue(t, prefix, "counter", "41")
	waitContent(t, filepath.Join(out, "b"), "counter 41 ready true")
	storeValue(t, prefix, "counter", "42")
	waitContent(t, filepath.Join(out, "b"), "counter 42 ready true")
}

// lockedWriter lets two processes' stderr share one buffer.
type lockedWriter struct{ b *strings.Builder }

var logMu = make(chan struct{}, 1)

func (w *lockedWriter) Write(p []byte) (int, error) {
	logMu <- struct{}{}
	defer func() { <-logMu }()
	return w.b.Write(p)
}
