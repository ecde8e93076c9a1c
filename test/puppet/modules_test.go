package puppet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestModuleTypesApply compiles a manifest using module types (concat from
// puppetlabs-concat with a fragment from a local file, which has no
// native translation, file_line from stdlib, with a pattern the line kind
// cannot match exactly: Ruby's \b knows Unicode letters, Go's does not)
// and array-form execs with real
// Puppet, and applies the graph: pippet runs the module types with the
// compilation's module path, and the argv exec runs its words exactly, with
// no shell re-parsing them.
func TestModuleTypesApply(t *testing.T) {
	testneed.Puppet(t)
	testneed.Path(t, "/usr/share/puppet/modules/concat", "puppet-module-puppetlabs-concat")
	testneed.Path(t, "/usr/share/puppet/modules/stdlib", "puppet-module-puppetlabs-stdlib")
	dir := t.TempDir()
	conf, lines, argv := filepath.Join(dir, "conf"), filepath.Join(dir, "lines"), filepath.Join(dir, "argv")
	part := filepath.Join(dir, "part")
	os.WriteFile(lines, []byte("a=1\nport=80\n"), 0o644)
	os.WriteFile(part, []byte("second\n"), 0o644)
	pp := filepath.Join(dir, "site.pp")
	os.WriteFile(pp, []byte(`
concat { "`+conf+`": mode => "0640" }
concat::fragment { "b": target => "`+conf+`", order => "20", source => "`+part+`" }
concat::fragment { "a": target => "`+conf+`", order => "10", content => "first\n" }
file_line { "port": path => "`+lines+`", line => "port=8080", match => '\bport=' }
exec { "argv":
  command => ["/bin/sh", "-c", 'printf "%s|" "$@" > "$0"', "`+argv+`", "a b", '$HOME;x', "'q'"],
  onlyif  => [["/usr/bin/test", "!", "-e", "`+argv+`"]],
}
`), 0o644)
	p := testutil.Run(t, "", "puppet-graph", "--engine", "puppet", "--modulepath", "/usr/share/puppet/modules", pp)
	if p.Code != 0 {
		t.Fatalf("puppet-graph: exit %d: %s", p.Code, p.Stderr)
	}
	for _, want := range []string{`"type":"concat_file"`, `"type":"file_line"`, `"modulepath":"/usr/share/puppet/modules"`} {
		if !strings.Contains(p.Stdout, want) {
			t.Errorf("graph lacks %s:\n%s", want, p.Stdout)
		}
	}
	if strings.Contains(p.Stderr, " ERROR ") {
		t.Errorf("fallbacks are info, not errors:\n%s", p.Stderr)
	}
	a := testutil.Run(t, p.Stdout, "mgmt-apply", "--converged-timeout", "1", "--tmp-prefix")
	if a.Code != 0 {
		t.Fatalf("mgmt-apply: exit %d: %s", a.Code, a.Stderr)
	}
	for f, want := range map[string]string{
		conf:  "first\nsecond\n",
		lines: "a=1\nport=8080\n",
		argv:  "a b|$HOME;x|'q'|",
	} {
		if b, err := os.ReadFile(f); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", f, b, err, want)
		}
	}
}
