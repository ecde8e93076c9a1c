// Package resources_test runs mgmt-apply on graphs of the core resources
// and checks what happened on the file system.
package resources_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// res and edge build graph documents.
type res struct {
	Kind   string         `json:"kind"`
	Name   string         `json:"name"`
	Params map[string]any `json:"params,omitempty"`
	Meta   map[string]any `json:"meta,omitempty"`
}

type ref struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

type edge struct {
	From   ref    `json:"from"`
	To     ref    `json:"to"`
	Notify bool   `json:"notify,omitempty"`
	Send   string `json:"send,omitempty"`
	Recv   string `json:"recv,omitempty"`
}

func doc(t testing.TB, seq int, rs []res, es []edge) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"mgmt": "graph/v1", "graph": "test", "seq": seq, "resources": rs, "edges": es})
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func start(t testing.TB, args ...string) *testutil.Proc {
	t.Helper()
	return testutil.Start(t, "mgmt-apply", args...)
}

func read(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func perm(p string) os.FileMode {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Mode().Perm()
}

// sampleGraph is a directory with files, an exec whose output lands in a
// file through send/recv, and a notify edge from a file to an exec.
func sampleGraph(dir string) ([]res, []edge) {
	d := dir + "/etc/"
	rs := []res{
		{Kind: "file", Name: d, Params: map[string]any{"state": "exists", "mode": "0755"}},
		{Kind: "file", Name: d + "app.conf", Params: map[string]any{"state": "exists", "content": "port = 80\n", "mode": "0640"}},
		{Kind: "file", Name: d + "motd", Params: map[string]any{"state": "exists", "content": "hello\n"}},
		{Kind: "file", Name: d + "old", Params: map[string]any{"state": "absent"}},
		{Kind: "exec", Name: "version", Params: map[string]any{"cmd": "echo v1.2.3", "shell": "/bin/sh"}},
		{Kind: "file", Name: d + "version", Params: map[string]any{"state": "exists"}},
		{Kind: "exec", Name: "reload", Params: map[string]any{"cmd": "echo reloaded >> " + dir + "/reloads", "shell": "/bin/sh", "cwd": d}},
	}
	es := []edge{
		{From: ref{"exec", "version"}, To: ref{"file", d + "version"}, Send: "output", Recv: "content"},
		{From: ref{"file", d + "app.conf"}, To: ref{"exec", "reload"}, Notify: true},
	}
	return rs, es
}

func TestApplyFromNothing(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(dir+"/etc", 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(dir+"/etc/old", []byte("stale"), 0o644)
	os.RemoveAll(dir + "/etc")
	rs, es := sampleGraph(dir)
	r := testutil.Run(t, doc(t, 1, rs, es), "mgmt-apply", "--tmp-prefix", "--converged-timeout", "1")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	d := dir + "/etc/"
	for p, want := range map[string]string{d + "app.conf": "port = 80\n", d + "motd": "hello\n", d + "version": "v1.2.3\n", dir + "/reloads": "reloaded\n"} {
		if got := read(p); got != want {
			t.Errorf("%s: %q, want %q", p, got, want)
		}
	}
	if m := perm(d + "app.conf"); m != 0o640 {
		t.Errorf("app.conf mode %v", m)
	}
	if m := perm(d); m != 0o755 {
		t.Errorf("directory mode %v", m)
	}
	// The directory came first (autoedge), so nothing failed.
	if strings.Contains(r.Stderr, "error") {
		t.Errorf("errors logged:\n%s", r.Stderr)
	}
}

func TestDriftRepaired(t *testing.T) {
	dir := t.TempDir()
	rs, es := sampleGraph(dir)
	p := start(t, "--tmp-prefix")
	p.Write(doc(t, 1, rs, es))
	conf := dir + "/etc/app.conf"
	p.Until("app.conf written", func() bool { return read(conf) == "port = 80\n" })
	p.WaitLog("exec[reload]: changed", 0)

	for _, drift := range []struct {
		what string
		do   func() error
		ok   func() bool
	}{
		{"edit", func() error { return os.WriteFile(conf, []byte("port = 8080\n"), 0o640) },
			func() bool { return read(conf) == "port = 80\n" }},
		{"delete", func() error { return os.Remove(conf) },
			func() bool { return read(conf) == "port = 80\n" && perm(conf) == 0o640 }},
		{"chmod", func() error { return os.Chmod(conf, 0o666) },
			func() bool { return perm(conf) == 0o640 }},
		{"remove directory", func() error { return os.Rename(dir+"/etc", dir+"/gone") },
			func() bool { return read(conf) == "port = 80\n" && read(dir+"/etc/motd") == "hello\n" }},
	} {
		reloads := strings.Count(read(dir+"/reloads"), "\n")
		if err := drift.do(); err != nil {
			t.Fatal(err)
		}
		p.Until("repair after "+drift.what, drift.ok)
		if drift.what != "chmod" {
			// A content repair of app.conf refreshes the reload exec
			// (refreshes that come while it is due are one).
			p.Until("reload after "+drift.what, func() bool { return strings.Count(read(dir+"/reloads"), "\n") > reloads })
		}
	}
	p.CloseStdin()
	p.Terminate()
}

func TestNoopChangesNothing(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	os.WriteFile(f, []byte("wrong"), 0o600)
	rs := []res{
		{Kind: "file", Name: f, Params: map[string]any{"content": "right", "mode": "0644"}},
		{Kind: "file", Name: dir + "/new", Params: map[string]any{"state": "exists"}},
		{Kind: "exec", Name: "x", Params: map[string]any{"cmd": "touch " + dir + "/ran"}},
	}
	r := testutil.Run(t, doc(t, 1, rs, nil), "mgmt-apply", "--tmp-prefix", "--noop", "--converged-timeout", "1")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	if read(f) != "wrong" || perm(f) != 0o600 {
		t.Fatal("--noop changed the file")
	}
	for _, p := range []string{dir + "/new", dir + "/ran"} {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("--noop created %s", p)
		}
	}
	for _, want := range []string{"file[" + f + "]: would change: content; mode 0600 -> 0644", "file[" + dir + "/new]: would change: created", "exec[x]: would change"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
		}
	}
}

