package apply

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestExecRefreshOnly: through the engine, a refreshonly exec runs when
// the file notifying it is repaired, and not when the file was right.
func TestExecRefreshOnly(t *testing.T) {
	d := t.TempDir()
	log := d + "/log"
	g := gdoc(1, []res{
		file(d+"/conf", P{"content": "v1\n"}),
		ex("reload", "echo reload >> "+log, P{"refreshonly": true}),
		ex("quiet", "echo quiet >> "+log, P{"refreshonly": true}),
	}, edge{From: ref{"file", d + "/conf"}, To: ref{"exec", "reload"}, Notify: true})
	for run, want := range []string{"reload\n", "reload\n"} {
		r := testutil.Run(t, g, "mgmt-apply", "--tmp-prefix", "--converged-timeout", "0")
		if r.Code != 0 {
			t.Fatalf("run %d: exit %d:\n%s", run, r.Code, r.Stderr)
		}
		if got := readFile(t, log); got != want {
			t.Fatalf("run %d: the commands ran %q, want %q", run, got, want)
		}
	}
}

// TestExecWatchFilesAndMTimes: a running engine reruns an exec whose
// watched file changes, and runs an mtimes exec guarded by a false ifcmd
// only when its input changed, across restarts sharing a prefix.
func TestExecWatchFilesAndMTimes(t *testing.T) {
	d := t.TempDir()
	prefix := filepath.Join(d, "prefix")
	in, log := d+"/input", d+"/log"
	if err := os.WriteFile(in, []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := gdoc(1, []res{
		ex("watch", "echo watch >> "+log, P{"watchfiles": []string{in}}),
		ex("build", "echo build >> "+log, P{"mtimes": []string{in}, "ifcmd": "false"}),
	})
	p := startApply(t, "--prefix", prefix)
	p.Write(g)
	p.WaitLines(`exec\[watch\]: changed`, 1)
	p.WaitLines(`exec\[build\]: changed`, 1)
	// one change, renamed into place: a truncate and a write would be two,
	// and the engine may be stopped between them
	if err := os.WriteFile(in+".new", []byte("2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(in+".new", in); err != nil {
		t.Fatal(err)
	}
	p.WaitLines(`exec\[watch\]: changed`, 2)
	p.WaitLines(`exec\[build\]: changed`, 2)
	p.Signal(syscall.SIGTERM)
	p.Wait()
	// A new engine on the same prefix: watch runs (its first CheckApply),
	// build does not (its input did not change).
	r := testutil.Run(t, g, "mgmt-apply", "--prefix", prefix, "--converged-timeout", "0")
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
	}
	n := map[string]int{}
	for _, l := range strings.Fields(readFile(t, log)) {
		n[l]++
	}
	if n["watch"] != 3 || n["build"] != 2 {
		t.Fatalf("runs %v, want watch 3 times and build twice", n)
	}
}

// TestExecSigOnShutdown: SIGTERM to mgmt-apply cancels a running command
// with the exec's sig.
func TestExecSigOnShutdown(t *testing.T) {
	d := t.TempDir()
	ready, got := d+"/ready", d+"/got"
	if err := syscall.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	script := "trap 'echo INT > " + got + "; exit 0' INT; echo > " + ready + "; while :; do sleep 1; done"
	p := startApply(t, "--tmp-prefix")
	p.Write(gdoc(1, []res{ex("long", script, P{"sig": "SIGINT"})}))
	if _, err := os.ReadFile(ready); err != nil { // the command is running, its trap set
		t.Fatal(err)
	}
	start := time.Now()
	p.Signal(syscall.SIGTERM)
	p.Wait()
	if s := readFile(t, got); s != "INT\n" {
		t.Fatalf("the command caught %q, want INT", s)
	}
	if el := time.Since(start); el > 4*time.Second {
		t.Fatalf("shutdown took %v", el)
	}
}
