package puppet

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// TestUserAgainstPuppet applies users with a comment and groups => []
// (membership minimum: no group added, none removed) two ways, each to
// its own throwaway accounts: natively, as the user resources
// puppet-graph translates them to (every one must translate), and with
// puppet apply. An existing user in a supplementary group and a new user
// must end up the same: comment, shell, home (not created), primary and
// supplementary groups. A group without ensure is created, a user with
// neither ensure nor a property is not.
func TestUserAgainstPuppet(t *testing.T) {
	id := needAccounts(t)
	grp := "mgmtug" + id
	run := func(args ...string) {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	run("groupadd", grp)
	t.Cleanup(func() { exec.Command("groupdel", grp).Run() })
	dir := t.TempDir()
	for _, side := range []string{"native", "puppet"} {
		old, created := "mgmtuo"+id+side[:1], "mgmtun"+id+side[:1]
		run("useradd", "-M", "-G", grp, "-c", "Old Name", "-s", "/bin/sh", old)
		t.Cleanup(func() {
			exec.Command("groupdel", "mgmtux"+id+side[:1]).Run()
			exec.Command("userdel", "mgmtuz"+id+side[:1]).Run()
			exec.Command("userdel", old).Run()
			exec.Command("userdel", created).Run()
			exec.Command("groupdel", created).Run()
		})
		pp := fmt.Sprintf(`user { '%s': ensure => present, comment => 'New Name, Room 1', groups => [], shell => '/bin/bash' }
user { '%s': ensure => present, comment => 'Created', groups => [], home => '/nonexistent/%s', shell => '/bin/false' }
group { '%s': }
group { '%s': }
user { '%s': }
`, old, created, created, grp, "mgmtux"+id+side[:1], "mgmtuz"+id+side[:1])
		if side == "native" {
			applyGraph(t, translateNative(t, dir, pp, "user", "group"))
			continue
		}
		site := filepath.Join(dir, "puppet.pp")
		os.WriteFile(site, []byte(pp), 0o644)
		puppetApply(t, site)
	}
	for _, who := range []string{"mgmtuo" + id, "mgmtun" + id} {
		n, p := account(t, who+"n"), account(t, who+"p")
		if n != strings.ReplaceAll(p, who+"p", who+"n") {
			t.Errorf("native %s, Puppet %s", n, p)
		}
	}
	if a := account(t, "mgmtuo"+id+"n"); !strings.Contains(a, `"New Name, Room 1"`) || !strings.Contains(a, grp) {
		t.Errorf("the existing user: %s", a)
	}
	for _, side := range []string{"n", "p"} {
		if exec.Command("getent", "group", "mgmtux"+id+side).Run() != nil {
			t.Errorf("a group without ensure was not created (%s)", side)
		}
		if exec.Command("getent", "passwd", "mgmtuz"+id+side).Run() == nil {
			t.Errorf("a user without ensure nor a property was created (%s)", side)
		}
	}
	if a := account(t, "mgmtun"+id+"n"); !strings.Contains(a, `"Created"`) || !strings.Contains(a, "(exists: false)") {
		t.Errorf("the new user: %s", a)
	}
}

// account describes a user: its passwd entry without the ids, whether
// its home exists, and the names of its groups.
func account(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("getent", "passwd", name).Output()
	if err != nil {
		return "absent"
	}
	f := strings.Split(strings.TrimSpace(string(out)), ":")
	_, herr := os.Stat(f[5])
	groups, _ := exec.Command("id", "-nG", name).Output()
	return fmt.Sprintf("%s gecos %q home %s (exists: %v) shell %s groups %s", f[0], f[4], f[5], herr == nil, f[6], strings.TrimSpace(string(groups)))
}

// TestExecUserAgainstPuppet runs commands as another user (a throwaway
// one, with a supplementary group) and as another group, with exec
// resources applied by mgmt-apply and by puppet apply: the commands must
// see the same identity, groups included.
func TestExecUserAgainstPuppet(t *testing.T) {
	id := needAccounts(t)
	grp, usr := "mgmteg"+id, "mgmteu"+id
	for _, args := range [][]string{{"groupadd", grp}, {"useradd", "-M", "-N", "-g", "nogroup", "-G", grp, usr}} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	t.Cleanup(func() {
		exec.Command("userdel", usr).Run()
		exec.Command("groupdel", grp).Run()
	})
	// where the user may write
	out, err := os.MkdirTemp("", "mgmt-execuser")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })
	os.Chmod(out, 0o1777)
	dir := t.TempDir()
	for _, side := range []string{"native", "puppet"} {
		cmd := func(f string) string {
			return fmt.Sprintf("id -un > %[1]s/%[2]s-%[3]s && id -gn >> %[1]s/%[2]s-%[3]s && id -Gn >> %[1]s/%[2]s-%[3]s", out, side, f)
		}
		if side == "native" {
			applyGraph(t, &graph.Document{Mgmt: graph.Version, Graph: "g", Resources: []*graph.Resource{
				{Kind: "exec", Name: "u", Params: map[string]any{"cmd": cmd("u"), "shell": "/bin/sh", "user": usr}},
				{Kind: "exec", Name: "g", Params: map[string]any{"cmd": cmd("g"), "shell": "/bin/sh", "group": grp}},
			}})
			continue
		}
		pp := fmt.Sprintf(`exec { 'as the user': command => '%s', user => '%s', path => '/usr/bin:/bin' }
exec { 'as the group': command => '%s', group => '%s', path => '/usr/bin:/bin' }
`, cmd("u"), usr, cmd("g"), grp)
		site := filepath.Join(dir, "puppet.pp")
		os.WriteFile(site, []byte(pp), 0o644)
		puppetApply(t, site)
	}
	for _, f := range []string{"u", "g"} {
		n, nerr := os.ReadFile(filepath.Join(out, "native-"+f))
		p, perr := os.ReadFile(filepath.Join(out, "puppet-"+f))
		if nerr != nil || perr != nil || string(n) != string(p) {
			t.Errorf("%s: native %q (%v), Puppet %q (%v)", f, n, nerr, p, perr)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "native-u")); string(b) != usr+"\nnogroup\nnogroup "+grp+"\n" {
		t.Errorf("as the user: %q", b)
	}
}

