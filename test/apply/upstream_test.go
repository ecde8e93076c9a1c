package apply

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestPrefixWithTmpPrefix: --prefix (or MGMT_PREFIX) with --tmp-prefix
// is a usage error, as upstream has it, and nothing is created.
func TestPrefixWithTmpPrefix(t *testing.T) {
	d := filepath.Join(t.TempDir(), "prefix")
	doc := gdoc(1, []res{file(filepath.Join(t.TempDir(), "f"), nil)})
	for _, args := range [][]string{
		{"--prefix", d, "--tmp-prefix"},
		{"--tmp-prefix", "--prefix=" + d},
	} {
		r := testutil.Run(t, doc, "mgmt-apply", append(args, "--converged-timeout", "0")...)
		if r.Code != 2 || !strings.Contains(r.Stderr, "--prefix and --tmp-prefix can't be used together") {
			t.Errorf("%v: exit %d, stderr %q", args, r.Code, r.Stderr)
		}
	}
	if _, err := os.Stat(d); err == nil {
		t.Fatal("the prefix was created")
	}
	// Each alone is fine.
	for _, args := range [][]string{{"--prefix", d}, {"--tmp-prefix"}} {
		if r := testutil.Run(t, doc, "mgmt-apply", append(args, "--converged-timeout", "0")...); r.Code != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, r.Code, r.Stderr)
		}
	}
}
