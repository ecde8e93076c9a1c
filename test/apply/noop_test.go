package apply

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestDetailedExitcodes: --noop --detailed-exitcodes exits 0 when every
// resource is in sync, 2 when some would change, 4 when some failed and 6
// for both, as Puppet does; the files are left as they were, and the
// summary line counts each case. A run that applies exits 2 when it changed
// something, and 0 once there is nothing left to change.
func TestDetailedExitcodes(t *testing.T) {
	d := t.TempDir()
	os.WriteFile(d+"/ok", []byte("ok\n"), 0o644)
	os.WriteFile(d+"/fix", []byte("a\nb\nc\n"), 0o600)
	os.WriteFile(d+"/bad", []byte("x\n"), 0o644)
	inSync := file(d+"/ok", P{"content": "ok\n", "mode": "0644"})
	fix := file(d+"/fix", P{"content": "a\nB\nc\n", "mode": "0644"})
	bad := file(d+"/bad", P{"source": d + "/no-such-source"}) // fails in noop too
	for _, tc := range []struct {
		name    string
		rs      []res
		code    int
		summary string
	}{
		{"in sync", []res{inSync}, 0, "summary: 0 resources would change, 1 in sync, 0 failed"},
		{"changes", []res{inSync, fix}, 2, "summary: 1 resource would change, 1 in sync, 0 failed"},
		{"failure", []res{inSync, bad}, 4, "summary: 0 resources would change, 1 in sync, 1 failed"},
		{"both", []res{inSync, fix, bad}, 6, "summary: 1 resource would change, 1 in sync, 1 failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := testutil.Run(t, gdoc(1, tc.rs), "mgmt-apply", "--tmp-prefix", "--noop", "--detailed-exitcodes", "--converged-timeout", "0")
			if r.Code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s", r.Code, tc.code, r.Stderr)
			}
			if !strings.Contains(r.Stderr, tc.summary) {
				t.Errorf("no %q:\n%s", tc.summary, r.Stderr)
			}
		})
	}
	if got := readFile(t, d+"/fix"); got != "a\nb\nc\n" {
		t.Fatalf("--noop changed the file: %q", got)
	}
	// Without --detailed-exitcodes, a failure is 1 and changes are 0.
	if r := testutil.Run(t, gdoc(1, []res{fix, bad}), "mgmt-apply", "--tmp-prefix", "--noop", "--converged-timeout", "0"); r.Code != 1 {
		t.Fatalf("plain --noop with a failure: exit %d, want 1:\n%s", r.Code, r.Stderr)
	}
	if r := testutil.Run(t, gdoc(1, []res{fix}), "mgmt-apply", "--tmp-prefix", "--noop", "--converged-timeout", "0"); r.Code != 0 {
		t.Fatalf("plain --noop with changes: exit %d, want 0:\n%s", r.Code, r.Stderr)
	}
	// Applying: 2 while it changes something, then 0.
	for i, want := range []int{2, 0} {
		r := testutil.Run(t, gdoc(1, []res{inSync, fix}), "mgmt-apply", "--tmp-prefix", "--detailed-exitcodes", "--converged-timeout", "0")
		if r.Code != want {
			t.Fatalf("apply run %d: exit %d, want %d:\n%s", i+1, r.Code, want, r.Stderr)
		}
	}
	if got := readFile(t, d+"/fix"); got != "a\nB\nc\n" {
		t.Fatalf("content after apply: %q", got)
	}
}

// TestSkippedByFailure: a directory that cannot be made fails, the file in
// it is not checked, and the log says so: the change the failed CheckApply
// started is logged as tried, and the summary counts the file as skipped,
// not as unchanged.
func TestSkippedByFailure(t *testing.T) {
	d := t.TempDir()
	dir := d + "/no-parent/dir/"
	g := gdoc(1, []res{file(dir, P{"state": "exists"}), file(dir+"f", P{"content": "x\n"})})
	r := testutil.Run(t, g, "mgmt-apply", "--tmp-prefix", "--converged-timeout", "0")
	if r.Code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", r.Code, r.Stderr)
	}
	for _, want := range []string{
		"file[" + dir + "]: tried: created\n",
		"summary: 0 resources changed, 0 unchanged, 1 failed, 1 skipped (a dependency failed)",
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("no %q:\n%s", want, r.Stderr)
		}
	}
	if strings.Contains(r.Stderr, "]: created") {
		t.Errorf("a change that failed is logged as made:\n%s", r.Stderr)
	}
	if _, err := os.Lstat(dir + "f"); !os.IsNotExist(err) {
		t.Fatalf("the file of the failed directory: %v", err)
	}
}

