package puppet

import (
	"os"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestSensitiveContent: a file whose content is Sensitive, and one with
// show_diff => false, become native files with show_diff false; their
// contents reach neither puppet-graph's log nor the log, stdout or events
// of a noop run of the graph, which says the content would change.
func TestSensitiveContent(t *testing.T) {
	d := t.TempDir()
	a, b := d+"/a", d+"/b"
	os.WriteFile(a, []byte("old-hidden-a\n"), 0o600)
	os.WriteFile(b, []byte("old-hidden-b\n"), 0o600)
	code := `file { "` + a + `": ensure => file, mode => "0600", content => Sensitive("new-hidden-a\n") }
file { "` + b + `": ensure => file, mode => "0600", content => "new-hidden-b\n", show_diff => false }`
	p := testutil.Run(t, "", "puppet-graph", "--engine", "native", "--code", code)
	if p.Code != 0 {
		t.Fatalf("puppet-graph: exit %d: %s", p.Code, p.Stderr)
	}
	for _, f := range []string{a, b} {
		if n := strings.Count(p.Stdout, `"kind":"file","name":"`+f+`","params"`); n != 1 {
			t.Errorf("%s is not a native file:\n%s", f, p.Stdout)
		}
	}
	if strings.Count(p.Stdout, `"show_diff":false`) != 2 {
		t.Errorf("want show_diff false on both files:\n%s", p.Stdout)
	}
	events := d + "/events.json"
	r := testutil.Run(t, p.Stdout, "mgmt-apply", "--tmp-prefix", "--noop", "--debug", "--converged-timeout", "0", "--events", events)
	if r.Code != 0 {
		t.Fatalf("mgmt-apply: exit %d:\n%s", r.Code, r.Stderr)
	}
	ev, err := os.ReadFile(events)
	if err != nil {
		t.Fatal(err)
	}
	for what, s := range map[string]string{"puppet-graph's log": p.Stderr, "noop log": r.Stderr, "noop stdout": r.Stdout, "events": string(ev)} {
		if strings.Contains(s, "hidden-") {
			t.Errorf("the %s shows a content:\n%s", what, s)
		}
	}
	for _, f := range []string{a, b} {
		if !strings.Contains(r.Stderr, "file["+f+"]: would change: content 13 bytes -> 13 bytes (noop)") {
			t.Errorf("the noop log does not say %s's content would change:\n%s", f, r.Stderr)
		}
	}
	if strings.Count(r.Stderr, "content would change (diff hidden)") != 2 {
		t.Errorf("want two hidden diffs:\n%s", r.Stderr)
	}
}
