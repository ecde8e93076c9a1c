// Package logs holds the end-to-end tests of the log every tool writes
// on stderr: a time and a level on each record, one JSON object per line
// with --log-format json, and the positioned errors of bad input kept as
// compilers write them.
package logs

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// records parses stderr as the json log of tool: every line must be one
// object with a time, a known level, a message and the tool's name.
func records(t *testing.T, tool, stderr string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%s: a line of the json log is not a JSON object: %q: %v\n%s", tool, line, err, stderr)
		}
		ts, _ := rec["time"].(string)
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			t.Errorf("%s: record without a time: %q", tool, line)
		}
		switch rec["level"] {
		case "DEBUG", "INFO", "NOTICE", "WARN", "ERROR":
		default:
			t.Errorf("%s: record without a level: %q", tool, line)
		}
		if m, _ := rec["msg"].(string); m == "" {
			t.Errorf("%s: record without a message: %q", tool, line)
		}
		if rec["tool"] != tool {
			t.Errorf("%s: record of tool %v: %q", tool, rec["tool"], line)
		}
		out = append(out, rec)
	}
	return out
}

// find returns the first record at level whose message contains s.
func find(recs []map[string]any, level, s string) map[string]any {
	for _, r := range recs {
		if m, _ := r["msg"].(string); r["level"] == level && strings.Contains(m, s) {
			return r
		}
	}
	return nil
}

// textLine matches a line of the text log of tool: time, level, tool.
func textLine(tool string) *regexp.Regexp {
	return regexp.MustCompile(`^` + testutil.LogPrefix + regexp.QuoteMeta(tool) + `: `)
}

