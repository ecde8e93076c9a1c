package puppet

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// puppetHeader is the header Puppet's provider writes at the top of every
// file it writes, with the time in it.
var puppetHeader = regexp.MustCompile(`(?m)^# HEADER: .*\n`)

// TestSSHAuthorizedKeyAgainstPuppet applies sshkeys_core's
// ssh_authorized_key two ways for a throwaway user: natively, as the
// ssh:authorized_key resources puppet-graph translates it to, and by real
// Puppet through pippet resources, each on its own copy of the same
// files. The files must end up byte for byte the same, but for the
// header Puppet adds, with the same owner and mode, and so must the .ssh
// directories.
func TestSSHAuthorizedKeyAgainstPuppet(t *testing.T) {
	testneed.Puppet(t)
	testneed.Path(t, "/usr/share/puppet/modules/sshkeys_core", "puppet-module-puppetlabs-sshkeys-core")
	user, home, uid := testutil.AddUser(t)
	typ, key := testutil.SSHKey(t)
	otyp, okey := testutil.SSHKey(t)
	other := otyp + " " + okey + " alice@laptop\n"
	name := func(i int) string { return fmt.Sprintf("deploy%d@ci", i) }
	present := func(extra ...any) map[string]any {
		m := map[string]any{"ensure": "present", "type": typ, "key": key}
		for i := 0; i < len(extra); i += 2 {
			m[extra[i].(string)] = extra[i+1]
		}
		return m
	}
	cases := []struct {
		what, before string // before "-": no .ssh directory
		attrs        map[string]any
	}{
		{"a new directory and file", "-", present("type", "ed25519", "options", []any{"no-pty", `from="10.0.0.1"`})},
		{"appended", "# keys\n" + other, present()},
		{"rotated in place", other + "TYPE OKEY NAME\n\n# end\n", present()},
		{"options set", "TYPE KEY NAME\n" + other, present("options", "no-pty")},
		{"in sync however spaced", other + "TYPE  KEY   NAME\n", present()},
		{"removed", "TYPE OKEY NAME\n" + other, map[string]any{"ensure": "absent"}},
		{"nothing to remove", other, map[string]any{"ensure": "absent"}},
	}
	expand := func(s string, i int) string {
		return strings.NewReplacer("OKEY", okey, "KEY", key, "TYPE", typ, "NAME", name(i)).Replace(s)
	}
	target := func(side string, i int) string {
		return filepath.Join(home, fmt.Sprintf("%s-%d", side, i), ".ssh", "authorized_keys")
	}
	var pp strings.Builder
	var viaPuppet []*graph.Resource
	for i, c := range cases {
		for _, side := range []string{"native", "puppet"} {
			f := target(side, i)
			prepareKeys(t, f, expand(c.before, i), uid)
			params := maps.Clone(c.attrs)
			params["user"], params["target"] = user, f
			if side == "native" {
				fmt.Fprintf(&pp, "ssh_authorized_key { '%s': %s }\n", name(i), puppetAttrs(params))
				continue
			}
			js, _ := json.Marshal(params)
			viaPuppet = append(viaPuppet, &graph.Resource{Kind: "pippet", Name: fmt.Sprintf("Ssh_authorized_key[%s]", name(i)), Params: map[string]any{
				"type": "ssh_authorized_key", "title": name(i), "params": string(js), "modulepath": "/usr/share/puppet/modules"}})
		}
	}
	doc := translateNative(t, t.TempDir(), pp.String(), "ssh:authorized_key")
	doc.Resources = append(doc.Resources, viaPuppet...)
	applyGraph(t, doc)
	for i, c := range cases {
		nf, pf := target("native", i), target("puppet", i)
		got, err1 := os.ReadFile(nf)
		want, err2 := os.ReadFile(pf)
		want = puppetHeader.ReplaceAll(want, nil)
		if err1 != nil || err2 != nil || string(got) != string(want) {
			t.Errorf("%s: native %q (%v), Puppet %q (%v)", c.what, got, err1, want, err2)
		}
		for _, pair := range [][2]string{{nf, pf}, {filepath.Dir(nf), filepath.Dir(pf)}} {
			if n, p := statOwner(pair[0]), statOwner(pair[1]); n != p {
				t.Errorf("%s: %s is %s natively, %s by Puppet", c.what, filepath.Base(pair[0]), n, p)
			}
		}
	}
}

// prepareKeys makes the directory above .ssh for uid and, unless content
// is "-", the .ssh directory (0700) and the file f (0600) holding
// content, all owned by uid, as they are in a home directory.
func prepareKeys(t *testing.T, f, content string, uid int) {
	t.Helper()
	ssh := filepath.Dir(f)
	dirs := []string{filepath.Dir(ssh)}
	if content != "-" {
		dirs = append(dirs, ssh)
	}
	for _, d := range dirs {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chown(d, uid, uid)
	}
	if content != "-" {
		if err := os.WriteFile(f, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chown(f, uid, uid)
	}
}

// puppetAttrs writes params as the attributes of a Puppet resource, each
// string single-quoted.
func puppetAttrs(params map[string]any) string {
	quote := func(s string) string {
		return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(params)) {
		switch v := params[k].(type) {
		case []any:
			var items []string
			for _, o := range v {
				items = append(items, quote(o.(string)))
			}
			parts = append(parts, k+" => ["+strings.Join(items, ", ")+"]")
		default:
			parts = append(parts, k+" => "+quote(v.(string)))
		}
	}
	return strings.Join(parts, ", ")
}

// statOwner returns the owner, group and mode of p as one string.
func statOwner(p string) string {
	fi, err := os.Lstat(p)
	if err != nil {
		return err.Error()
	}
	st := fi.Sys().(*syscall.Stat_t)
	return fmt.Sprintf("%d:%d %04o", st.Uid, st.Gid, st.Mode&0o7777)
}