func TestSwapKeepsUnchanged(t *testing.T) {
	dir := t.TempDir()
	p := start(t, "--tmp-prefix")
	a := res{Kind: "file", Name: dir + "/a", Params: map[string]any{"state": "exists", "content": "a"}}
	b := res{Kind: "exec", Name: "b", Params: map[string]any{"cmd": "echo b >> " + dir + "/runs", "shell": "/bin/sh"}}
	p.Write(doc(t, 1, []res{a, b}, nil))
	n := p.WaitLog("exec[b]: changed", 0)
	c := res{Kind: "file", Name: dir + "/c", Params: map[string]any{"state": "exists", "content": "c"}}
	p.Write(doc(t, 2, []res{a, b, c}, nil))
	p.WaitLog("file["+dir+"/c]: changed", n)
	if got := read(dir + "/runs"); got != "b\n" {
		t.Fatalf("the unchanged exec ran again: %q", got)
	}
	// Removing a resource stops it: a later edit of a is no longer repaired.
	m := p.WaitLog("seq 2", 0)
	p.Write(doc(t, 3, []res{b, c}, nil))
	p.WaitLog("seq 3", m)
	os.WriteFile(dir+"/a", []byte("edited"), 0o644)
	os.WriteFile(dir+"/c", []byte("edited"), 0o644)
	p.Until("c repaired", func() bool { return read(dir+"/c") == "c" })
	if read(dir+"/a") != "edited" {
		t.Fatal("a removed resource still repairs its file")
	}
}

func TestSIGTERMLeavesNoTempFiles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	// A sparse 8 MiB source makes each copy take a while without a big
	// graph document.
	const size = 8 << 20
	src := filepath.Join(dir, "src")
	if err := os.WriteFile(src, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(src, size); err != nil {
		t.Fatal(err)
	}
	var rs []res
	for i := 0; i < 30; i++ {
		rs = append(rs, res{Kind: "file", Name: fmt.Sprintf("%s/f%02d", out, i), Params: map[string]any{"state": "exists", "source": src}})
	}
	p := start(t, "--tmp-prefix")
	p.Write(doc(t, 1, rs, nil))
	p.WaitLog(": changed: created", 0)
	p.Signal(syscall.SIGTERM)
	if code := p.Wait(); code != 143 { // the copies were in progress
		t.Fatalf("exit %d after SIGTERM, want 143", code)
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "f") {
			t.Errorf("left behind: %s", e.Name())
		}
		if fi, err := e.Info(); err == nil && fi.Size() != size {
			t.Errorf("%s: partial file of %d bytes", e.Name(), fi.Size())
		}
	}
	t.Logf("%d of %d files written before SIGTERM", len(ents), len(rs))
}

