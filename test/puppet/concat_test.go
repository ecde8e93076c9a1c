package puppet

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// concatCases are manifests of concat resources on the path @ (each
// applied to two copies), with the content the file holds before.
var concatCases = []struct{ name, before, manifest string }{
	{"alpha order and warn", "", `concat { '@': warn => true, mode => '0640' }
concat::fragment { '@ b': target => '@', content => "b\n", order => '10' }
concat::fragment { '@ a': target => '@', content => "a\n", order => '10' }
concat::fragment { '@ z': target => '@', content => "z\n", order => '9' }
concat::fragment { '@ one': target => '@', content => "1\n", order => '010' }`},
	{"numeric order and ensure_newline", "old\n", `concat { '@': order => 'numeric', ensure_newline => true }
concat::fragment { '@ b': target => '@', content => 'b', order => '10' }
concat::fragment { '@ a': target => '@', content => "a\n", order => 10 }
concat::fragment { '@ z': target => '@', content => 'z', order => '9' }
concat::fragment { '@ e': target => '@', content => '', order => '011' }`},
	{"a module source and a title", "old\n", `concat { 'the title': path => '@', warn => "# mine\n" }
concat::fragment { '@ src': target => 'the title', source => ['puppet:///modules/concattest/none', 'puppet:///modules/concattest/part'], order => '2' }
concat::fragment { '@ end': target => 'the title', content => "end\n", order => '3' }`},
	{"validate_cmd", "", `concat { '@': validate_cmd => '/bin/grep -q ok %' }
concat::fragment { '@ ok': target => '@', content => "ok\n" }`},
	{"absent", "old\n", `concat { '@': ensure => absent }`},
	{"no fragments", "old\n", `concat { '@': }`},
	{"a file's module source", "old\n", `file { '@': source => 'puppet:///modules/concattest/part', backup => 'puppet', mode => '0600' }`},
	{"a file's validate_cmd", "old\n", `file { '@': ensure => file, content => "ok\n", validate_cmd => '/bin/grep -q ok %' }`},
}

// TestConcatAgainstPuppet applies concat manifests (and files with a
// module source or validate_cmd) two ways on copies of the same files:
// natively, as the file resources puppet-graph translates each
// concat_file or file to (every one must translate), and with
// puppet apply. The files must end up with the same content and mode, and
// the file buckets (backup => 'puppet', in a bucket of the test's own
// puppet.conf) with the same entries.
func TestConcatAgainstPuppet(t *testing.T) {
	testneed.Puppet(t)
	testneed.Path(t, "/usr/share/puppet/modules/concat", "puppet-module-puppetlabs-concat")
	dir := t.TempDir()
	mods := filepath.Join(dir, "modules")
	os.MkdirAll(filepath.Join(mods, "concattest", "files"), 0o755)
	os.WriteFile(filepath.Join(mods, "concattest", "files", "part"), []byte("from the module\n"), 0o644)
	modulepath := mods + ":/usr/share/puppet/modules"
	for _, side := range []string{"native", "puppet"} {
		bucket := filepath.Join(dir, side+"-bucket")
		os.Mkdir(bucket, 0o750)
		conf := filepath.Join(dir, side+".conf")
		os.WriteFile(conf, []byte("[main]\nclientbucketdir = "+bucket+"\n"), 0o644)
		var pp strings.Builder
		for i, c := range concatCases {
			f := filepath.Join(dir, fmt.Sprintf("%s-%d", side, i))
			if c.before != "" {
				// one content a case: each bucket entry names one path
				os.WriteFile(f, []byte(fmt.Sprintf("%s%d\n", c.before, i)), 0o644)
			}
			pp.WriteString(strings.ReplaceAll(c.manifest, "@", f) + "\n")
		}
		site := filepath.Join(dir, side+".pp")
		os.WriteFile(site, []byte(pp.String()), 0o644)
		if side == "puppet" {
			puppetApply(t, site, "--config", conf, "--modulepath", modulepath)
			continue
		}
		p := testutil.Run(t, "", "puppet-graph", "--engine", "native", "--puppet-conf", conf, "--modulepath", modulepath, site)
		if p.Code != 0 {
			t.Fatalf("puppet-graph: exit %d: %s", p.Code, p.Stderr)
		}
		docs, err := graph.ReadAll(strings.NewReader(p.Stdout), "puppet-graph")
		if err != nil || len(docs) != 1 {
			t.Fatalf("decoding the graph: %v", err)
		}
		for _, r := range docs[0].Resources {
			if r.Kind != "file" && r.Kind != "noop" {
				t.Errorf("%s[%s] is not translated to a file", r.Kind, r.Name)
			}
		}
		a := testutil.Run(t, p.Stdout, "mgmt-apply", "--converged-timeout", "1", "--tmp-prefix")
		if a.Code != 0 {
			t.Fatalf("mgmt-apply: exit %d: %s", a.Code, a.Stderr)
		}
	}
	for i, c := range concatCases {
		n, p := fileState(filepath.Join(dir, fmt.Sprintf("native-%d", i))), fileState(filepath.Join(dir, fmt.Sprintf("puppet-%d", i)))
		if n != p {
			t.Errorf("%s: native %s, Puppet %s", c.name, n, p)
		}
	}
	n := strings.ReplaceAll(bucketTree(t, filepath.Join(dir, "native-bucket")), "native-", "X-")
	p := strings.ReplaceAll(bucketTree(t, filepath.Join(dir, "puppet-bucket")), "puppet-", "X-")
	if n != p || !strings.Contains(n, "contents") {
		t.Errorf("the buckets differ or hold nothing:\nnative:\n%s\nPuppet:\n%s", n, p)
	}
}

// fileState describes a file's mode and content, or its absence.
func fileState(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return "absent"
	}
	b, _ := os.ReadFile(path)
	return fmt.Sprintf("%v %q", fi.Mode(), b)
}
