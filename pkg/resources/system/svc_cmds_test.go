package system

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSvcStatusCmd checks that a status command, run for real, decides
// whether the service runs, and that the unit's state decides without one.
func TestSvcStatusCmd(t *testing.T) {
	up := filepath.Join(t.TempDir(), "up")
	r := newSvc("mgmt-cmds", "running", "")
	r.StatusCmd = "test -e '" + up + "'"
	active := svcStatus{active: "active"}
	if run, err := r.running(t.Context(), active); err != nil || run {
		t.Fatalf("status command failing: running %v, %v; want false (the unit's state is not asked)", run, err)
	}
	if err := os.WriteFile(up, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if run, err := r.running(t.Context(), svcStatus{active: "inactive"}); err != nil || !run {
		t.Fatalf("status command succeeding: running %v, %v; want true", run, err)
	}
	r.StatusCmd = "kill -TERM $$"
	if run, err := r.running(t.Context(), active); err != nil || run {
		t.Fatalf("status command killed by a signal: running %v, %v; want false", run, err)
	}
	r.StatusCmd = ""
	if run, err := r.running(t.Context(), active); err != nil || !run {
		t.Fatalf("no status command, active unit: running %v, %v", run, err)
	}
}

// TestSvcCommand runs a command that succeeds and one that fails: the
// error names the parameter and quotes the command and its output.
func TestSvcCommand(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "started")
	r := newSvc("mgmt-cmds", "running", "")
	h := newHarness(t, r)
	if err := r.command(t.Context(), "startcmd", "echo started > '"+mark+"'"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(mark); err != nil || string(b) != "started\n" {
		t.Fatalf("the command did not run: %q, %v", b, err)
	}
	err := r.command(t.Context(), "restartcmd", "echo no such daemon >&2; exit 3")
	if err == nil || !strings.Contains(err.Error(), `restartcmd "echo no such daemon >&2; exit 3": exit status 3: no such daemon`) {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(strings.Join(h.log, "\n"), "restartcmd: echo no such daemon") {
		t.Fatalf("the command is not logged: %q", h.log)
	}
}

func TestSvcCmpCommands(t *testing.T) {
	a, b := newSvc("x", "running", ""), newSvc("x", "running", "")
	a.RestartCmd, b.RestartCmd = "service x reload", "service x reload"
	if err := a.Cmp(b); err != nil {
		t.Fatal(err)
	}
	b.StatusCmd = "true"
	if err := a.Cmp(b); err == nil || !strings.Contains(err.Error(), "statuscmd differs") {
		t.Fatalf("got %v", err)
	}
}

// TestSvcCommandEnvironment checks what a command runs with: no HOME,
// USER or LOGNAME, the rest of the environment.
func TestSvcCommandEnvironment(t *testing.T) {
	t.Setenv("HOME", "/root")
	t.Setenv("MGMT_SVC_KEPT", "kept")
	out := filepath.Join(t.TempDir(), "env")
	r := newSvc("mgmt-cmds", "running", "")
	newHarness(t, r)
	if err := r.command(t.Context(), "startcmd", "echo ${HOME-none} ${USER-none} ${LOGNAME-none} $MGMT_SVC_KEPT > "+out); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "none none none kept\n" {
		t.Fatalf("environment: %q", b)
	}
}
