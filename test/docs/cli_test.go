package docs

import (
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestListFlags runs mcl-compile --list-functions and mgmt-apply
// --list-kinds [KIND], which print the reference on a terminal.
func TestListFlags(t *testing.T) {
	r := testutil.Run(t, "", "mcl-compile", "--list-functions")
	if r.Code != 0 || !strings.Contains(r.Stdout, "strings.to_upper(s str) str\n") || !strings.Contains(r.Stdout, "(streaming)") {
		t.Errorf("mcl-compile --list-functions: exit %d\n%s%.2000s", r.Code, r.Stderr, r.Stdout)
	}
	r = testutil.Run(t, "", "mcl-compile")
	if r.Code != 2 {
		t.Errorf("mcl-compile without a path: exit %d, want 2 (usage)\n%s", r.Code, r.Stderr)
	}
	r = testutil.Run(t, "", "mgmt-apply", "--list-kinds")
	for _, kind := range []string{"exec", "file", "pkg", "svc"} {
		if r.Code != 0 || !strings.Contains("\n"+r.Stdout, "\n"+kind+" ") {
			t.Errorf("mgmt-apply --list-kinds lacks %s: exit %d\n%s%s", kind, r.Code, r.Stderr, r.Stdout)
		}
	}
	r = testutil.Run(t, "", "mgmt-apply", "--list-kinds", "file", "exec")
	for _, want := range []string{"Parameters:", "  content str (default unset)", "Watching:", "Automatic edges:", "\nexec\n", "Sends:"} {
		if r.Code != 0 || !strings.Contains(r.Stdout, want) {
			t.Errorf("mgmt-apply --list-kinds file exec lacks %q: exit %d\n%s%s", want, r.Code, r.Stderr, r.Stdout)
		}
	}
	if r = testutil.Run(t, "", "mgmt-apply", "--list-kinds", "nosuchkind"); r.Code != 1 || !strings.Contains(r.Stderr, `unknown resource kind "nosuchkind"`) {
		t.Errorf("an unknown kind: exit %d\n%s", r.Code, r.Stderr)
	}
	if r = testutil.Run(t, "", "mgmt-apply", "file"); r.Code != 2 {
		t.Errorf("a KIND without --list-kinds: exit %d, want 2\n%s", r.Code, r.Stderr)
	}
}