// TestMclCompileLog: an error that is not about a place in the program
// is a record; a compile error stays "mcl-compile: FILE:LINE:COL: ...",
// in the json form too.
func TestMclCompileLog(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.mcl")
	r := testutil.Run(t, "", "mcl-compile", "--log-format", "json", "--once", missing)
	if r.Code != 1 {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	if rec := find(records(t, "mcl-compile", r.Stderr), "ERROR", missing); rec == nil {
		t.Errorf("no error record naming %s:\n%s", missing, r.Stderr)
	}
	r = testutil.Run(t, "", "mcl-compile", "--once", missing)
	if !textLine("mcl-compile").MatchString(r.Stderr) {
		t.Errorf("text log line without time and level: %q", r.Stderr)
	}
	want := "mcl-compile: <stdin>:1:6: syntax error: unexpected \")\", expecting an expression\n"
	for _, format := range []string{"text", "json", "plain"} {
		r = testutil.Run(t, "$a = )\n", "mcl-compile", "--log-format", format, "--check", "-")
		if r.Code != 1 || r.Stderr != want {
			t.Errorf("--log-format %s: exit %d, stderr %q; want 1, %q", format, r.Code, r.Stderr, want)
		}
	}
}

// TestPuppetGraphLog: the translator's and the manifest's messages are
// records whose level is the one Puppet names (notice() at NOTICE, a
// resource handed to pippet at INFO), and so is the --stats summary.
func TestPuppetGraphLog(t *testing.T) {
	code := `notice("hello from the manifest")
tidy { "/tmp/mgmt-logs-tidy": age => "1w" }`
	r := testutil.Run(t, "", "puppet-graph", "--log-format", "json", "--engine", "native", "--stats", "--code", code)
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	recs := records(t, "puppet-graph", r.Stderr)
	for _, c := range []struct{ level, msg string }{
		{"NOTICE", "hello from the manifest"},
		{"INFO", "Tidy[/tmp/mgmt-logs-tidy] goes to pippet: no native kind for type tidy"},
		{"INFO", "1 unsupported resources"},
	} {
		if find(recs, c.level, c.msg) == nil {
			t.Errorf("no %s record %q:\n%s", c.level, c.msg, r.Stderr)
		}
	}
	r = testutil.Run(t, "", "puppet-graph", "--engine", "native", "--code", code)
	for _, line := range strings.Split(strings.TrimSuffix(r.Stderr, "\n"), "\n") {
		if !textLine("puppet-graph").MatchString(line) {
			t.Errorf("text log line without time and level: %q", line)
		}
	}
	// A syntax error of the manifest stays as compilers write it.
	r = testutil.Run(t, "", "puppet-graph", "--log-format", "json", "--engine", "native", "--code", "file { '/x': ")
	if r.Code != 1 || !regexp.MustCompile(`^puppet-graph: <code>:\d+:\d+: `).MatchString(r.Stderr) {
		t.Errorf("syntax error: exit %d, stderr %q", r.Code, r.Stderr)
	}
}

// TestGraphMergeLog: a warning and an input that ends without a graph
// are records; a bad document stays "graph-merge: FILE:LINE:COL: ...".
func TestGraphMergeLog(t *testing.T) {
	d := t.TempDir()
	lang := filepath.Join(d, "lang.json")
	os.WriteFile(lang, []byte(`{"mgmt":"graph/v1","graph":"lang","seq":1,"resources":[{"kind":"noop","name":"puppet_other","pos":"main.mcl:3:1"}]}`+"\n"), 0o644)
	r := testutil.Run(t, "", "graph-merge", "--log-format", "json", "--allow-unmatched", lang)
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	if find(records(t, "graph-merge", r.Stderr), "WARN", "unmatched noop noop[puppet_other]") == nil {
		t.Errorf("no warning record:\n%s", r.Stderr)
	}
	empty := filepath.Join(d, "empty.json")
	os.WriteFile(empty, nil, 0o644)
	r = testutil.Run(t, "", "graph-merge", "--log-format", "json", empty)
	if r.Code != 1 || find(records(t, "graph-merge", r.Stderr), "ERROR", "input ended without a valid graph") == nil {
		t.Errorf("exit %d, no error record:\n%s", r.Code, r.Stderr)
	}
	bad := filepath.Join(d, "bad.json")
	os.WriteFile(bad, []byte(`{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"No-op","name":"a"}]}`+"\n"), 0o644)
	r = testutil.Run(t, "", "graph-merge", "--log-format", "json", bad)
	first, _, _ := strings.Cut(r.Stderr, "\n")
	if r.Code != 1 || !regexp.MustCompile(`^graph-merge: `+regexp.QuoteMeta(bad)+`:1:\d+: `).MatchString(first) {
		t.Errorf("bad document: exit %d, stderr %q", r.Code, r.Stderr)
	}
}

// TestMgmtClusterLog: a member's log, etcd's own messages included
// (--debug), is one JSON object per line.
func TestMgmtClusterLog(t *testing.T) {
	prefix := t.TempDir()
	p := testutil.Start(t, "mgmt-cluster", "--log-format", "json", "--debug", "run", "--prefix", prefix)
	p.WaitLog("running as member", 0)
	p.Terminate()
	recs := records(t, "mgmt-cluster", p.Log()+"\n")
	if find(recs, "INFO", "running as member") == nil {
		t.Errorf("no record of the member running:\n%s", p.Log())
	}
	if find(recs, "INFO", "etcd: ") == nil {
		t.Errorf("no record of etcd's own log:\n%s", p.Log())
	}
	// A query that fails: one error record.
	r := testutil.RunWith(t, func(c *exec.Cmd) { c.Env = append(os.Environ(), "MGMT_PREFIX="+t.TempDir()) }, "",
		"mgmt-cluster", "--log-format", "json", "--timeout", "1s", "get", "strings/a")
	if r.Code != 1 || len(records(t, "mgmt-cluster", r.Stderr)) == 0 {
		t.Errorf("exit %d:\n%s", r.Code, r.Stderr)
	}
}

// TestMgmtApplyLog: mgmt-apply's log takes the same flags.
func TestMgmtApplyLog(t *testing.T) {
	r := testutil.Run(t, `{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"noop","name":"n"}]}`+"\n",
		"mgmt-apply", "--log-format", "json", "--tmp-prefix", "--converged-timeout", "0")
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	if find(records(t, "mgmt-apply", r.Stderr), "INFO", "summary: ") == nil {
		t.Errorf("no summary record:\n%s", r.Stderr)
	}
}
