package puppetgraph

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const examples = "../../../pkg/puppet/testdata/examples"

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = Run(context.Background(), args, strings.NewReader(""), &o, &e)
	return o.String(), e.String(), code
}

func exampleNames(t *testing.T) []string {
	m, _ := filepath.Glob(examples + "/*.pp")
	if len(m) == 0 {
		t.Fatal("no examples")
	}
	var out []string
	for _, f := range m {
		out = append(out, strings.TrimSuffix(filepath.Base(f), ".pp"))
	}
	return out
}

func decode(t *testing.T, s string) *graph.Document {
	t.Helper()
	docs, err := graph.ReadAll(strings.NewReader(s), "stdout")
	if err != nil || len(docs) != 1 {
		t.Fatalf("decoding output: %v (%d docs)\n%s", err, len(docs), s)
	}
	return docs[0]
}

// noPos re-encodes a document without positions and source.
func noPos(t *testing.T, s string) string {
	d := decode(t, s)
	d.Source = ""
	for _, r := range d.Resources {
		r.Pos = ""
	}
	var b bytes.Buffer
	graph.Encode(&b, d, graph.JSON)
	return b.String()
}

// TestGoldenCatalogs translates the catalogs real Puppet compiled for the
// shared examples and compares with testdata/golden.
func TestGoldenCatalogs(t *testing.T) {
	for _, name := range exampleNames(t) {
		t.Run(name, func(t *testing.T) {
			out, errs, code := run(t, "--catalog", examples+"/"+name+".catalog.json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			golden := filepath.Join("testdata", "golden", name+".json")
			if *update {
				os.WriteFile(golden, []byte(out), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if out != string(want) {
				t.Errorf("output differs from %s:\n%s", golden, out)
			}
		})
	}
}

// TestGoldenNative compiles the example manifests with the native engine:
// the graphs equal the golden ones but for positions.
func TestGoldenNative(t *testing.T) {
	for _, name := range exampleNames(t) {
		t.Run(name, func(t *testing.T) {
			out, errs, code := run(t, "--engine", "native", "--certname", "testnode", examples+"/"+name+".pp")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			want, err := os.ReadFile(filepath.Join("testdata", "golden", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if g, w := noPos(t, out), noPos(t, string(want)); g != w {
				t.Errorf("native output:\n%s\nwant:\n%s", g, w)
			}
		})
	}
}

// TestGoldenPuppet compiles two example manifests with the installed
// Puppet through the tool (puppet catalog compile; each start costs
// seconds, and pkg/puppet's differential test covers the language).
func TestGoldenPuppet(t *testing.T) {
	testneed.Puppet(t)
	if testing.Short() {
		t.Skip("slow: one Puppet start per example")
	}
	for _, name := range []string{"ex3", "metaparams"} {
		t.Run(name, func(t *testing.T) {
			out, errs, code := run(t, "--engine", "puppet", "--certname", "testnode", "--manifest", examples+"/"+name+".pp")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			want, err := os.ReadFile(filepath.Join("testdata", "golden", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if g, w := noPos(t, out), noPos(t, string(want)); g != w {
				t.Errorf("puppet engine output:\n%s\nwant:\n%s", g, w)
			}
		})
	}
}

// translatedNatively maps the vertices the reference translator hands to
// Puppet (pippet) to the ones we translate them to.
var translatedNatively = map[string]string{
	"pippet[Exec[/bin/true]]": "exec[e1]", // refreshonly
}

// TestSameShapeAsReference compares our graphs with the reference
// translator's YAML: the same vertices (kind and name) and the same
// ordering edges. Parameters differ on purpose (notify bodies, exec).
func TestSameShapeAsReference(t *testing.T) {
	for _, name := range exampleNames(t) {
		t.Run(name, func(t *testing.T) {
			out, _, code := run(t, "--catalog", examples+"/"+name+".catalog.json")
			if code != 0 {
				t.Fatal("translation failed")
			}
			f, err := os.Open(examples + "/" + name + ".mgmtgraph.yaml")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			refDocs, err := graph.ReadAll(f, name)
			if err != nil {
				t.Fatal(err)
			}
			got, ref := shape(decode(t, out)), shape(refDocs[0])
			lines := strings.Split(ref, "\n")
			for i := range lines {
				for from, to := range translatedNatively {
					lines[i] = strings.ReplaceAll(lines[i], from, to)
				}
			}
			sort.Strings(lines)
			if ref = strings.Join(lines, "\n"); got != ref {
				t.Errorf("shape differs:\n%s\nreference:\n%s", got, ref)
			}
		})
	}
}

func shape(d *graph.Document) string {
	var lines []string
	for _, r := range d.Resources {
		lines = append(lines, r.Ref().String())
	}
	seen := map[string]bool{}
	for _, e := range d.Edges {
		l := e.From.String() + " -> " + e.To.String()
		if !seen[l] {
			seen[l] = true
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func TestTranslationDetails(t *testing.T) {
	out, errs, code := run(t, "--engine", "native", "--stats", "--code", `
notify { "hello": message => "world" }
file { "/tmp/pg-l": ensure => link, target => "/tmp/pg-t" }
exec { "e": command => "/bin/true", refreshonly => true }
exec { "r": command => "/bin/false", returns => [0, 2] }
tidy { "h": age => "1w" }
File["/tmp/pg-l"] ~> Exec["e"]
`)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	d := decode(t, out)
	byRef := map[string]*graph.Resource{}
	for _, r := range d.Resources {
		byRef[r.Ref().String()] = r
	}
	if m := byRef["msg[hello]"]; m == nil || m.Params["body"] != "world" {
		t.Errorf("notify: want msg[hello] with body world, got %+v", m)
	}
	if e := byRef["exec[e]"]; e == nil || e.Params["refreshonly"] != true || e.Params["watchinterval"] != nil {
		t.Errorf("refreshonly exec: want exec[e] with refreshonly and no watchinterval, got %+v", e)
	}
	if p := byRef["pippet[Exec[/bin/false]]"]; p == nil {
		t.Errorf("exec returns [0, 2]: want a pippet fallback")
	}
	if f := byRef["file[/tmp/pg-l]"]; f == nil || f.Params["symlink"] != true {
		t.Errorf("file link: want file[/tmp/pg-l] with symlink, got %+v", f)
	}
	notified := false
	for _, e := range d.Edges {
		if e.From.Kind == "file" && e.From.Name == "/tmp/pg-l" && e.To.Kind == "exec" && e.To.Name == "e" {
			notified = e.Notify
		}
	}
	if !notified {
		t.Error("~> did not give a notify edge")
	}
	for _, want := range []string{
		"INFO   puppet-graph: Tidy[h] goes to pippet: no native kind for type tidy (file: <code>, line: 6)",
		"INFO   puppet-graph: Exec[r] goes to pippet: no native translation for returns",
		"puppet-graph: 3 native translations\n", "puppet-graph: 1 failed translations\n", "puppet-graph: 1 unsupported resources\n",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}

// TestNothingDropped: a parameter our kind cannot express sends the
// resource to pippet, with or without --conservative, and says why at
// info level.
func TestNothingDropped(t *testing.T) {
	code := `file { "/tmp/pg-c": ensure => file, links => follow }
user { "pgc": ensure => present, comment => "Pg C", managehome => true }`
	for _, args := range [][]string{{}, {"--conservative"}} {
		out, errs, status := run(t, append(append([]string{"--engine", "native"}, args...), "--code", code)...)
		if status != 0 {
			t.Fatalf("%v: exit %d: %s", args, status, errs)
		}
		for _, want := range []string{`"name":"File[/tmp/pg-c]"`, `"name":"User[pgc]"`} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: want pippet %s, got %s", args, want, out)
			}
		}
		if !strings.Contains(errs, "INFO   puppet-graph: File[/tmp/pg-c] goes to pippet: no native translation for links => \"follow\"") ||
			!strings.Contains(errs, "INFO   puppet-graph: User[pgc] goes to pippet: no native translation for managehome => true") || strings.Contains(errs, "ERROR") {
			t.Errorf("%v: messages: %s", args, errs)
		}
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.pp")
	os.WriteFile(bad, []byte("file { '/x': }\n$x = @(\"END\"/t)\nx\nEND\n"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--engine", "native", bad}, 1, bad + ":2:6: unsupported by the native engine: heredoc escape flags (compile with real Puppet: --engine puppet)"},
		{[]string{"--engine", "native", "--code", "notice(1"}, 1, "<code>:1:9: syntax error"},
		{[]string{"--engine", "native", "--code", `fail("boom")`}, 1, "<code>:1:1: Evaluation Error: Error while evaluating a Function Call, boom"},
		{[]string{"--engine", "native", "--code", `file { "/a": require => File["/b"] }`}, 1, "Could not find resource 'File[/b]'"},
		{[]string{"--engine", "native", "--code", `nosuch { "x": }`}, 1, "<code>:1:1: Unknown resource type: 'nosuch'"},
		{[]string{"--catalog", filepath.Join(dir, "missing.json")}, 1, "no such file"},
		{[]string{"--engine", "native", filepath.Join(dir, "missing.pp")}, 1, "no such file"},
		{[]string{"--engine", "native", dir + ".pp"}, 1, "no such file"},
		{[]string{}, 2, "want exactly one input"},
		{[]string{"--code", "x", "--manifest", "y.pp"}, 2, "want exactly one input"},
		{[]string{"--engine", "bogus", "--code", "x"}, 2, "engine"},
	} {
		_, errs, code := run(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}

func TestMgmtgraphImport(t *testing.T) {
	out, errs, code := run(t, "--mgmtgraph", examples+"/metaparams.mgmtgraph.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	d := decode(t, out)
	if len(d.Resources) != 12 {
		t.Errorf("want 12 resources, got %d", len(d.Resources))
	}
	if !strings.Contains(errs, "drops parameter 'pollint'") {
		t.Errorf("want a warning about the pippet pollint, got %s", errs)
	}
	for _, r := range d.Resources {
		if _, ok := r.Params["pollint"]; ok {
			t.Errorf("%s kept pollint", r.Ref())
		}
	}
}

// TestWatch edits a watched manifest and waits for the new graph.
func TestWatch(t *testing.T) {
	dir := t.TempDir()
	pp := filepath.Join(dir, "site.pp")
	os.WriteFile(pp, []byte(`file { "/tmp/pg-w1": ensure => file }`), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int)
	go func() {
		done <- Run(ctx, []string{"--engine", "native", "--watch", pp}, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() map[string]any {
		select {
		case l := <-lines:
			var m map[string]any
			json.Unmarshal([]byte(l), &m)
			return m
		case <-time.After(20 * time.Second):
			t.Fatal("no graph document within 20s")
		}
		return nil
	}
	first := next()
	if !strings.Contains(toJSON(first), "/tmp/pg-w1") || first["seq"].(float64) != 1 {
		t.Fatalf("first document: %v", first)
	}
	os.WriteFile(pp, []byte(`file { "/tmp/pg-w2": ensure => file`), 0o644)
	errDoc := next()
	if errDoc["error"] == nil {
		t.Fatalf("want an error document after a syntax error, got %v", errDoc)
	}
	os.WriteFile(pp, []byte(`file { "/tmp/pg-w2": ensure => file }`), 0o644)
	second := next()
	if !strings.Contains(toJSON(second), "/tmp/pg-w2") || second["seq"].(float64) != 3 {
		t.Fatalf("third document: %v", second)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestPuppetConf passes a puppet.conf naming the node: both engines use it.
func TestPuppetConf(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "puppet.conf")
	os.WriteFile(conf, []byte("[main]\ncertname = confnode\n[agent]\nruninterval = 5m\n"), 0o644)
	engines := []string{"native"}
	if _, err := exec.LookPath("puppet"); err == nil && !testing.Short() {
		engines = append(engines, "puppet")
	}
	for _, engine := range engines {
		out, errs, code := run(t, "--engine", engine, "--puppet-conf", conf, "--code", `notify { "x": } exec { "/bin/true": }`)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", engine, code, errs)
		}
		if d := decode(t, out); d.Graph != "confnode" {
			t.Errorf("%s: graph %q, want confnode (the certname of puppet.conf)", engine, d.Graph)
		}
		if !strings.Contains(out, `"watchinterval":300`) {
			t.Errorf("%s: the exec does not rerun every runinterval (5m):\n%s", engine, out)
		}
	}
}

func TestFactsFile(t *testing.T) {
	facts := filepath.Join(t.TempDir(), "facts.json")
	os.WriteFile(facts, []byte(`{"fqdn": "web1.example.com", "os": {"family": "RedHat"}}`), 0o644)
	out, errs, code := run(t, "--engine", "native", "--facts", facts, "--code",
		`$p = $facts['os']['family'] ? { "RedHat" => "httpd", default => "apache2" } package { $p: }`)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	d := decode(t, out)
	if d.Graph != "web1.example.com" || !strings.Contains(out, `"kind":"pkg","name":"httpd"`) {
		t.Errorf("facts not used: %s", out)
	}
	if _, errs, code := run(t, "--engine", "native", "--facts", "/nonexistent.json", "--code", "notice(1)"); code != 1 || !strings.Contains(errs, "nonexistent") {
		t.Errorf("missing facts file: exit %d, %s", code, errs)
	}
}
