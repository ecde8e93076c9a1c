package resources_test

import (
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestExitCode runs a graph whose exit resource comes after a file: the
// file is written, then mgmt-apply shuts down cleanly and exits with the
// resource's code.
func TestExitCode(t *testing.T) {
	dir := t.TempDir()
	f := dir + "/before-exit"
	rs := []res{
		{Kind: "file", Name: f, Params: map[string]any{"state": "exists", "content": "done\n"}},
		{Kind: "exit", Name: "bye", Params: map[string]any{"code": 7}},
	}
	es := []edge{{From: ref{"file", f}, To: ref{"exit", "bye"}}}
	p := start(t, "--tmp-prefix")
	p.Write(doc(t, 1, rs, es))
	// stdin stays open: only the exit resource can end the run.
	if code := p.Wait(); code != 7 {
		t.Fatalf("exit code %d, want 7\n%s", code, p.Log())
	}
	if got := read(f); got != "done\n" {
		t.Fatalf("the file before the exit holds %q", got)
	}
	if !strings.Contains(p.Log(), "exit[bye]: changed: asking mgmt-apply to exit with code 7") {
		t.Errorf("log lacks the request:\n%s", p.Log())
	}
}

// TestExitZeroAndNoop checks code 0, and that --noop never exits early.
func TestExitZeroAndNoop(t *testing.T) {
	rs := []res{{Kind: "exit", Name: "bye", Params: map[string]any{"code": 0}}}
	p := start(t, "--tmp-prefix")
	p.Write(doc(t, 1, rs, nil))
	if code := p.Wait(); code != 0 {
		t.Fatalf("exit code %d, want 0\n%s", code, p.Log())
	}
	rs[0].Params["code"] = 9
	r := testutil.Run(t, doc(t, 1, rs, nil), "mgmt-apply", "--tmp-prefix", "--noop", "--converged-timeout", "1")
	if r.Code != 0 || !strings.Contains(r.Stderr, "exit[bye]: would change") {
		t.Fatalf("--noop: exit %d\n%s", r.Code, r.Stderr)
	}
}

func TestExitCodeOutOfRange(t *testing.T) {
	rs := []res{{Kind: "exit", Name: "bye", Params: map[string]any{"code": 126}}}
	r := testutil.Run(t, doc(t, 1, rs, nil), "mgmt-apply", "--tmp-prefix", "--converged-timeout", "1")
	if r.Code != 1 || !strings.Contains(r.Stderr, "code 126 must be between 0 and 125") {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
}

// TestExitCodeReserved: a code mgmt-apply gives its own outcomes is
// refused, so that a caller can tell a requested exit from them.
func TestExitCodeReserved(t *testing.T) {
	rs := []res{{Kind: "exit", Name: "bye", Params: map[string]any{"code": 4}}}
	r := testutil.Run(t, doc(t, 1, rs, nil), "mgmt-apply", "--tmp-prefix", "--converged-timeout", "1", "--detailed-exitcodes")
	if r.Code == 4 || !strings.Contains(r.Stderr, "code 4 is what mgmt-apply exits with on failures with --detailed-exitcodes") {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
}
