package apply

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestPurgeKeepsManaged runs mgmt-apply on a purging directory and the
// resources that manage entries below it (a file, a symbolic link, a
// line): the engine tells the directory what the graph manages, so those
// stay, and the rest goes.
func TestPurgeKeepsManaged(t *testing.T) {
	d := t.TempDir()
	for _, f := range []string{"stray", "sub/stray", "sub/kept", "conf"} {
		os.MkdirAll(filepath.Dir(filepath.Join(d, f)), 0o755)
		if err := os.WriteFile(filepath.Join(d, f), []byte(f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rs := []res{
		file(d+"/", P{"recurse": true, "purge": true}),
		file(d+"/sub/kept", nil),
		file(d+"/link", P{"symlink": true, "source": "sub/kept"}),
		{Kind: "line", Name: "l", Params: P{"file": d + "/conf", "state": "exists", "content": "added"}},
	}
	r := testutil.Run(t, gdoc(1, rs), "mgmt-apply", "--tmp-prefix", "--converged-timeout", "0")
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	for _, gone := range []string{"stray", "sub/stray"} {
		if _, err := os.Lstat(filepath.Join(d, gone)); err == nil {
			t.Errorf("%s was not purged", gone)
		}
	}
	if got := readFile(t, d+"/conf"); got != "conf\nadded\n" {
		t.Errorf("conf %q", got)
	}
	if got, err := os.Readlink(d + "/link"); err != nil || got != "sub/kept" {
		t.Errorf("link %q %v", got, err)
	}
	if got := readFile(t, d+"/sub/kept"); got != "sub/kept\n" {
		t.Errorf("sub/kept %q", got)
	}
}
