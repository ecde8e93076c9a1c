package apply

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestOneShotWatchesNoFile: a run that stops at its first convergence
// (--converged-timeout 0, no world) checks its files with no inotify
// instance behind them, while a run that stays converged for a while
// watches them. A command that runs once the file is right counts the
// inotify instances among mgmt-apply's open files.
func TestOneShotWatchesNoFile(t *testing.T) {
	for _, tc := range []struct {
		timeout string
		want    string
	}{{"0", "0"}, {"0.5", "1"}} {
		d := t.TempDir()
		f, count := filepath.Join(d, "f"), filepath.Join(d, "count")
		probe := "ls -l /proc/$PPID/fd | grep -c 'anon_inode:inotify' > " + count + "; true"
		g := gdoc(1, []res{file(f, P{"content": "want\n"}), ex("probe", probe, nil)}, e("file", f, "exec", "probe"))
		r := testutil.Run(t, g, "mgmt-apply", "--tmp-prefix", "--converged-timeout", tc.timeout)
		if r.Code != 0 {
			t.Fatalf("--converged-timeout %s: exit %d:\n%s", tc.timeout, r.Code, r.Stderr)
		}
		if got := readFile(t, f); got != "want\n" {
			t.Fatalf("--converged-timeout %s: %s holds %q", tc.timeout, f, got)
		}
		if got := strings.TrimSpace(readFile(t, count)); got != tc.want {
			t.Errorf("--converged-timeout %s: %s inotify instances open as the file was right, want %s", tc.timeout, got, tc.want)
		}
	}
}
