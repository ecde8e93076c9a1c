package puppet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestNativeDeepInput gives the native engine 100,000 nested constructs,
// or a chain of 100,000 terms (far past its limits of 500 and 10,000): each ends with a positioned error
// and exit 1, never a stack overflow.
func TestNativeDeepInput(t *testing.T) {
	const n = 100000
	for _, tc := range []struct{ name, src, want string }{
		{"arrays", "$x = " + strings.Repeat("[", n) + strings.Repeat("]", n), "nested too deeply (more than 500 levels)"},
		{"parens", "$x = " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n), "nested too deeply (more than 500 levels)"},
		{"hashes", "$x = " + strings.Repeat("{a => ", n) + "1" + strings.Repeat("}", n), "nested too deeply (more than 500 levels)"},
		{"ifs", strings.Repeat("if true { ", n) + strings.Repeat("}", n), "nested too deeply (more than 500 levels)"},
		{"sum", "$x = 1" + strings.Repeat(" + 1", n), "expression too long"},
		{"chain", "notify { 'a': }" + strings.Repeat(" -> notify { 'a': }", n), "expression too long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pp := filepath.Join(t.TempDir(), "deep.pp")
			if err := os.WriteFile(pp, []byte(tc.src+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r := testutil.Run(t, "", "puppet-graph", "--engine", "native", "--manifest", pp)
			if r.Code != 1 || !strings.Contains(r.Stderr, pp+":1:") || !strings.Contains(r.Stderr, tc.want) || strings.Contains(r.Stderr, "goroutine") {
				t.Fatalf("exit %d, want 1 and %s:1:COL: %s:\n%.2000s", r.Code, pp, tc.want, r.Stderr)
			}
		})
	}
}

// TestPuppetDeepInput gives real Puppet classes nested 5,000 deep, on which
// Puppet 8 exits 1 with no error of its own (its stack overflows): the
// failure is reported once, at the manifest, without the complaints of
// Facter that precede it on Puppet's stderr.
func TestPuppetDeepInput(t *testing.T) {
	testneed.Puppet(t)
	const n = 5000
	pp := filepath.Join(t.TempDir(), "deep.pp")
	if err := os.WriteFile(pp, []byte(strings.Repeat("class a { ", n)+strings.Repeat("}", n)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := testutil.Run(t, "", "puppet-graph", "--engine", "puppet", "--manifest", pp)
	if r.Code != 1 || !strings.Contains(r.Stderr, pp+": puppet failed") || strings.Contains(r.Stderr, "Facter") || strings.Count(r.Stderr, "\n") != 1 {
		t.Fatalf("exit %d, want 1 and one line %s: puppet failed...:\n%.3000s", r.Code, pp, r.Stderr)
	}
}

// TestInputTooLarge: a manifest, an autoloaded class or a catalog larger
// than 256 MiB (sparse files here) is refused with its name from its size,
// before any of it is read.
func TestInputTooLarge(t *testing.T) {
	dir := t.TempDir()
	sparse := func(path string) string {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, 300<<20); err != nil {
			t.Fatal(err)
		}
		return path
	}
	big := sparse(filepath.Join(dir, "big.pp"))
	class := sparse(filepath.Join(dir, "modules", "big", "manifests", "init.pp"))
	cat := sparse(filepath.Join(dir, "big.json"))
	site := filepath.Join(dir, "site.pp")
	os.WriteFile(site, []byte("include big\n"), 0o644)
	const why = "larger than 256 MiB, the largest input read whole"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--engine", "native", "--manifest", big}, big + ":1:1: " + why},
		{[]string{"--engine", "native", "--modulepath", filepath.Join(dir, "modules"), "--manifest", site}, class + ":1:1: " + why},
		{[]string{"--catalog", cat}, cat + ": catalog: " + why},
	} {
		r := testutil.Run(t, "", "puppet-graph", c.args...)
		if r.Code != 1 || !strings.Contains(r.Stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and %q", c.args, r.Code, r.Stderr, c.want)
		}
	}
}