// TestNoopShowsDiff: --noop logs a unified diff of the content that would
// change and the old and new mode; --diff-max caps the diff.
func TestNoopShowsDiff(t *testing.T) {
	d := t.TempDir()
	path := d + "/conf"
	os.WriteFile(path, []byte("one\ntwo\nthree\n"), 0o600)
	g := gdoc(1, []res{
		file(path, P{"content": "one\n2\nthree\nfour\n", "mode": "0640"}),
		file(d+"/new", P{"content": "fresh\n"}),
	})
	r := testutil.Run(t, g, "mgmt-apply", "--tmp-prefix", "--noop", "--converged-timeout", "0")
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	lines := strings.Split(r.Stderr, "\n")
	var diff []string
	for _, l := range lines {
		if strings.HasPrefix(l, "      ") {
			diff = append(diff, strings.TrimPrefix(l, "      "))
		}
	}
	got := strings.Join(diff, "\n")
	want := strings.Join([]string{
		"--- " + path + "\tcurrent", "+++ " + path + "\twanted", "@@ -1,3 +1,4 @@", " one", "-two", "+2", " three", "+four",
		"--- /dev/null", "+++ " + d + "/new\twanted", "@@ -0,0 +1 @@", "+fresh",
	}, "\n")
	// The two resources run in either order.
	alt := strings.Join([]string{
		"--- /dev/null", "+++ " + d + "/new\twanted", "@@ -0,0 +1 @@", "+fresh",
		"--- " + path + "\tcurrent", "+++ " + path + "\twanted", "@@ -1,3 +1,4 @@", " one", "-two", "+2", " three", "+four",
	}, "\n")
	if got != want && got != alt {
		t.Errorf("diff lines:\n%s\nwant:\n%s\nlog:\n%s", got, want, r.Stderr)
	}
	if !regexp.MustCompile(`NOTICE mgmt-apply: file\[` + regexp.QuoteMeta(path) + `\]: would change: content; mode 0600 -> 0640 \(noop\)`).MatchString(r.Stderr) {
		t.Errorf("no change line with the mode:\n%s", r.Stderr)
	}
	if _, err := os.Stat(d + "/new"); err == nil {
		t.Fatal("--noop created a file")
	}

	// --diff-max 2: two lines of the diff, then how many were cut.
	r = testutil.Run(t, gdoc(1, []res{file(path, P{"content": "1\n2\n3\n4\n5\n"})}), "mgmt-apply", "--tmp-prefix", "--noop", "--converged-timeout", "0", "--diff-max", "2")
	if !strings.Contains(r.Stderr, "more diff lines not shown") || strings.Contains(r.Stderr, "+5") {
		t.Errorf("--diff-max 2 did not cap the diff:\n%s", r.Stderr)
	}
	// --diff-max 0: no diff.
	r = testutil.Run(t, g, "mgmt-apply", "--tmp-prefix", "--noop", "--converged-timeout", "0", "--diff-max", "0")
	if strings.Contains(r.Stderr, "+++") {
		t.Errorf("--diff-max 0 showed a diff:\n%s", r.Stderr)
	}
}