func TestValueAndPassword(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "prefix")
	rs := []res{
		{Kind: "value", Name: "greeting", Params: map[string]any{"str": "hello"}},
		{Kind: "password", Name: "db", Params: map[string]any{"length": 16, "saved": true}},
		{Kind: "file", Name: dir + "/secret", Params: map[string]any{"state": "exists", "mode": "0600"}},
	}
	es := []edge{{From: ref{"password", "db"}, To: ref{"file", dir + "/secret"}, Send: "password", Recv: "content"}}
	r := testutil.Run(t, doc(t, 1, rs, es), "mgmt-apply", "--prefix", prefix, "--converged-timeout", "1")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	if got := read(filepath.Join(prefix, "value", "greeting")); got != `"hello"` {
		t.Fatalf("value store holds %q", got)
	}
	secret := read(dir + "/secret")
	if len(secret) != 16 {
		t.Fatalf("secret %q", secret)
	}
	// A second run keeps the saved password (saved: without it, the
	// password never reaches the disk and a restart makes a new one).
	r = testutil.Run(t, doc(t, 1, rs, es), "mgmt-apply", "--prefix", prefix, "--converged-timeout", "1")
	if r.Code != 0 || read(dir+"/secret") != secret {
		t.Fatalf("second run: exit %d, secret %q (was %q)\n%s", r.Code, read(dir+"/secret"), secret, r.Stderr)
	}
}

func TestTimerRefreshesExec(t *testing.T) {
	for _, meta := range []map[string]any{nil, {"poll": 1}} {
		t.Run(fmt.Sprintf("meta=%v", meta), func(t *testing.T) {
			dir := t.TempDir()
			ticks := filepath.Join(dir, "ticks")
			rs := []res{
				{Kind: "timer", Name: "tick", Params: map[string]any{"interval": 1}, Meta: meta},
				{Kind: "exec", Name: "count", Params: map[string]any{"cmd": "echo tick >> " + ticks, "shell": "/bin/sh"}},
				{Kind: "print", Name: "hello", Params: map[string]any{"msg": "hello from print"}},
			}
			es := []edge{{From: ref{"timer", "tick"}, To: ref{"exec", "count"}, Notify: true}}
			p := start(t, "--tmp-prefix")
			p.Write(doc(t, 1, rs, es))
			p.WaitLog("hello from print", 0)
			n := p.WaitLog("exec[count]: changed", 0) // the first run
			n = p.WaitLog("exec[count]: changed", n)  // a tick's refresh
			p.WaitLog("exec[count]: changed", n)      // and another
			if got := strings.Count(read(ticks), "tick"); got < 3 {
				t.Fatalf("exec ran %d times, want at least 3", got)
			}
		})
	}
}

