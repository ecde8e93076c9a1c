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

// replaceCases are manifests of file and concat resources on the path @
// (each applied to two copies), with what is at the path before: "" for
// nothing, "file" for a file holding "old\n" with mode 0600, "dir" for a
// directory, "link" for a link to a file holding "old\n".
var replaceCases = []struct{ name, before, manifest string }{
	{"a new file", "", `file { '@': ensure => file, content => "new\n", mode => '0640', replace => false }`},
	{"an existing file keeps its content, not its mode and owner", "file",
		`file { '@': ensure => file, content => "new\n", mode => '0640', owner => 'nobody', replace => false }`},
	{"present and a local source", "file", `file { '@': ensure => present, source => '%SRC', mode => '0644', replace => false }`},
	{"a directory is left", "dir", `file { '@': ensure => file, content => "new\n", replace => false, force => true }`},
	{"a link is left", "link", `file { '@': ensure => file, content => "new\n", replace => false }`},
	{"SELinux parts on a host without SELinux", "file",
		`file { '@': ensure => file, content => "new\n", seltype => 'etc_t', seluser => 'system_u', selrange => 's0', selinux_ignore_defaults => true }`},
	{"a concat kept", "file", `concat { '@': mode => '0644', replace => false }
concat::fragment { '@ a': target => '@', content => "a\n" }`},
	{"a concat created, with seltype", "", `concat { '@': replace => false, seltype => 'etc_t', selinux_ignore_defaults => true }
concat::fragment { '@ a': target => '@', content => "a\n" }`},
}

// TestFileReplaceAgainstPuppet applies files and concats with replace =>
// false, and with SELinux parameters (this host has no SELinux: they
// are ignored), two ways on copies of the same paths: natively, as the
// file resources puppet-graph translates each one to (every one must
// translate), and with puppet apply. The paths must end up the same:
// kind, link target, mode, owner and content.
func TestFileReplaceAgainstPuppet(t *testing.T) {
	testneed.Puppet(t)
	testneed.Path(t, "/usr/share/puppet/modules/concat", "puppet-module-puppetlabs-concat")
	if _, err := os.Stat("/sys/fs/selinux"); err == nil {
		t.Skip("SELinux runs on this host: the native file kind refuses seltype here")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.WriteFile(src, []byte("from the source\n"), 0o600)
	for _, side := range []string{"native", "puppet"} {
		var pp strings.Builder
		for i, c := range replaceCases {
			f := filepath.Join(dir, fmt.Sprintf("%s-%d", side, i))
			prepareEntry(t, f, c.before)
			m := strings.ReplaceAll(c.manifest, "@", f)
			pp.WriteString(strings.ReplaceAll(m, "%SRC", src) + "\n")
		}
		if side == "native" {
			applyGraph(t, translateNative(t, dir, pp.String(), "file"))
			continue
		}
		site := filepath.Join(dir, "puppet.pp")
		os.WriteFile(site, []byte(pp.String()), 0o644)
		puppetApply(t, site, "--modulepath", "/usr/share/puppet/modules")
	}
	for i, c := range replaceCases {
		n := entryState(filepath.Join(dir, fmt.Sprintf("native-%d", i)))
		p := entryState(filepath.Join(dir, fmt.Sprintf("puppet-%d", i)))
		if n != strings.ReplaceAll(p, "puppet-", "native-") {
			t.Errorf("%s: native %s, Puppet %s", c.name, n, p)
		}
	}
}

// prepareEntry puts at path what replaceCases' before names.
func prepareEntry(t *testing.T, path, before string) {
	t.Helper()
	var err error
	switch before {
	case "":
	case "file":
		err = os.WriteFile(path, []byte("old\n"), 0o600)
	case "dir":
		err = os.Mkdir(path, 0o755)
	case "link":
		if err = os.WriteFile(path+".target", []byte("old\n"), 0o644); err == nil {
			err = os.Symlink(path+".target", path)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

// entryState describes the entry at path: its kind and mode, owner, a
// link's target and a file's content (a link's target's).
func entryState(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return "absent"
	}
	st := fi.Sys().(*syscall.Stat_t)
	s := fmt.Sprintf("%v %d:%d", fi.Mode(), st.Uid, st.Gid)
	if l, err := os.Readlink(path); err == nil {
		s += " -> " + l
	}
	if !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0 {
		return s // a FIFO is not read: nothing may write it
	}
	if b, err := os.ReadFile(path); err == nil {
		s += fmt.Sprintf(" %q", b)
	}
	return s
}
