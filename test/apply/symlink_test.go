package apply

import (
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestSymlinkPlantedByOthers has another user (uid 65534) plant symbolic
// links to a file of root's in directories others may write to: a sticky
// 1777 one like /tmp and a world-writable one. mgmt-apply, run as root,
// refuses to follow them and leaves the target alone; a link of root's in
// the same directory is followed.
func TestSymlinkPlantedByOthers(t *testing.T) {
	testutil.NeedRoot(t)
	base := testutil.SharedTempDir(t)
	secret := base + "/secret"
	if err := os.WriteFile(secret, []byte("root's secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var links []string
	for _, dir := range []struct {
		name string
		mode os.FileMode
	}{{"sticky", 0o777 | os.ModeSticky}, {"open", 0o777}} {
		d := base + "/" + dir.name
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, dir.mode)
		testutil.AsNobody(t, "ln", "-s", secret, d+"/link")
		links = append(links, d+"/link")
	}
	mine := base + "/mine"
	os.WriteFile(mine, []byte("old\n"), 0o644)
	if err := os.Symlink(mine, base+"/sticky/rootlink"); err != nil {
		t.Fatal(err)
	}
	rs := []res{file(base+"/sticky/rootlink", P{"content": "new\n"})}
	for _, l := range links {
		rs = append(rs, file(l, P{"content": "pwned\n", "mode": "0666"}))
	}
	r := testutil.Run(t, gdoc(1, rs), "mgmt-apply", "--tmp-prefix", "--converged-timeout", "0")
	if r.Code != 1 {
		t.Errorf("exit %d, want 1 (failed resources)", r.Code)
	}
	for _, l := range links {
		want := "refusing to follow the symbolic link " + l + ": it belongs to uid 65534"
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
		}
		fi, err := os.Lstat(l)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer the planted link (%v)", l, err)
		}
	}
	var st syscall.Stat_t
	if err := syscall.Stat(secret, &st); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, secret); got != "root's secret\n" || st.Mode&0o7777 != 0o600 || st.Uid != 0 {
		t.Fatalf("the target changed: %q mode %04o uid %d", got, st.Mode&0o7777, st.Uid)
	}
	if got := readFile(t, mine); got != "new\n" {
		t.Fatalf("root's own link was not followed: %q\n%s", got, r.Stderr)
	}
}
