package service

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestWatchdog runs mgmt-apply and mgmt-cluster run as services with
// WatchdogSec= would: with $WATCHDOG_USEC set, each keeps sending
// WATCHDOG=1 on the notify socket (every half of that interval).
func TestWatchdog(t *testing.T) {
	const usec = "400000" // 0.4s: a ping every 0.2s
	dir := t.TempDir()
	for _, tc := range []struct {
		tool string
		args []string
	}{
		{"mgmt-apply", []string{"--tmp-prefix", "--file", filepath.Join(dir, "graph.json")}},
		{"mgmt-cluster", []string{"run", "--prefix", t.TempDir()}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			if tc.tool == "mgmt-apply" {
				if err := os.WriteFile(tc.args[2], []byte(graphDoc(filepath.Join(dir, "out"), "x")), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			n := listenNotify(t)
			p := testutil.StartWith(t, env("NOTIFY_SOCKET="+n.path, "WATCHDOG_USEC="+usec), tc.tool, tc.args...)
			n.until("READY=1")
			// Three pings after ready: the pinging goes on.
			for range 3 {
				n.until("WATCHDOG=1")
			}
			p.Signal(syscall.SIGTERM)
			p.Wait()
		})
	}
}
