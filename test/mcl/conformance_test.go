package mcl

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// minConformance is the share of the shared mcl conformance corpus that
// must pass through mcl-compile | mgmt-apply (239 of 241 pass; the two
// others expect a resource name containing a newline, which the runner's
// line-based comparison cannot express).
const minConformance = 0.95

// TestConformance runs the shared conformance runner over the built tools
// and fails if the pass rate drops below minConformance.
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: runs the whole corpus")
	}
	shared := testutil.Shared()
	if shared == "" {
		t.Skip("../shared not present")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	bin := testutil.Tools(t)
	cmd := exec.Command("python3", filepath.Join(shared, "conformance", "run-mcl.py"), "--bin", bin, filepath.Join(shared, "conformance", "mcl"))
	out, _ := cmd.CombinedOutput()
	m := regexp.MustCompile(`(\d+) passed, (\d+) failed`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no result line in:\n%s", out)
	}
	pass, _ := strconv.Atoi(string(m[1]))
	fail, _ := strconv.Atoi(string(m[2]))
	rate := float64(pass) / float64(pass+fail)
	t.Logf("conformance: %d passed, %d failed (%.1f%%)", pass, fail, 100*rate)
	if rate < minConformance {
		t.Errorf("conformance %.1f%% is below %.0f%%:\n%s", 100*rate, 100*minConformance, out)
	}
}