// TestExecUserTranslatedAgainstPuppet runs execs as a user and a group that the
// same manifest creates, natively (the exec translated with its user and
// group, ordered after them) and with puppet apply, each side with its
// own throwaway accounts: each command must run under the same identity
// (user, primary group, supplementary groups) on both sides.
func TestExecUserTranslatedAgainstPuppet(t *testing.T) {
	id := needAccounts(t)
	// the users write their results here: a directory they may enter
	top, err := os.MkdirTemp("/tmp", "mgmt-execuser")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	got := map[string]string{}
	for _, side := range []string{"native", "puppet"} {
		d := filepath.Join(top, side)
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, 0o777)
		os.Chmod(top, 0o755)
		usr, grp, extra := "mgmteu"+id+side[:1], "mgmteg"+id+side[:1], "mgmtex"+id+side[:1]
		t.Cleanup(func() {
			exec.Command("userdel", usr).Run()
			exec.Command("groupdel", usr).Run()
			exec.Command("groupdel", grp).Run()
			exec.Command("groupdel", extra).Run()
		})
		pp := strings.NewReplacer("@", d, "USR", usr, "GRP", grp, "EXTRA", extra).Replace(`
group { 'GRP': ensure => present }
group { 'EXTRA': ensure => present }
user { 'USR': ensure => present, gid => 'GRP', groups => ['EXTRA'], membership => inclusive }
exec { 'as user': command => '/usr/bin/id -un > @/user; /usr/bin/id -gn >> @/user; /usr/bin/id -Gn >> @/user', provider => shell, user => 'USR', creates => '@/user' }
exec { 'as user and group': command => '/usr/bin/id -un > @/both; /usr/bin/id -gn >> @/both; /usr/bin/id -Gn >> @/both', provider => shell, user => 'USR', group => 'EXTRA', creates => '@/both' }
exec { 'as group': command => '/usr/bin/id -gn > @/group', provider => shell, group => 'GRP', creates => '@/group' }
`)
		applySide(t, top, side, pp, "exec", "user", "group")
		for _, f := range []string{"user", "both", "group"} {
			b, err := os.ReadFile(filepath.Join(d, f))
			if err != nil {
				t.Fatalf("%s: %v", side, err)
			}
			got[side+"/"+f] = strings.NewReplacer(usr, "USR", grp, "GRP", extra, "EXTRA").Replace(string(b))
		}
	}
	for _, f := range []string{"user", "both", "group"} {
		if n, p := got["native/"+f], got["puppet/"+f]; n != p {
			t.Errorf("exec %s: natively:\n%s\nwith Puppet:\n%s", f, n, p)
		}
	}
	if want := "USR\nGRP\nGRP EXTRA\n"; got["native/user"] != want {
		t.Errorf("exec as user: %q, want %q", got["native/user"], want)
	}
}

// needAccounts checks what a test of accounts against Puppet needs (Puppet,
// useradd, root) and returns a suffix for the names of its throwaway
// accounts.
func needAccounts(t *testing.T) string {
	t.Helper()
	testneed.Puppet(t)
	testneed.Command(t, "useradd", "passwd")
	if os.Geteuid() != 0 {
		testneed.Missing(t, "adding users needs root")
	}
	return fmt.Sprintf("%x", time.Now().UnixNano()&0xffffff)
}
