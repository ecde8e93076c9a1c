package apply

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestAccountsOfOtherSources applies a file owned by a user and a group
// that only a source of nsswitch.conf other than /etc/passwd and
// /etc/group knows (libnss-extrausers), and a command run as that user,
// with the static mgmt-apply: the owner is the user's id, and the command
// runs with the user's id, its primary group and the groups it is a
// member of in that source.
func TestAccountsOfOtherSources(t *testing.T) {
	acc := testutil.NeedExtraUsers(t)
	dir := t.TempDir()
	// the command writes as the user: a directory it may write in, under
	// parents it may pass through
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(out, 0o777)
	owned := filepath.Join(dir, "owned")
	ids := filepath.Join(out, "ids")
	g := gdoc(1, []res{
		file(owned, P{"content": "x\n", "owner": acc.User, "group": acc.Supp, "mode": "0640"}),
		ex("ids", "{ id -u; id -g; id -G; } > "+ids, P{"user": acc.User, "creates": ids}),
	})
	r := testutil.Run(t, g, "mgmt-apply", "--tmp-prefix", "--converged-timeout", "0")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	fi, err := os.Stat(owned)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if strconv.Itoa(int(st.Uid)) != acc.UID || strconv.Itoa(int(st.Gid)) != acc.SuppGID {
		t.Errorf("%s is owned by %d:%d, want %s:%s", owned, st.Uid, st.Gid, acc.UID, acc.SuppGID)
	}
	b, err := os.ReadFile(ids)
	if err != nil {
		t.Fatalf("the command did not run as %s: %v\n%s", acc.User, err, r.Stderr)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 || lines[0] != acc.UID || lines[1] != acc.GID {
		t.Fatalf("id printed %q, want uid %s and gid %s", lines, acc.UID, acc.GID)
	}
	groups := strings.Fields(lines[2])
	for _, want := range []string{acc.GID, acc.SuppGID} {
		found := false
		for _, g := range groups {
			found = found || g == want
		}
		if !found {
			t.Errorf("id -G printed %q, without %s", lines[2], want)
		}
	}
}
