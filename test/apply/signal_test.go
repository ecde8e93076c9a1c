package apply

import (
	"os"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestSignalBeforeConvergence: SIGINT or SIGTERM while a command runs (the
// graph not converged) exits 130 or 143, as shells report a process those
// signals killed.
func TestSignalBeforeConvergence(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			d := t.TempDir()
			p := startApply(t, "--tmp-prefix", "--converged-timeout", "1")
			p.Write(gdoc(1, []res{ex("slow", "touch "+d+"/started; exec sleep 1000", nil)}))
			waitFor(t, "the command to start", func() bool { _, err := os.Stat(d + "/started"); return err == nil })
			p.Signal(c.sig)
			if code := p.Wait(); code != c.code {
				t.Fatalf("exit %d after %v, want %d:\n%s", code, c.sig, c.code, p.Log())
			}
		})
	}
}

// TestSignalWhenConverged: a signal that finds the graph converged, nothing
// failed, is a clean stop (0); one that finds a resource failed for good
// is not (143).
func TestSignalWhenConverged(t *testing.T) {
	p := startApply(t, "--tmp-prefix")
	p.Write(gdoc(1, []res{{Kind: "noop", Name: "n"}}))
	p.WaitLines(`graph seq 1 converged in`, 1)
	p.Signal(syscall.SIGTERM)
	if code := p.Wait(); code != 0 {
		t.Fatalf("exit %d after SIGTERM on a converged graph:\n%s", code, p.Log())
	}
	if p.Count(`terminated: stopping \(everything was converged\)`) == 0 {
		t.Errorf("no log line on the stop:\n%s", p.Log())
	}

	f := startApply(t, "--tmp-prefix")
	f.Write(gdoc(1, []res{{Kind: "exec", Name: "fail", Params: P{"cmd": "false"}}}))
	f.WaitLines(`exec\[fail\].*error: cmd: exit status 1`, 1)
	f.Signal(syscall.SIGINT)
	if code := f.Wait(); code != 130 {
		t.Fatalf("exit %d after SIGINT with a failed resource, want 130:\n%s", code, f.Log())
	}
}

// TestSignalPrintGraph: --print-graph waiting for more input stops on a
// signal with its exit code.
func TestSignalPrintGraph(t *testing.T) {
	p := testutil.Start(t, "mgmt-apply", "--print-graph")
	p.Write(gdoc(1, []res{{Kind: "noop", Name: "n"}}))
	p.Write(`{"mgmt":"graph/v1","graph":"test","seq":2,"resources":[{"kind":"nope","name":"x"}]}` + "\n")
	p.WaitLines(`kind`, 1) // the tool runs: its signal handler is in place
	p.Signal(syscall.SIGTERM)
	if code := p.Wait(); code != 143 {
		t.Fatalf("exit %d, want 143:\n%s", code, p.Log())
	}
}
