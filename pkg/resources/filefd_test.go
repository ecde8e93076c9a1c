package resources

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestFileRefusesPlantedLink has uid 65534 plant a link to a file of
// root's in a sticky directory: the file resource, as root, refuses to
// follow it, for content as for mode and owner, and the target is left
// alone.
func TestFileRefusesPlantedLink(t *testing.T) {
	testutil.NeedRoot(t)
	base := testutil.SharedTempDir(t)
	secret := filepath.Join(base, "secret")
	mustWrite(t, secret, "root's\n")
	os.Chmod(secret, 0o600)
	sticky := filepath.Join(base, "sticky")
	os.Mkdir(sticky, 0o700)
	os.Chmod(sticky, 0o777|os.ModeSticky)
	link := filepath.Join(sticky, "link")
	testutil.AsNobody(t, "ln", "-s", secret, link)
	for _, f := range []*FileRes{
		{State: "exists", Content: strp("pwned\n")},
		{Mode: "0666"},
		{Owner: "65534"},
	} {
		f = newFile(t, newHarness(t), link, f)
		_, err := f.CheckApply(t.Context(), true)
		if err == nil || !strings.Contains(err.Error(), "refusing to follow the symbolic link "+link+": it belongs to uid 65534") {
			t.Fatalf("got %v, want a refusal", err)
		}
	}
	var st syscall.Stat_t
	syscall.Stat(secret, &st)
	if mustRead(t, secret) != "root's\n" || st.Mode&0o7777 != 0o600 || st.Uid != 0 {
		t.Fatalf("the target changed: mode %04o uid %d", st.Mode&0o7777, st.Uid)
	}
	// The same link is followed when the directory is not open to others.
	os.Chmod(sticky, 0o755)
	f := newFile(t, newHarness(t), link, &FileRes{Mode: "0640"})
	checkApply(t, f, true, false)
	if permOf(t, secret) != 0o640 {
		t.Fatal("the link in a closed directory was not followed")
	}
}

// TestFileChownKeepsSetID gives a setgid file a new group and mode: the
// chown, which clears set-id bits, comes before the chmod.
func TestFileChownKeepsSetID(t *testing.T) {
	testutil.NeedRoot(t)
	p := filepath.Join(t.TempDir(), "tool")
	mustWrite(t, p, "#!/bin/sh\n")
	os.Chmod(p, 0o755)
	f := newFile(t, newHarness(t), p, &FileRes{Mode: "02755", Group: "65534"})
	checkApply(t, f, true, false)
	var st syscall.Stat_t
	syscall.Stat(p, &st)
	if st.Mode&0o7777 != 0o2755 || st.Gid != 65534 {
		t.Fatalf("mode %04o gid %d, want 2755 and 65534", st.Mode&0o7777, st.Gid)
	}
	checkApply(t, f, true, true)
}
