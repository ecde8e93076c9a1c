package apply

import (
	"os"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestShowDiffFalse: a file with show_diff false never shows its content,
// old or new: a noop run (with --debug and --events) says the content
// would change with the sizes only, and so does the run that applies it.
func TestShowDiffFalse(t *testing.T) {
	d := t.TempDir()
	path := d + "/token"
	os.WriteFile(path, []byte("old-secret-value\n"), 0o600)
	created := d + "/new-token"
	g := gdoc(1, []res{
		file(path, P{"content": "new-secret-value-2\n", "show_diff": false, "mode": "0600"}),
		file(created, P{"content": "fresh-secret\n", "show_diff": false}),
	})
	events := d + "/events.json"
	r := testutil.Run(t, g, "mgmt-apply", "--tmp-prefix", "--noop", "--debug", "--converged-timeout", "0", "--events", events)
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	ev := readFile(t, events)
	for what, s := range map[string]string{"stdout": r.Stdout, "stderr": r.Stderr, "events": ev} {
		for _, secret := range []string{"old-secret", "new-secret", "fresh-secret"} {
			if strings.Contains(s, secret) {
				t.Errorf("the %s shows the content %q:\n%s", what, secret, s)
			}
		}
	}
	for _, want := range []string{
		"file[" + path + "]: would change: content 17 bytes -> 19 bytes (noop)",
		"content would change (diff hidden): 17 bytes -> 19 bytes",
		"content would change (diff hidden): absent -> 13 bytes",
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("the noop log lacks %q:\n%s", want, r.Stderr)
		}
	}
	if !strings.Contains(ev, `"what":"content","from":"17 bytes","to":"19 bytes"`) || strings.Contains(ev, `"added"`) {
		t.Errorf("events: want the sizes of the content and no line counts:\n%s", ev)
	}
	if got := readFile(t, path); got != "old-secret-value\n" {
		t.Fatalf("--noop changed the file: %q", got)
	}
	r = testutil.Run(t, g, "mgmt-apply", "--tmp-prefix", "--debug", "--converged-timeout", "0")
	if r.Code != 0 || readFile(t, path) != "new-secret-value-2\n" {
		t.Fatalf("apply: exit %d:\n%s", r.Code, r.Stderr)
	}
	if strings.Contains(r.Stderr, "secret") || !strings.Contains(r.Stderr, "content changed (diff hidden): 17 bytes -> 19 bytes") {
		t.Errorf("the --debug log of the change:\n%s", r.Stderr)
	}
}
