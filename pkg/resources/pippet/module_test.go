package pippet

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/internal/testneed"
)

// debianModules is where Debian installs Puppet modules (.ci/setup.d).
const debianModules = "/usr/share/puppet/modules"

func moduleRes(t *testing.T, typ, title string, params map[string]any, with []companion) *PippetRes {
	t.Helper()
	b, _ := json.Marshal(params)
	r := &PippetRes{Type: typ, Title: title, Params: string(b), ModulePath: debianModules}
	if with != nil {
		c, _ := json.Marshal(with)
		r.Companions = string(c)
	}
	return initRes(t, r, nil)
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestConcatFromModule applies a concat_file (a type of the concat module)
// with its fragments as companions: the noop check creates nothing, the
// apply writes the fragments in order, and the next check is in sync.
func TestConcatFromModule(t *testing.T) {
	needPuppet(t)
	testneed.Path(t, debianModules+"/concat", "puppet-module-puppetlabs-concat")
	p := filepath.Join(t.TempDir(), "conf")
	frag := func(name, order, content string) companion {
		return companion{Type: "concat_fragment", Title: name,
			Params: map[string]any{"target": p, "order": order, "content": content}}
	}
	r := moduleRes(t, "concat_file", p, map[string]any{"mode": "0640"},
		[]companion{frag("b", "20", "second\n"), frag("a", "10", "first\n")})
	if checkApply(t, r, false) {
		t.Fatal("check: a missing concat_file was reported in sync")
	}
	if _, err := os.Stat(p); err == nil {
		t.Fatal("check (noop) created the file")
	}
	if checkApply(t, r, true) {
		t.Fatal("apply reported nothing changed")
	}
	if got := readFile(t, p); got != "first\nsecond\n" {
		t.Fatalf("content %q, want the fragments in order", got)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %o, want 0640", st.Mode().Perm())
	}
	if !checkApply(t, r, false) {
		t.Fatal("check after apply: not in sync")
	}
}

// TestFileLineAndHost run types from stdlib (file_line) and host_core
// (host) on files of the test.
func TestFileLineAndHost(t *testing.T) {
	needPuppet(t)
	testneed.Path(t, debianModules+"/stdlib", "puppet-module-puppetlabs-stdlib")
	testneed.Path(t, debianModules+"/host_core", "puppet-module-puppetlabs-host-core")
	dir := t.TempDir()
	conf := filepath.Join(dir, "app.conf")
	os.WriteFile(conf, []byte("a=1\nport=80\n"), 0o644)
	fl := moduleRes(t, "file_line", "port", map[string]any{"path": conf, "line": "port=8080", "match": "^port="}, nil)
	if checkApply(t, fl, false) {
		t.Fatal("file_line check: in sync before the change")
	}
	checkApply(t, fl, true)
	if got := readFile(t, conf); got != "a=1\nport=8080\n" {
		t.Fatalf("file_line: %q", got)
	}
	hosts := filepath.Join(dir, "hosts")
	os.WriteFile(hosts, nil, 0o644)
	h := moduleRes(t, "host", "db.example", map[string]any{"ip": "192.0.2.7", "target": hosts}, nil)
	checkApply(t, h, true)
	if got := readFile(t, hosts); !strings.Contains(got, "192.0.2.7\tdb.example") {
		t.Fatalf("host: %q", got)
	}
	if !checkApply(t, h, false) {
		t.Fatal("host check after apply: not in sync")
	}
}

// TestModuleSource serves a puppet:///modules source from the module path.
func TestModuleSource(t *testing.T) {
	needPuppet(t)
	mp := t.TempDir()
	files := filepath.Join(mp, "pgtest", "files")
	os.MkdirAll(files, 0o755)
	os.WriteFile(filepath.Join(files, "motd"), []byte("served\n"), 0o644)
	p := filepath.Join(t.TempDir(), "motd")
	b, _ := json.Marshal(map[string]any{"ensure": "file", "source": "puppet:///modules/pgtest/motd"})
	r := initRes(t, &PippetRes{Type: "file", Title: p, Params: string(b), ModulePath: mp}, nil)
	checkApply(t, r, true)
	if got := readFile(t, p); got != "served\n" {
		t.Fatalf("content %q, want the module's file", got)
	}
}

// TestDeferredAndSensitive lets Puppet resolve a Deferred value (catalog
// rich data) and keep a sensitive content out of its messages. The
// Deferred function reads no fact, so the worker gathers none.
func TestDeferredAndSensitive(t *testing.T) {
	needPuppet(t)
	dir := t.TempDir()
	d := filepath.Join(dir, "deferred")
	r := newRes(t, "file", d, map[string]any{"ensure": "file",
		"content": map[string]any{"__ptype": "Deferred", "name": "join", "arguments": []any{[]any{"a", "b"}, "-"}}}, nil)
	checkApply(t, r, true)
	if got := readFile(t, d); got != "a-b" {
		t.Fatalf("deferred content %q, want a-b", got)
	}
	s := filepath.Join(dir, "secret")
	b, _ := json.Marshal(map[string]any{"ensure": "file", "content": "hunter2\n"})
	sr := initRes(t, &PippetRes{Type: "file", Title: s, Params: string(b), Sensitive: []string{"content"}}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req := request{Type: "file", Title: s, Params: map[string]any{"ensure": "file", "content": "hunter2\n"}, Sensitive: []string{"content"}}
	resp, err := sr.w.do(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, s); got != "hunter2\n" {
		t.Fatalf("sensitive content %q", got)
	}
	for _, m := range resp.Messages {
		if strings.Contains(m, "hunter2") {
			t.Errorf("a message shows the sensitive value: %q", m)
		}
	}
}

// TestDeferredReadingFacts resolves a Deferred function that reads $facts
// (through its calling scope, as Puppet gives it to a Deferred function):
// the first resolution, without facts, stops when the function looks at
// them, and the worker resolves it again with the node's facts. Facter
// takes a minute or more on a loaded machine: the deadline is generous.
func TestDeferredReadingFacts(t *testing.T) {
	needPuppet(t)
	mp := t.TempDir()
	fns := filepath.Join(mp, "pgfacts", "lib", "puppet", "functions", "pgfacts")
	os.MkdirAll(fns, 0o755)
	os.WriteFile(filepath.Join(fns, "kernel.rb"), []byte(`Puppet::Functions.create_function(:'pgfacts::kernel', Puppet::Functions::InternalFunction) do
  dispatch :kernel do
    scope_param
  end

  def kernel(scope)
    "kernel=#{scope['facts']['kernel']}"
  end
end
`), 0o644)
	p := filepath.Join(t.TempDir(), "kernel")
	b, _ := json.Marshal(map[string]any{"ensure": "file",
		"content": map[string]any{"__ptype": "Deferred", "name": "pgfacts::kernel"}})
	r := initRes(t, &PippetRes{Type: "file", Title: p, Params: string(b), ModulePath: mp}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if _, err := r.CheckApply(ctx, true); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); got != "kernel=Linux" {
		t.Fatalf("content %q, want kernel=Linux", got)
	}
}

// TestRecursiveCompanions purges a directory through Puppet: a file that
// another resource manages (a companion) stays, an unmanaged one goes.
func TestRecursiveCompanions(t *testing.T) {
	needPuppet(t)
	dir := filepath.Join(t.TempDir(), "d")
	os.MkdirAll(dir, 0o755)
	keep, drop := filepath.Join(dir, "managed"), filepath.Join(dir, "stray")
	os.WriteFile(keep, []byte("mine\n"), 0o644)
	os.WriteFile(drop, []byte("x\n"), 0o644)
	b, _ := json.Marshal(map[string]any{"ensure": "directory", "recurse": true, "purge": true})
	c, _ := json.Marshal([]companion{{Type: "file", Title: keep, Params: map[string]any{}}})
	r := initRes(t, &PippetRes{Type: "file", Title: dir, Params: string(b), Companions: string(c)}, nil)
	checkApply(t, r, true)
	if _, err := os.Stat(drop); err == nil {
		t.Error("the unmanaged file was not purged")
	}
	if got := readFile(t, keep); got != "mine\n" {
		t.Errorf("the managed file was touched: %q", got)
	}
}

// TestUntrustedModulePath refuses a module directory others may write.
func TestUntrustedModulePath(t *testing.T) {
	mp := t.TempDir()
	os.Chmod(mp, 0o777)
	r := &PippetRes{Type: "file", Title: "/x", Params: "{}", ModulePath: mp}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	err := r.Init(nil)
	if err == nil {
		r.Cleanup()
		t.Fatal("a world-writable module path was accepted")
	}
	if !strings.Contains(err.Error(), "writable by group or others") {
		t.Errorf("error %q does not say why", err)
	}
}
