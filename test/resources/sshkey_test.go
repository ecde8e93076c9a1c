package resources_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// checkOwned checks that each path is owned by uid with the given mode.
func checkOwned(t *testing.T, uid int, modes map[string]os.FileMode) {
	t.Helper()
	for path, mode := range modes {
		if got, m := owner(path); got != uid || m != mode {
			t.Fatalf("%s: owner %d mode %v, want %d %v", path, got, m, uid, mode)
		}
	}
}

// TestSSHAuthorizedKeyByComment keeps a key identified by its comment, as
// Puppet's ssh_authorized_key does, in a throwaway user's file: the key
// is authorized, repaired after edits by hand, rotated (a new key under
// the same comment takes the old one's line) and finally removed, while
// the other lines stay as they are.
func TestSSHAuthorizedKeyByComment(t *testing.T) {
	name, home, uid := testutil.AddUser(t)
	typ, blob := testutil.SSHKey(t)
	otyp, oblob := testutil.SSHKey(t)
	want := "no-pty " + typ + " " + blob + " deploy@ci"
	other := otyp + " " + oblob + " alice@laptop"
	params := map[string]any{"state": "exists", "user": name, "matchby": "comment",
		"type": typ, "key": blob, "options": []string{"no-pty"}}
	rs := []res{{Kind: "ssh:authorized_key", Name: "deploy@ci", Params: params}}
	f := filepath.Join(home, ".ssh", "authorized_keys")
	p := start(t, "--tmp-prefix")
	p.Write(doc(t, 1, rs, nil))
	p.Until("key written", func() bool { return read(f) == want+"\n" })
	checkOwned(t, uid, map[string]os.FileMode{filepath.Dir(f): 0o700, f: 0o600})

	stale := otyp + " " + oblob + " deploy@ci"
	for _, drift := range []struct{ what, write, want string }{
		{"key removed", "# keys\n" + other + "\n", "# keys\n" + other + "\n" + want + "\n"},
		{"another key under the name", other + "\n" + stale + "\n# end\n", other + "\n" + want + "\n# end\n"},
		{"options dropped", typ + " " + blob + " deploy@ci\n" + other + "\n", want + "\n" + other + "\n"},
		{"a second line of the name", stale + "\n" + other + "\n" + want + "\n", other + "\n" + want + "\n"},
	} {
		replace(t, f, drift.write, 0o644)
		p.Until("repair after "+drift.what, func() bool { return read(f) == drift.want })
		checkOwned(t, uid, map[string]os.FileMode{f: 0o600})
	}

	// Rotation: a new key under the same name replaces the old line.
	ntyp, nblob := testutil.SSHKey(t)
	params["type"], params["key"] = ntyp, nblob
	rotated := "no-pty " + ntyp + " " + nblob + " deploy@ci"
	p.Write(doc(t, 2, rs, nil))
	p.Until("key rotated", func() bool { return read(f) == other+"\n"+rotated+"\n" })

	// Absent needs only the name.
	rs[0].Params = map[string]any{"state": "absent", "user": name, "matchby": "comment"}
	p.Write(doc(t, 3, rs, nil))
	p.Until("key removed", func() bool { return read(f) == other+"\n" })
	replace(t, f, other+"\n"+rotated+"\n", 0o600)
	p.Until("key removed again", func() bool { return read(f) == other+"\n" })
	stopApply(t, p)
}