func TestReverse(t *testing.T) {
	dir := t.TempDir()
	made, edited := dir+"/made", dir+"/edited"
	if err := os.WriteFile(edited, []byte("original\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rev := map[string]any{"reverse": true}
	rs := []res{
		{Kind: "file", Name: made, Params: map[string]any{"state": "exists", "content": "ours\n"}, Meta: rev},
		{Kind: "file", Name: edited, Params: map[string]any{"content": "managed\n", "mode": "0644"}, Meta: rev},
		{Kind: "noop", Name: "keep"},
	}
	p := start(t, "--tmp-prefix")
	p.Write(doc(t, 1, rs, nil))
	p.Until("files managed", func() bool { return read(made) == "ours\n" && read(edited) == "managed\n" && perm(edited) == 0o644 })
	p.Write(doc(t, 2, rs[2:], nil))
	p.Until("reversals applied", func() bool {
		_, err := os.Stat(made)
		return os.IsNotExist(err) && read(edited) == "original\n" && perm(edited) == 0o600
	})
}

func TestYAMLGraph(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "graph.yaml")
	yaml := `---
graph: mygraph
resources:
  file:
  - name: ` + dir + `/conf/
    state: exists
    mode: "0750"
  - name: ` + dir + `/conf/a
    state: exists
    content: |
      first line
      second line
  - name: ` + dir + `/conf/out
    state: exists
  exec:
  - name: hello
    cmd: echo hello from yaml
    shell: /bin/sh
    cwd: ` + dir + `/conf/
edges:
- name: e1
  from:
    kind: exec
    name: hello
  to:
    kind: file
    name: ` + dir + `/conf/out
`
	if err := os.WriteFile(g, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	r := testutil.Run(t, "", "mgmt-apply", "--tmp-prefix", "--converged-timeout", "1", "--file", g)
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	if got := read(dir + "/conf/a"); got != "first line\nsecond line\n" {
		t.Fatalf("content %q", got)
	}
	if m := perm(dir + "/conf"); m != 0o750 {
		t.Fatalf("directory mode %v", m)
	}
	// exec waited for its cwd (autoedge) and ran before out (edge).
	if !strings.Contains(r.Stderr, "exec[hello]: changed") || strings.Contains(r.Stderr, "error") {
		t.Fatalf("stderr:\n%s", r.Stderr)
	}
}

// TestTestKindParams runs a test resource with a value for every parameter
// type it declares, receiving from another one (expectrecv fails the run
// if the value does not arrive).
func TestTestKindParams(t *testing.T) {
	params := map[string]any{
		"bool": true, "str": "s", "int": -1, "int8": 127, "int16": 1, "int32": 1, "int64": 1,
		"uint": 1, "uint8": 255, "uint16": 1, "uint32": 1, "uint64": 9223372036854775807,
		"byte": 1, "rune": 65, "float32": 1.5, "float64": 2.5,
		"boolptr": false, "stringptr": "p", "int64ptr": 42, "int8ptr": -8, "uint8ptr": 8, "int8ptrptrptr": 127,
		"slicestring": []string{"a", "b"}, "mapintfloat": map[string]any{"1": 2.5},
		"mixedstruct": map[string]any{"somebool": true, "somestr": "x", "someint": 3, "somefloat": 1.25},
		"expectrecv":  []string{"anotherstr"}, "onlyshow": []string{"str"},
	}
	rs := []res{
		{Kind: "test", Name: "all", Params: params},
		{Kind: "test", Name: "sender", Params: map[string]any{"sendvalue": "hello"}},
	}
	es := []edge{{From: ref{"test", "sender"}, To: ref{"test", "all"}, Send: "hello", Recv: "anotherstr"}}
	r := testutil.Run(t, doc(t, 1, rs, es), "mgmt-apply", "--tmp-prefix", "--converged-timeout", "0")
	if r.Code != 0 || strings.Contains(r.Stderr, "error") {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	params["uint8"] = 256
	r = testutil.Run(t, doc(t, 1, rs[:1], nil), "mgmt-apply", "--tmp-prefix", "--converged-timeout", "0")
	if r.Code == 0 || !strings.Contains(r.Stderr, "uint8") {
		t.Fatalf("uint8 256 accepted: exit %d\n%s", r.Code, r.Stderr)
	}
}

// TestRecurseDrift copies a source tree with recurse and a mode, then
// repairs, without new input, a chmod deep in the copy and copies a file
// added deep in the source.
func TestRecurseDrift(t *testing.T) {
	dir := t.TempDir()
	src, dst := dir+"/src", dir+"/dst"
	if err := os.MkdirAll(src+"/a/b", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src+"/a/b/deep", []byte("deep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rs := []res{{Kind: "file", Name: dst + "/", Params: map[string]any{"state": "exists", "source": src + "/", "recurse": true, "mode": "0640"}}}
	p := start(t, "--tmp-prefix")
	p.Write(doc(t, 1, rs, nil))
	p.Until("tree copied", func() bool {
		return read(dst+"/a/b/deep") == "deep\n" && perm(dst+"/a/b/deep") == 0o640 && perm(dst+"/a/b") == 0o750
	})
	if err := os.Chmod(dst+"/a/b/deep", 0o666); err != nil {
		t.Fatal(err)
	}
	p.Until("mode repaired", func() bool { return perm(dst+"/a/b/deep") == 0o640 })
	if err := os.WriteFile(src+"/a/b/new", []byte("new\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p.Until("new source file copied", func() bool { return read(dst+"/a/b/new") == "new\n" && perm(dst+"/a/b/new") == 0o640 })
}

// TestFailedResourceRecovers: a file whose directory is missing fails for
// good (no retries), and is created once someone makes the directory: its
// Watch sees the change and gives it another try.
func TestFailedResourceRecovers(t *testing.T) {
	dir := t.TempDir()
	f := dir + "/later/app.conf"
	rs := []res{{Kind: "file", Name: f, Params: map[string]any{"state": "exists", "content": "ok\n"}}}
	p := start(t, "--tmp-prefix")
	p.Write(doc(t, 1, rs, nil))
	p.WaitLog("directory "+dir+"/later does not exist", 0)
	if err := os.Mkdir(dir+"/later", 0o755); err != nil {
		t.Fatal(err)
	}
	p.Until("file created", func() bool { return read(f) == "ok\n" })
}
