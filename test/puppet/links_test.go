package puppet

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
)

// linkCases are manifests of a resource on the path @, where a symbolic
// link to a file (or, for a directory, to a directory) is found before.
var linkCases = []struct{ name, manifest string }{
	{"ensure => file replaces the link", `file { '@': ensure => file, content => "new\n", mode => '0640' }`},
	{"content without ensure replaces the link", `file { '@': content => "new\n" }`},
	{"ensure => directory replaces the link", `file { '@': ensure => directory, mode => '0750' }`},
	{"ensure => present keeps the link", `file { '@': ensure => present, content => "new\n" }`},
	{"owner and mode alone go to the link itself", `file { '@': owner => 'nobody', group => 'nogroup', mode => '0600' }`},
	{"ensure => file without content replaces the link", `file { '@': ensure => file }`},
	{"a concat replaces the link", `concat { '@': mode => '0644' }
concat::fragment { '@ a': target => '@', content => "a\n" }`},
}

// TestFileLinksAgainstPuppet applies file and concat resources on paths
// that are symbolic links, two ways on copies of the same tree: natively
// (every resource must translate to a file) and with puppet apply, with
// its default links => manage. The paths and the links' targets must end
// up the same: kind, link target, mode, owner and content.
func TestFileLinksAgainstPuppet(t *testing.T) {
	testneed.Puppet(t)
	testneed.Path(t, "/usr/share/puppet/modules/concat", "puppet-module-puppetlabs-concat")
	dir := t.TempDir()
	for _, side := range []string{"native", "puppet"} {
		var pp strings.Builder
		for i, c := range linkCases {
			f := filepath.Join(dir, fmt.Sprintf("%s-%d", side, i))
			target := f + ".target"
			var err error
			if strings.Contains(c.manifest, "directory") {
				if err = os.Mkdir(target, 0o755); err == nil {
					err = os.WriteFile(filepath.Join(target, "inner"), []byte("inner\n"), 0o644)
				}
			} else {
				err = os.WriteFile(target, []byte("old\n"), 0o644)
			}
			if err == nil {
				err = os.Symlink(filepath.Base(target), f)
			}
			if err != nil {
				t.Fatal(err)
			}
			pp.WriteString(strings.ReplaceAll(c.manifest, "@", f) + "\n")
		}
		applySide(t, dir, side, pp.String(), "file")
	}
	for i, c := range linkCases {
		for _, suffix := range []string{"", ".target", ".target/inner"} {
			n := entryState(filepath.Join(dir, fmt.Sprintf("native-%d%s", i, suffix)))
			p := entryState(filepath.Join(dir, fmt.Sprintf("puppet-%d%s", i, suffix)))
			if n != strings.ReplaceAll(p, "puppet-", "native-") {
				t.Errorf("%s: %s: native %s, Puppet %s", c.name, suffix, n, p)
			}
		}
	}
}

