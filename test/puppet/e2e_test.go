// Package puppet holds the end-to-end tests of puppet-graph: the mixed
// graph of examples/puppet/mixed-ex3 (Puppet and mcl with mgmt_handover/mgmt_handback)
// through graph-merge and mgmt-apply on the real filesystem.
package puppet

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// ex3 returns the mixed-graph example 3 (examples/puppet/mixed-ex3) with its paths moved under dir. With
// separate true, the mcl files live in directories of their own, so that
// only the merged hand-over vertices can order them against the Puppet
// file (no parent-directory autoedge does it).
func ex3(dir string, separate bool) (pp, mcl string, order []string) {
	first, sub, last := dir+"/mgmt_dir/", dir+"/mgmt_dir/puppet_subtree", dir+"/mgmt_dir/puppet_subtree/state-file"
	extra := dir + "/mgmt_dir/a"
	if separate {
		first, sub, last, extra = dir+"/first/", dir+"/puppet/subtree", dir+"/last/state-file", dir+"/first/a"
	}
	pp = `class mgmt_handover {}
class mgmt_handback {}
include mgmt_handover, mgmt_handback
class important_stuff {
  file { "` + sub + `": ensure => "directory" }
}
include important_stuff
Class["mgmt_handover"] -> Class["important_stuff"] -> Class["mgmt_handback"]
`
	mcl = `noop "puppet_handover" {}
noop "puppet_handback" {}
file "` + first + `" { state => "exists", }
file "` + extra + `" { state => "exists", }
file "` + last + `" { state => "exists", }
File["` + first + `"] -> Noop["puppet_handover"]
Noop["puppet_handback"] -> File["` + last + `"]
`
	return pp, mcl, []string{first, sub, last}
}

func TestEx3MergedApply(t *testing.T) {
	engines := []string{"native"}
	if _, err := exec.LookPath("puppet"); err == nil && !testing.Short() {
		engines = append(engines, "puppet")
	}
	for _, engine := range engines {
		for _, separate := range []bool{false, true} {
			if engine == "puppet" && !separate {
				continue // one real-Puppet run is enough: each costs seconds
			}
			name := engine + "/seed-paths"
			if separate {
				name = engine + "/separate-dirs"
			}
			t.Run(name, func(t *testing.T) { runEx3(t, engine, separate) })
		}
	}
}

func runEx3(t *testing.T, engine string, separate bool) {
	dir := t.TempDir()
	if separate {
		for _, d := range []string{"puppet", "last"} {
			os.Mkdir(filepath.Join(dir, d), 0o755)
		}
	}
	pp, mcl, order := ex3(dir, separate)
	ppFile, mclFile := filepath.Join(dir, "site.pp"), filepath.Join(dir, "main.mcl")
	os.WriteFile(ppFile, []byte(pp), 0o644)
	os.WriteFile(mclFile, []byte(mcl), 0o644)

	p := testutil.Run(t, "", "puppet-graph", "--engine", engine, ppFile)
	if p.Code != 0 {
		t.Fatalf("puppet-graph: exit %d: %s", p.Code, p.Stderr)
	}
	m := testutil.Run(t, "", "mcl-compile", "--once", mclFile)
	if m.Code != 0 {
		t.Fatalf("mcl-compile: exit %d: %s", m.Code, m.Stderr)
	}
	pj, mj := filepath.Join(dir, "p.json"), filepath.Join(dir, "m.json")
	os.WriteFile(pj, []byte(p.Stdout), 0o644)
	os.WriteFile(mj, []byte(m.Stdout), 0o644)
	g := testutil.Run(t, "", "graph-merge", pj, mj)
	if g.Code != 0 {
		t.Fatalf("graph-merge: exit %d: %s", g.Code, g.Stderr)
	}
	for _, want := range []string{`"name":"handover"`, `"name":"handback"`} {
		if !strings.Contains(g.Stdout, want) {
			t.Fatalf("merged graph lacks the merged noop %s:\n%s", want, g.Stdout)
		}
	}
	a := testutil.Run(t, g.Stdout, "mgmt-apply", "--converged-timeout", "1", "--tmp-prefix")
	if a.Code != 0 {
		t.Fatalf("mgmt-apply: exit %d: %s", a.Code, a.Stderr)
	}
	// every file exists, and the engine created them in the order the
	// merged graph requires: mcl's first file, Puppet's class, mcl's last
	prev := -1
	for _, f := range order {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("%s was not created: %v", f, err)
		}
		i := strings.Index(a.Stderr, "file["+f+"]: changed")
		if i < 0 {
			t.Fatalf("engine log has no change of file[%s]:\n%s", f, a.Stderr)
		}
		if i < prev {
			t.Fatalf("file[%s] was created out of order:\n%s", f, a.Stderr)
		}
		prev = i
	}
}
