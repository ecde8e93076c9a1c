package cluster

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/world"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// privateSeed returns the client URL of the private world under prefix,
// once a running tool has started it there.
func privateSeed(t *testing.T, prefix string) string {
	t.Helper()
	lay, err := world.PrefixLayout(prefix)
	if err != nil {
		t.Fatal(err)
	}
	var url string
	eventually(t, 30*time.Second, func() error {
		b, err := os.ReadFile(lay.URLFile())
		if err != nil {
			return err
		}
		url = strings.TrimSpace(string(b))
		return nil
	})
	return url
}

// exportedFiles returns the keys (relative to the namespace) of the
// files exported in the world at seed, by exporting host and file name.
// The exporting host is the key's host segment that is not "*" (all the
// files of these tests are exported to every host).
func exportedFiles(t *testing.T, seed string) map[[2]string]string {
	t.Helper()
	r := ctl(t, "", "get", "--prefix", "--seeds", seed, "")
	if r.Code != 0 {
		t.Fatalf("mgmt-cluster get: exit %d: %s", r.Code, r.Stderr)
	}
	out := map[[2]string]string{}
	for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		k, _, _ := strings.Cut(l, "\t")
		// exports dir, two host segments, kind, name (with slashes)
		parts := strings.SplitN(k, "/", 5)
		if len(parts) < 5 || parts[3] != "file" {
			continue
		}
		host := parts[1]
		if host == "*" {
			host = parts[2]
		}
		out[[2]string{host, parts[4]}] = k
	}
	return out
}

// waitExported waits until every file of files (host, name) is exported
// at seed and returns their keys.
func waitExported(t *testing.T, seed string, files ...[2]string) map[[2]string]string {
	t.Helper()
	var have map[[2]string]string
	eventually(t, 30*time.Second, func() error {
		have = exportedFiles(t, seed)
		for _, f := range files {
			if _, ok := have[f]; !ok {
				return fmt.Errorf("%s of %s not exported; have %v", f[1], f[0], have)
			}
		}
		return nil
	})
	return have
}