// TestFileModesAgainstPuppet applies Puppet's symbolic modes (each must
// translate natively) to files and directories of several modes, two
// ways as above; the bits must end up the same. Puppet's "=" keeps the
// set-id and sticky bits, unlike chmod(1)'s.
func TestFileModesAgainstPuppet(t *testing.T) {
	testneed.Puppet(t)
	modes := []string{"u=rw,go=r", "u+rw", "a+X", "go-w", "=r", "u+r=w", "o=", "g+X,o-r", "ug=rw", "a-x", "u=rwx,g=rx,o="}
	starts := []uint32{0, 0o644, 0o755, 0o4755, 0o2750, 0o1777, 0o600, 0o6444}
	dir := t.TempDir()
	name := func(side string, m, s int, isDir bool) string {
		return filepath.Join(dir, fmt.Sprintf("%s-%d-%d-%v", side, m, s, isDir))
	}
	for _, side := range []string{"native", "puppet"} {
		var pp strings.Builder
		for m, mode := range modes {
			for s, start := range starts {
				for _, isDir := range []bool{false, true} {
					p := name(side, m, s, isDir)
					var err error
					ensure := "file"
					if isDir {
						ensure = "directory"
						err = os.Mkdir(p, 0o700)
					} else {
						err = os.WriteFile(p, nil, 0o600)
					}
					if err == nil {
						err = syscall.Chmod(p, start) // os.Chmod drops raw set-id bits
					}
					if err != nil {
						t.Fatal(err)
					}
					fmt.Fprintf(&pp, "file { '%s': ensure => %s, mode => '%s' }\n", p, ensure, mode)
				}
			}
		}
		applySide(t, dir, side, pp.String(), "file")
	}
	for m, mode := range modes {
		for s, start := range starts {
			for _, isDir := range []bool{false, true} {
				n, errN := os.Lstat(name("native", m, s, isDir))
				p, errP := os.Lstat(name("puppet", m, s, isDir))
				if errN != nil || errP != nil {
					t.Fatalf("%v %v", errN, errP)
				}
				if n.Mode() != p.Mode() {
					t.Errorf("mode %q on %04o (directory %v): native %v, Puppet %v", mode, start, isDir, n.Mode(), p.Mode())
				}
			}
		}
	}
}