// TestSecretNeverShown: a file whose content a password resource sends
// is never diffed, in noop runs or with --debug, nor in --events; the
// password reaches neither the log nor the events file.
func TestSecretNeverShown(t *testing.T) {
	d := t.TempDir()
	prefix := d + "/prefix"
	target := d + "/secret"
	g := gdoc(1, []res{
		{Kind: "password", Name: "db", Params: P{"length": 24, "saved": true}},
		file(target, P{"mode": "0600"}),
	}, edge{From: ref{"password", "db"}, To: ref{"file", target}, Send: "password", Recv: "content"})
	r := testutil.Run(t, g, "mgmt-apply", "--prefix", prefix, "--converged-timeout", "0", "--debug")
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	secret := readFile(t, target)
	if len(secret) != 24 {
		t.Fatalf("secret %q", secret)
	}
	if strings.Contains(r.Stderr, secret) {
		t.Fatalf("the password is in the --debug log:\n%s", r.Stderr)
	}
	if !strings.Contains(r.Stderr, "not shown: the content holds a secret") {
		t.Errorf("no word that the diff is not shown:\n%s", r.Stderr)
	}
	os.WriteFile(target, []byte("tampered\n"), 0o600)
	events := d + "/events.json"
	r = testutil.Run(t, g, "mgmt-apply", "--prefix", prefix, "--converged-timeout", "0", "--noop", "--events", events)
	if r.Code != 0 {
		t.Fatalf("noop: exit %d:\n%s", r.Code, r.Stderr)
	}
	ev := readFile(t, events)
	for what, s := range map[string]string{"noop log": r.Stderr, "events": ev} {
		if strings.Contains(s, secret) || strings.Contains(s, "tampered") {
			t.Errorf("the %s shows the content:\n%s", what, s)
		}
	}
	if !strings.Contains(r.Stderr, "file["+target+"]: would change: content") {
		t.Errorf("the noop run does not say the content would change:\n%s", r.Stderr)
	}
	if fi, err := os.Stat(events); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("events file mode %v (%v), want 0600", fi.Mode(), err)
	}
}

// TestEvents: --events - writes one JSON object per CheckApply result on
// stdout, with the changes (the size of a text diff, never the text), and
// a summary with the exit code.
func TestEvents(t *testing.T) {
	d := t.TempDir()
	path := d + "/f"
	os.WriteFile(path, []byte("a\nb\n"), 0o600)
	g := gdoc(1, []res{file(path, P{"content": "a\nc\n", "mode": "0644"}), file(d+"/ok", P{})})
	os.WriteFile(d+"/ok", nil, 0o644)
	r := testutil.Run(t, g, "mgmt-apply", "--tmp-prefix", "--noop", "--detailed-exitcodes", "--converged-timeout", "0", "--events", "-")
	if r.Code != 2 {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	type change struct {
		What, From, To string
		Added, Removed *int
	}
	type event struct {
		Type, Kind, Name, Op, Reason string
		Noop                         bool
		Changed                      *bool
		Changes                      []change
		Summary                      *struct {
			Resources, Pending, Failed, Exit int
			InSync                           int `json:"in_sync"`
		}
	}
	var results, summaries []event
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		var ev event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("stdout line %q: %v", line, err)
		}
		switch ev.Type {
		case "result":
			results = append(results, ev)
		case "summary":
			summaries = append(summaries, ev)
		default:
			t.Fatalf("event of type %q: %s", ev.Type, line)
		}
	}
	if len(results) != 2 || len(summaries) != 1 {
		t.Fatalf("%d results, %d summaries:\n%s", len(results), len(summaries), r.Stdout)
	}
	for _, ev := range results {
		if ev.Kind != "file" || ev.Op != "checkapply" || !ev.Noop || ev.Reason != "start" || ev.Changed == nil {
			t.Errorf("result %+v", ev)
			continue
		}
		if ev.Name == d+"/ok" {
			if *ev.Changed || len(ev.Changes) != 0 {
				t.Errorf("the file in sync changed: %+v", ev)
			}
			continue
		}
		if !*ev.Changed || len(ev.Changes) != 2 {
			t.Fatalf("changes of %s: %+v", path, ev)
		}
		c, m := ev.Changes[0], ev.Changes[1]
		if c.What != "content" || c.Added == nil || *c.Added != 1 || *c.Removed != 1 {
			t.Errorf("content change %+v", c)
		}
		if m.What != "mode" || m.From != "0600" || m.To != "0644" {
			t.Errorf("mode change %+v", m)
		}
	}
	if s := summaries[0].Summary; s == nil || s.Resources != 2 || s.Pending != 1 || s.InSync != 1 || s.Failed != 0 || s.Exit != 2 {
		t.Errorf("summary %+v", summaries[0].Summary)
	}
	if strings.Contains(r.Stdout, "\"c\\n") || strings.Contains(r.Stdout, "a\\nc") {
		t.Errorf("the events hold the content:\n%s", r.Stdout)
	}
}

