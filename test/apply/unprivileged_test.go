package apply

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestRepairAsOrdinaryUser: mgmt-apply run by an ordinary user (uid
// 65534, without CAP_DAC_READ_SEARCH: before Linux 6.10 it may not link
// a descriptor directly, and names its unnamed temporary files through
// /proc/self/fd) replaces the content of a file it owns in a directory it
// owns, atomically, with the wanted mode, and leaves no temporary file.
func TestRepairAsOrdinaryUser(t *testing.T) {
	testutil.NeedRoot(t)
	home := testutil.SharedTempDir(t)
	dir := filepath.Join(home, "files")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{home, dir, p} {
		if err := os.Chown(o, testutil.Nobody, testutil.Nobody); err != nil {
			t.Fatal(err)
		}
	}
	doc, _ := json.Marshal(map[string]any{"mgmt": "graph/v1", "graph": "g", "seq": 1,
		"resources": []any{map[string]any{"kind": "file", "name": p, "params": map[string]any{"state": "exists", "content": "new\n", "mode": "0640"}}}})
	graph := filepath.Join(home, "g.json")
	if err := os.WriteFile(graph, append(doc, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	// The build directory is root's: nobody runs a copy.
	bin := filepath.Join(home, "mgmt-apply")
	if out, err := exec.Command("cp", testutil.Bin(t, "mgmt-apply"), bin).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	asNobody := func(c *exec.Cmd) {
		c.Path, c.Args[0] = bin, bin
		c.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "TMPDIR=" + home}
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: testutil.Nobody, Gid: testutil.Nobody}}
	}
	r := testutil.RunWith(t, asNobody, "", "mgmt-apply", "--tmp-prefix", "--converged-timeout", "0", "--file", graph)
	if r.Code != 0 || !strings.Contains(r.Stderr, "changed") {
		t.Fatalf("mgmt-apply as uid %d: exit %d\n%s", testutil.Nobody, r.Code, r.Stderr)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if got, _ := os.ReadFile(p); string(got) != "new\n" || fi.Mode().Perm() != 0o640 || st.Uid != testutil.Nobody || st.Gid != testutil.Nobody {
		t.Fatalf("%s: content %q, mode %v, owner %d:%d; want \"new\\n\", 0640, %d:%d", p, got, fi.Mode().Perm(), st.Uid, st.Gid, testutil.Nobody, testutil.Nobody)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("%s holds %v, want f alone", dir, ents)
	}
}
