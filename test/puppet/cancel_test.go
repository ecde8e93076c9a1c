package puppet

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestNativeCompileStopsOnSIGTERM starts a native compilation that would
// run for minutes (a hundred million lambda calls) and stops it with
// SIGTERM once it is under way: puppet-graph must end promptly with exit
// code 143, saying it wrote no graph.
func TestNativeCompileStopsOnSIGTERM(t *testing.T) {
	dir := t.TempDir()
	pp, facts := filepath.Join(dir, "long.pp"), filepath.Join(dir, "facts.json")
	os.WriteFile(facts, []byte(`{"fqdn": "node.example.com"}`), 0o644)
	os.WriteFile(pp, []byte(`notice("compiling")
range(1, 10000).each |$i| { range(1, 10000).each |$j| { $k = $i + $j } }
file { "/tmp/never": ensure => file }
`), 0o644)
	p := testutil.Start(t, "puppet-graph", "--engine", "native", "--facts", facts, pp)
	p.WaitLog("compiling", 0)
	p.Signal(syscall.SIGTERM)
	if code := p.Wait(); code != 143 {
		t.Fatalf("exit %d, want 143:\n%s", code, p.Log())
	}
	p.WaitLog("stopped before the graph was written", 0)
}
