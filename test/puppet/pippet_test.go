package puppet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestPippetApply translates a manifest with a resource our kinds cannot
// express (links => follow) and applies it: mgmt-apply hands that one to
// Puppet through the pippet resource, after the native file it requires.
func TestPippetApply(t *testing.T) {
	testneed.Puppet(t)
	dir := t.TempDir()
	native, viaPuppet := filepath.Join(dir, "native"), filepath.Join(dir, "puppet")
	pp := filepath.Join(dir, "site.pp")
	os.WriteFile(pp, []byte(`file { "`+native+`": ensure => file, content => "n\n" }
file { "`+viaPuppet+`": ensure => file, content => "p\n", links => follow }
File["`+native+`"] -> File["`+viaPuppet+`"]
`), 0o644)
	p := testutil.Run(t, "", "puppet-graph", "--engine", "native", pp)
	if p.Code != 0 || !strings.Contains(p.Stdout, `"kind":"pippet"`) {
		t.Fatalf("puppet-graph: exit %d, want a pippet resource:\n%s\n%s", p.Code, p.Stdout, p.Stderr)
	}
	a := testutil.Run(t, p.Stdout, "mgmt-apply", "--converged-timeout", "1", "--tmp-prefix")
	if a.Code != 0 {
		t.Fatalf("mgmt-apply: exit %d: %s", a.Code, a.Stderr)
	}
	for f, want := range map[string]string{native: "n\n", viaPuppet: "p\n"} {
		if b, err := os.ReadFile(f); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", f, b, err, want)
		}
	}
	i, j := strings.Index(a.Stderr, "file["+native+"]: changed"), strings.Index(a.Stderr, "pippet[File["+viaPuppet+"]]: changed")
	if i < 0 || j < 0 || j < i {
		t.Errorf("want the native file created before the pippet one:\n%s", a.Stderr)
	}
}