// TestLogFormats: the text log has a time and a level on each line and
// shows a command's output below its line; --log-format json writes one
// object per line with time, level, msg and tool; --debug says why each
// CheckApply runs and how long it took.
func TestLogFormats(t *testing.T) {
	d := t.TempDir()
	g := gdoc(1, []res{ex("hello", "echo out-line; echo err-line >&2", nil), file(d+"/f", P{"content": "x"})},
		e("exec", "hello", "file", d+"/f"))
	r := testutil.Run(t, g, "mgmt-apply", "--tmp-prefix", "--converged-timeout", "0", "--debug")
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	for _, line := range strings.Split(strings.TrimSuffix(r.Stderr, "\n"), "\n") {
		if !regexp.MustCompile(`^` + testutil.LogPrefix + `mgmt-apply: |^    |^      `).MatchString(line) {
			t.Errorf("line without time and level: %q", line)
		}
	}
	for _, want := range []string{
		"INFO   mgmt-apply: exec[hello]: output of the command\n    output:\n      ",
		"\n      out-line\n", "\n      err-line\n",
		"DEBUG  mgmt-apply: exec[hello]: CheckApply (apply) for: start",
		"DEBUG  mgmt-apply: file[" + d + "/f]: CheckApply (apply) for: start, dependency exec[hello] changed",
		"DEBUG  mgmt-apply: exec[hello]: CheckApply took ",
		"NOTICE mgmt-apply: file[" + d + "/f]: changed: created",
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("log lacks %q:\n%s", want, r.Stderr)
		}
	}
	// Without --debug, no debug line.
	os.Remove(d + "/f")
	r = testutil.Run(t, g, "mgmt-apply", "--tmp-prefix", "--converged-timeout", "0", "--log-format", "json")
	if r.Code != 0 {
		t.Fatalf("json: exit %d:\n%s", r.Code, r.Stderr)
	}
	var sawOutput bool
	for _, line := range strings.Split(strings.TrimSuffix(r.Stderr, "\n"), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("json log line %q: %v", line, err)
		}
		for _, k := range []string{"time", "level", "msg", "tool"} {
			if _, ok := rec[k]; !ok {
				t.Errorf("json log line without %s: %q", k, line)
			}
		}
		if rec["level"] == "DEBUG" {
			t.Errorf("debug line without --debug: %q", line)
		}
		if rec["msg"] == "exec[hello]: output of the command" && strings.Contains(rec["output"].(string), "out-line\n") {
			sawOutput = true
		}
	}
	if !sawOutput {
		t.Errorf("no record of the command's output:\n%s", r.Stderr)
	}
}

// TestProducerDiesMidDocument: when the program feeding mgmt-apply dies
// in the middle of a document, mgmt-apply reports the broken document and
// the end of its input, and keeps enforcing the last good graph.
func TestProducerDiesMidDocument(t *testing.T) {
	d := t.TempDir()
	path := filepath.Join(d, "kept")
	p := startApply(t, "--tmp-prefix")
	p.Write(gdoc(7, []res{file(path, P{"content": "kept\n"})}))
	changed := `file\[` + regexp.QuoteMeta(path) + `\]: changed`
	p.WaitLines(changed, 1)
	half := gdoc(8, []res{file(path, P{"content": "other\n"})})
	p.Write(half[:len(half)/2])
	p.CloseStdin()
	p.WaitLines(`input closed; enforcing graph seq 7 until stopped`, 1)
	if !regexp.MustCompile(`ERROR  mgmt-apply: -:2:\d+: .*\(keeping the last good graph, seq 7\)`).MatchString(p.Log()) {
		t.Errorf("no error about the broken document:\n%s", p.Log())
	}
	os.Remove(path)
	p.WaitLines(changed, 2)
	if got := readFile(t, path); got != "kept\n" {
		t.Fatalf("content %q", got)
	}
	p.Terminate()
}