// exportDoc is a graph document exporting files to every host, hidden
// here; each file is name -> params.
func exportDoc(t *testing.T, files map[string]map[string]any) string {
	t.Helper()
	var rs []map[string]any
	for name, params := range files {
		rs = append(rs, map[string]any{"kind": "file", "name": name, "params": params,
			"meta": map[string]any{"export": []string{"*"}, "hidden": true}})
	}
	b, err := json.Marshal(map[string]any{"mgmt": "graph/v1", "graph": "g", "seq": 1, "resources": rs})
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// TestCollectChecks runs two exporting hosts, "evil" and "trusted", on a
// private world (mgmt-apply --prefix), and a third, "web", whose program
// collects their files with mcl-compile and applies them with
// mgmt-apply. evil exports a file named like one web asks for whose path
// points elsewhere with a setuid mode: web must drop it with an error
// naming evil and the key, and still apply the rest of the collection.
// With --collect-from=trusted, web takes nothing from evil; a statement
// naming (name, host) pairs takes each name only from its host.
func TestCollectChecks(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts an etcd member")
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "world")
	www, other := filepath.Join(dir, "www"), filepath.Join(dir, "other")
	index, ok, fromEvil := www+"/index.html", www+"/ok.html", www+"/evil.html"
	if err := os.Mkdir(www, 0o755); err != nil {
		t.Fatal(err)
	}
	evil := testutil.Start(t, "mgmt-apply", "--prefix", prefix, "--hostname", "evil")
	evil.Write(exportDoc(t, map[string]map[string]any{
		index:    {"path": other, "mode": "4755", "content": "#!/bin/sh\nid\n", "state": "exists"},
		fromEvil: {"content": "evil\n", "state": "exists"},
	}))
	seed := privateSeed(t, prefix)
	trusted := testutil.Start(t, "mgmt-apply", "--prefix", prefix, "--hostname", "trusted")
	trusted.Write(exportDoc(t, map[string]map[string]any{ok: {"content": "ok\n", "state": "exists"}}))
	keys := waitExported(t, seed, [2]string{"evil", index}, [2]string{"evil", fromEvil}, [2]string{"trusted", ok})
	indexKey := keys[[2]string{"evil", index}]

	// collect runs mcl-compile --once as web on the program src and
	// applies its graph.
	collect := func(t *testing.T, src string, extra ...string) (graphDoc, log string) {
		t.Helper()
		main := filepath.Join(t.TempDir(), "main.mcl")
		if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"--prefix", prefix, "--hostname", "web", "--once"}, extra...)
		c := testutil.Run(t, "", "mcl-compile", append(args, main)...)
		if c.Code != 0 {
			t.Fatalf("mcl-compile: exit %d:\n%s", c.Code, c.Stderr)
		}
		a := testutil.Run(t, c.Stdout, "mgmt-apply", "--prefix", t.TempDir(), "--converged-timeout", "0")
		if a.Code != 0 {
			t.Fatalf("mgmt-apply: exit %d:\n%s\ngraph: %s", a.Code, a.Stderr, c.Stdout)
		}
		return c.Stdout, c.Stderr
	}
	all := fmt.Sprintf("collect file [%q, %q, %q] {}\n", index, ok, fromEvil)
	t.Run("redirect", func(t *testing.T) {
		graphDoc, log := collect(t, all)
		if _, err := os.Stat(other); err == nil {
			t.Fatalf("a collected file was written at %s, not at its name:\n%s\n%s", other, graphDoc, log)
		}
		if _, err := os.Stat(index); err == nil {
			t.Fatalf("the refused file was applied at %s", index)
		}
		if !strings.Contains(log, "host evil") || !strings.Contains(log, "/_mgmt/"+indexKey) || !strings.Contains(log, "path") {
			t.Fatalf("the refusal does not name the exporter, the key and the parameter:\n%s", log)
		}
		for f, want := range map[string]string{ok: "ok\n", fromEvil: "evil\n"} {
			if b, err := os.ReadFile(f); err != nil || string(b) != want {
				t.Fatalf("%s = %q, %v: the rest of the collection was not applied\n%s", f, b, err, log)
			}
		}
		os.Remove(fromEvil)
	})
	t.Run("collect-from", func(t *testing.T) {
		graphDoc, log := collect(t, all, "--collect-from", "trusted")
		if strings.Contains(graphDoc, fromEvil) || strings.Contains(graphDoc, index) {
			t.Fatalf("the graph holds a resource from a host not in --collect-from:\n%s", graphDoc)
		}
		if _, err := os.Stat(fromEvil); err == nil {
			t.Fatalf("%s from evil was applied with --collect-from=trusted", fromEvil)
		}
		if b, err := os.ReadFile(ok); err != nil || string(b) != "ok\n" {
			t.Fatalf("%s from trusted = %q, %v", ok, b, err)
		}
		if !strings.Contains(log, "host evil") || !strings.Contains(log, "collect-from") {
			t.Fatalf("the log does not say what was ignored and why:\n%s", log)
		}
	})
	// The statement itself can name the host of each resource.
	t.Run("pairs", func(t *testing.T) {
		graphDoc, _ := collect(t, fmt.Sprintf("collect file [struct{name => %q, host => \"evil\",}, struct{name => %q, host => \"evil\",},] {}\n", ok, fromEvil))
		if strings.Contains(graphDoc, ok) || !strings.Contains(graphDoc, fromEvil) {
			t.Fatalf("collecting (%s, evil) and (%s, evil) gave:\n%s", ok, fromEvil, graphDoc)
		}
	})
	evil.Signal(syscall.SIGTERM)
	trusted.Signal(syscall.SIGTERM)
	evil.Wait()
	trusted.Wait()
}

// TestNoopExportsNothing runs a host "h" that exports a file, then, beside
// it, mgmt-apply --noop as the same host with a graph exporting another
// file, the way an operator previews a change next to the running daemon.
// The preview must neither export its file nor withdraw the daemon's, not
// even at its exit.
func TestNoopExportsNothing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts an etcd member")
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "world")
	daemon := testutil.Start(t, "mgmt-apply", "--prefix", prefix, "--hostname", "h")
	daemon.Write(exportDoc(t, map[string]map[string]any{dir + "/x": {"content": "x\n"}}))
	seed := privateSeed(t, prefix)
	x, y := [2]string{"h", dir + "/x"}, [2]string{"h", dir + "/y"}
	waitExported(t, seed, x)

	noop := testutil.Start(t, "mgmt-apply", "--noop", "--prefix", prefix, "--hostname", "h")
	noop.Write(exportDoc(t, map[string]map[string]any{dir + "/y": {"content": "y\n"}}))
	noop.WaitLog("noop: not exporting 1 resource", 0)
	check := func(when string) {
		t.Helper()
		have := exportedFiles(t, seed)
		if k, ok := have[y]; ok {
			t.Fatalf("%s: mgmt-apply --noop exported %s", when, k)
		}
		if _, ok := have[x]; !ok {
			t.Fatalf("%s: mgmt-apply --noop withdrew the running host's export of %s; have %v", when, x[1], have)
		}
	}
	check("while it runs")
	noop.Terminate()
	check("after its exit")
	daemon.Signal(syscall.SIGTERM)
	daemon.Wait()
}