// TestFilePurgeAgainstPuppet applies recursive purges, with and without
// force and a source, a directory where a file is found, a file where a
// FIFO is and a link where a file is, two ways on copies of the same tree
// as above, and ensure => present and no ensure on directories; the
// trees must end up the same. Without force Puppet's purge keeps the
// directories nothing manages (and empties them); the others replace what
// is in their way without force, but present and no ensure, which keep a
// directory and give it its owner and mode (with search where it reads),
// and absent, which keeps a directory (and what requires it still runs).
func TestFilePurgeAgainstPuppet(t *testing.T) {
	testneed.Puppet(t)
	dir := t.TempDir()
	for _, side := range []string{"native", "puppet"} {
		root := filepath.Join(dir, side)
		for _, d := range []string{"src/sub", "dst/old/deeper", "dst/sub", "forced/old/deeper", "plain/d/e", "present-dir", "noensure-dir", "absent-dir"} {
			if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for _, f := range []string{"src/a", "src/sub/b", "dst/stale", "dst/old/x", "dst/old/deeper/y", "forced/stale", "forced/old/x", "plain/z", "plain/d/w", "file-in-the-way"} {
			if err := os.WriteFile(filepath.Join(root, f), []byte(f+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink("../src", filepath.Join(root, "plain", "d", "link")); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "link-in-the-way"), []byte("file\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		pp := strings.ReplaceAll(`
file { '@/dst': ensure => directory, source => '@/src', recurse => true, purge => true, mode => '0644' }
file { '@/forced': ensure => directory, recurse => true, purge => true, force => true }
file { '@/plain': ensure => directory, recurse => true, purge => true }
file { '@/plain/keep': ensure => file, content => "kept\n" }
file { '@/file-in-the-way': ensure => directory, mode => '0750' }
file { '@/fifo': ensure => file, content => "was a FIFO\n" }
file { '@/link-in-the-way': ensure => link, target => 'src' }
file { '@/present-dir': ensure => present, content => "never written\n", owner => 'nobody', mode => '0640' }
file { '@/noensure-dir': mode => '0600' }
file { '@/absent-dir': ensure => absent }
file { '@/after-absent': ensure => file, content => "ran\n", require => File['@/absent-dir'] }
`, "@", root)
		applySide(t, dir, side, pp, "file")
	}
	if n, p := treeState(t, filepath.Join(dir, "native")), treeState(t, filepath.Join(dir, "puppet")); n != p {
		t.Errorf("native:\n%s\nPuppet:\n%s", n, p)
	}
}

// treeState describes every entry below root, as entryState does.
func treeState(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(&b, "%s %s\n", rel, entryState(p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestExecEnvAgainstPuppet runs execs that write their environment, two
// ways as above: the variables they see must be the same (Puppet runs
// every exec without HOME, USER and LOGNAME, its environment parameter
// may set them again), but for the two that Puppet's apt provider sets
// in its own process when it is loaded, and "_", which each shell sets.
func TestExecEnvAgainstPuppet(t *testing.T) {
	testneed.Puppet(t)
	// both sides start with them (mgmt-apply inherits the test's)
	t.Setenv("HOME", "/root")
	t.Setenv("USER", "root")
	t.Setenv("LOGNAME", "root")
	dir := t.TempDir()
	names := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			k, v, _ := strings.Cut(l, "=")
			switch k {
			case "APT_LISTBUGS_FRONTEND", "APT_LISTCHANGES_FRONTEND", "_":
			case "HOME", "USER", "LOGNAME", "MGMT_SET":
				out = append(out, l)
			default:
				out = append(out, k+"="+fmt.Sprint(len(v) > 0))
			}
		}
		return strings.Join(out, "\n")
	}
	for _, side := range []string{"native", "puppet"} {
		d := filepath.Join(dir, side)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		pp := strings.ReplaceAll(`
exec { 'plain': command => '/usr/bin/env > @/plain', creates => '@/plain' }
exec { 'set': command => '/usr/bin/env > @/set', environment => ['HOME=/srv', 'MGMT_SET=1'], creates => '@/set' }
exec { 'guarded': command => '/usr/bin/touch @/guarded', unless => '/usr/bin/test -n "$HOME$USER$LOGNAME"' }
`, "@", d)
		applySide(t, dir, side, pp, "exec")
	}
	for _, f := range []string{"plain", "set"} {
		n, p := names(filepath.Join(dir, "native", f)), names(filepath.Join(dir, "puppet", f))
		if n != p {
			t.Errorf("%s: native:\n%s\nPuppet:\n%s", f, n, p)
		}
	}
	for _, side := range []string{"native", "puppet"} {
		if _, err := os.Stat(filepath.Join(dir, side, "guarded")); err != nil {
			t.Errorf("%s: the unless guard saw HOME, USER or LOGNAME: %v", side, err)
		}
	}
}

// applySide applies the manifest pp natively (every resource translated
// to one of kinds) or, for side "puppet", with puppet apply and Debian's
// module path.
func applySide(t *testing.T, dir, side, pp string, kinds ...string) {
	t.Helper()
	if side == "native" {
		applyGraph(t, translateNative(t, dir, pp, kinds...))
		return
	}
	site := filepath.Join(dir, "puppet.pp")
	if err := os.WriteFile(site, []byte(pp), 0o644); err != nil {
		t.Fatal(err)
	}
	puppetApply(t, site, "--modulepath", "/usr/share/puppet/modules")
}

// TestNewEntriesUmaskAgainstPuppet makes files and directories, with and
// without a mode, under a umask of 027, two ways as above: a directory
// made without a mode follows the umask (as mkdir makes it), a file gets
// 0644, and a mode is applied as written.
func TestNewEntriesUmaskAgainstPuppet(t *testing.T) {
	testneed.Puppet(t)
	old := syscall.Umask(0o027) // inherited by puppet and mgmt-apply
	defer syscall.Umask(old)
	dir := t.TempDir()
	for _, side := range []string{"native", "puppet"} {
		d := filepath.Join(dir, side)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		applySide(t, dir, side, strings.ReplaceAll(`
file { '@/d': ensure => directory }
file { '@/dm': ensure => directory, mode => '0711' }
file { '@/ds': ensure => directory, mode => 'g+w' }
file { '@/f': ensure => file, content => "x\n" }
file { '@/e': ensure => file }
file { '@/fm': ensure => file, mode => '0600' }
`, "@", d), "file")
	}
	if n, p := treeState(t, filepath.Join(dir, "native")), treeState(t, filepath.Join(dir, "puppet")); n != p {
		t.Errorf("native:\n%s\nPuppet:\n%s", n, p)
	}
}
