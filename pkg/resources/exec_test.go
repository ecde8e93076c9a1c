package resources

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/engine"
)

func newExec(t testing.TB, h *harness, e *ExecRes) *ExecRes {
	t.Helper()
	return setup(t, h, "exec", "e", e).(*ExecRes)
}

// countLines returns the number of lines of the file at p (0 if missing).
func countLines(t testing.TB, p string) int {
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

func TestExecRunsOnceAndOnRefresh(t *testing.T) {
	h := newHarness(t)
	log := filepath.Join(t.TempDir(), "log")
	e := newExec(t, h, &ExecRes{Cmd: "echo ran >> " + log, Shell: "/bin/sh"})
	checkApply(t, e, false, false) // noop: it would run
	if n := countLines(t, log); n != 0 {
		t.Fatal("apply=false ran the command")
	}
	checkApply(t, e, true, false)
	checkApply(t, e, true, true) // paired execution or a poke: no run
	checkApply(t, e, true, true)
	if n := countLines(t, log); n != 1 {
		t.Fatalf("ran %d times, want 1", n)
	}
	h.setRefresh(true)
	checkApply(t, e, true, false)
	h.setRefresh(false)
	checkApply(t, e, true, true)
	if n := countLines(t, log); n != 2 {
		t.Fatalf("ran %d times after a refresh, want 2", n)
	}
}

func TestExecSends(t *testing.T) {
	h := newHarness(t)
	e := newExec(t, h, &ExecRes{Cmd: "echo out; echo err >&2", Shell: "/bin/sh"})
	checkApply(t, e, true, false)
	s, ok := h.sent.(*ExecSends)
	if !ok {
		t.Fatalf("sent %T", h.sent)
	}
	// stdout and stderr are separate pipes: their interleaving in output
	// follows the order the pipes were read in.
	if *s.Stdout != "out\n" || *s.Stderr != "err\n" || (*s.Output != "out\nerr\n" && *s.Output != "err\nout\n") {
		t.Fatalf("sent stdout %q stderr %q output %q", *s.Stdout, *s.Stderr, *s.Output)
	}
}

func TestExecArgsCwdEnv(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	e := newExec(t, h, &ExecRes{Cmd: "/bin/sh", Args: []string{"-c", "pwd; echo $GREETING"}, Cwd: dir, Env: map[string]string{"GREETING": "hi there"}})
	checkApply(t, e, true, false)
	if got := *h.sent.(*ExecSends).Stdout; got != dir+"\nhi there\n" {
		t.Fatalf("stdout %q", got)
	}
	split := newExec(t, h, &ExecRes{Cmd: "echo  a   b"})
	checkApply(t, split, true, false)
	if got := *h.sent.(*ExecSends).Stdout; got != "a b\n" {
		t.Fatalf("stdout %q", got)
	}
}

// TestExecUnsetEnv: unsetenv takes variables out of what the commands
// inherit, the guard's too; env sets one again.
func TestExecUnsetEnv(t *testing.T) {
	t.Setenv("MGMT_TEST_A", "a")
	t.Setenv("MGMT_TEST_B", "b")
	h := newHarness(t)
	e := newExec(t, h, &ExecRes{Cmd: `echo "[$MGMT_TEST_A][$MGMT_TEST_B][${MGMT_TEST_C-unset}]"`, Shell: "/bin/sh",
		IfCmd: `test -z "$MGMT_TEST_A"`, IfShell: "/bin/sh",
		UnsetEnv: []string{"MGMT_TEST_A", "MGMT_TEST_B"}, Env: map[string]string{"MGMT_TEST_B": "again"}})
	checkApply(t, e, true, false)
	if got := *h.sent.(*ExecSends).Stdout; got != "[][again][unset]\n" {
		t.Fatalf("stdout %q", got)
	}
	bad := &ExecRes{Cmd: "x", UnsetEnv: []string{"A=B"}}
	if err := bad.Validate(); err == nil {
		t.Fatal("a name with = accepted")
	}
}

func TestExecIfCmdAndCreates(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	flag := filepath.Join(dir, "flag")
	e := newExec(t, h, &ExecRes{Cmd: "echo ran >> " + log, Shell: "/bin/sh", IfCmd: "test -e " + flag, IfShell: "/bin/sh"})
	checkApply(t, e, true, true)
	mustWrite(t, flag, "")
	checkApply(t, e, true, false)
	checkApply(t, e, true, false) // the guard decides at every CheckApply
	if n := countLines(t, log); n != 2 {
		t.Fatalf("ran %d times, want 2", n)
	}

	made := filepath.Join(dir, "made")
	c := newExec(t, h, &ExecRes{Cmd: "touch " + made, Creates: made})
	checkApply(t, c, true, false)
	checkApply(t, c, true, true)
	h.setRefresh(true)
	checkApply(t, c, true, true) // creates guards refreshes too
	h.setRefresh(false)
	os.Remove(made)
	checkApply(t, c, true, false)

	// A dangling link is not what creates waits for; its target is.
	target := filepath.Join(dir, "target")
	linked := filepath.Join(dir, "linked")
	if err := os.Symlink(target, linked); err != nil {
		t.Fatal(err)
	}
	l := newExec(t, h, &ExecRes{Cmd: "echo ran >> " + log, Shell: "/bin/sh", Creates: linked})
	checkApply(t, l, true, false)
	mustWrite(t, target, "")
	checkApply(t, l, true, true)
}

func TestExecFailureAndTimeout(t *testing.T) {
	h := newHarness(t)
	e := newExec(t, h, &ExecRes{Cmd: "echo broken >&2; exit 3", Shell: "/bin/sh"})
	_, err := e.CheckApply(context.Background(), true)
	if err == nil || !strings.Contains(err.Error(), "broken") || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("got %v", err)
	}
	// Failure keeps the command due.
	if _, err := e.CheckApply(context.Background(), true); err == nil {
		t.Fatal("second run did not run the failing command")
	}

	slow := newExec(t, h, &ExecRes{Cmd: "sleep 30 & sleep 30; wait", Shell: "/bin/sh", Timeout: 1})
	start := time.Now()
	_, err = slow.CheckApply(context.Background(), true)
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("timeout took %v", d)
	}
}

func TestExecCancel(t *testing.T) {
	h := newHarness(t)
	e := newExec(t, h, &ExecRes{Cmd: "sleep 60", Shell: "/bin/sh"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := e.CheckApply(ctx, true)
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("cancelled command reported success")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancel did not stop the command")
	}
}

func TestExecDoneCmd(t *testing.T) {
	h := newHarness(t)
	done := filepath.Join(t.TempDir(), "done")
	e := newExec(t, h, &ExecRes{Cmd: "true", DoneCmd: "touch " + done})
	checkApply(t, e, true, false)
	if !exists(done) {
		t.Fatal("donecmd did not run")
	}
}

func TestExecWatchCmd(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "lines")
	mustWrite(t, fifo, "")
	log := filepath.Join(dir, "log")
	e := newExec(t, h, &ExecRes{Cmd: "echo ran >> " + log, Shell: "/bin/sh", WatchCmd: "tail -n +1 -f " + fifo, WatchShell: "/bin/sh"})
	checkApply(t, e, true, false)
	checkApply(t, e, true, true)
	startWatch(t, h, e)
	expectEvent(t, h, "watchcmd line", func() { appendLine(t, fifo, "something happened") })
	checkApply(t, e, true, false)
	if n := countLines(t, log); n != 2 {
		t.Fatalf("ran %d times, want 2", n)
	}
}

// TestExecDueWhileRunning: a line of watchcmd printed while the command
// runs makes it due again once that run is over, and a failed run leaves
// it due.
func TestExecDueWhileRunning(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	lines, log, gate := filepath.Join(dir, "lines"), filepath.Join(dir, "log"), filepath.Join(dir, "gate")
	mustWrite(t, lines, "")
	e := newExec(t, h, &ExecRes{Cmd: "echo ran >> " + log + "; while [ ! -e " + gate + " ]; do sleep 0.01; done",
		Shell: "/bin/sh", WatchCmd: "tail -n +1 -f " + lines, WatchShell: "/bin/sh"})
	startWatch(t, h, e)
	done := make(chan error, 1)
	go func() {
		_, err := e.CheckApply(t.Context(), true)
		done <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); !exists(log); {
		if time.Now().After(deadline) {
			t.Fatal("the command did not start")
		}
		time.Sleep(time.Millisecond)
	}
	expectEvent(t, h, "watchcmd line while the command runs", func() { appendLine(t, lines, "changed") })
	mustWrite(t, gate, "")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	checkApply(t, e, true, false)
	if n := countLines(t, log); n != 2 {
		t.Fatalf("ran %d times, want 2: the line printed during the first run was lost", n)
	}
	checkApply(t, e, true, true)

	failing := newExec(t, newHarness(t), &ExecRes{Cmd: "echo ran >> " + log + "; exit 1", Shell: "/bin/sh"})
	for range 2 {
		if _, err := failing.CheckApply(t.Context(), true); err == nil {
			t.Fatal("a failing command succeeded")
		}
	}
	if n := countLines(t, log); n != 4 {
		t.Fatalf("ran %d times in all, want 4: a failed run must stay due", n)
	}
}

// TestExecWatchInterval: each tick makes the command due, as a line of
// watchcmd does, with no process behind it: the watch of an exec that runs
// as a user the graph has not made yet starts, and the command runs as
// that user once it exists.
func TestExecWatchInterval(t *testing.T) {
	h := newHarness(t)
	log := filepath.Join(t.TempDir(), "log")
	e := newExec(t, h, &ExecRes{Cmd: "echo ran >> " + log, Shell: "/bin/sh", WatchInterval: 1})
	checkApply(t, e, true, false)
	checkApply(t, e, true, true)
	startWatch(t, h, e)
	expectEvent(t, h, "tick", func() {})
	checkApply(t, e, true, false)
	if n := countLines(t, log); n != 2 {
		t.Fatalf("ran %d times, want 2", n)
	}
	if err := (&ExecRes{Cmd: "x", RefreshOnly: true, WatchInterval: 5}).Validate(); err == nil {
		t.Fatal("refreshonly with watchinterval accepted")
	}

	if os.Geteuid() != 0 {
		testneed.Missing(t, "needs root to add a user")
	}
	name := fmt.Sprintf("mgmtexw%x", time.Now().UnixNano()&0xffffff)
	h = newHarness(t) // its own events
	u := newExec(t, h, &ExecRes{Cmd: "id -un", Shell: "/bin/sh", User: name, WatchInterval: 1})
	startWatch(t, h, u) // the user does not exist yet
	if out, err := exec.Command("useradd", "-M", name).CombinedOutput(); err != nil {
		t.Fatalf("useradd: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("userdel", name).Run() })
	for run := range 2 {
		if run > 0 {
			h.sent = nil
			expectEvent(t, h, "tick of the exec run as a user", func() {})
		}
		checkApply(t, u, true, false)
		if got := *h.sent.(*ExecSends).Stdout; got != name+"\n" {
			t.Fatalf("run %d: ran as %q, want %s", run, got, name)
		}
	}
}

func TestExecValidateAndCmp(t *testing.T) {
	for _, e := range []*ExecRes{
		{},
		{Cmd: "x", Shell: "/bin/sh", Args: []string{"a"}},
		{Cmd: "x", Cwd: "rel"},
		{Cmd: "x", Creates: "rel"},
		{Cmd: "x", Env: map[string]string{"A=B": "c"}},
	} {
		if e.Validate() == nil {
			t.Errorf("%+v accepted", e)
		}
	}
	a := &ExecRes{Cmd: "x", Env: map[string]string{"A": "1"}}
	b := &ExecRes{Cmd: "x", Env: map[string]string{"A": "1"}}
	if err := a.Cmp(b); err != nil {
		t.Fatal(err)
	}
	b.Env["A"] = "2"
	if a.Cmp(b) == nil {
		t.Fatal("different env compares equal")
	}
	ae, _ := (&ExecRes{Cmd: "x", Cwd: "/srv/", Creates: "/srv/done"}).AutoEdges()
	uids := ae.Next()
	if len(uids) != 2 || uids[0].GetName() != "/srv" || uids[0].IsReversed() || !uids[1].IsReversed() {
		t.Fatalf("autoedges %v", uids)
	}
	if ae.Test([]bool{false, false}) || ae.Next() != nil {
		t.Fatal("autoedges go on after their one batch")
	}
	ae, _ = (&ExecRes{Cmd: "true", User: "app", Group: "staff"}).AutoEdges()
	uids = ae.Next()
	if len(uids) != 2 || uids[0].GetKind() != "user" || uids[0].GetName() != "app" || uids[0].IsReversed() ||
		uids[1].GetKind() != "group" || uids[1].GetName() != "staff" || uids[1].IsReversed() {
		t.Fatalf("user and group autoedges %v", uids)
	}
	ae, _ = (&ExecRes{Cmd: "/opt/tool/bin/run --fast"}).AutoEdges()
	uids = ae.Next()
	if len(uids) != 2 || uids[0].GetKind() != "file" || uids[1].GetKind() != "pkg" || uids[1].GetName() != "/opt/tool/bin/run" {
		t.Fatalf("program autoedges %v", uids)
	}
}

func TestExecUser(t *testing.T) {
	if os.Geteuid() != 0 {
		testneed.Missing(t, "needs root to switch users")
	}
	h := newHarness(t)
	e := newExec(t, h, &ExecRes{Cmd: "id -un; id -g", Shell: "/bin/sh", User: "nobody", Group: "0"})
	checkApply(t, e, true, false)
	if got := *h.sent.(*ExecSends).Stdout; got != "nobody\n0\n" {
		t.Fatalf("stdout %q", got)
	}
	// as su does: the user's primary group and its supplementary groups
	grp := fmt.Sprintf("mgmtexg%x", time.Now().UnixNano()&0xffffff)
	if out, err := exec.Command("groupadd", grp).CombinedOutput(); err != nil {
		t.Fatalf("groupadd: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("groupdel", grp).Run() })
	if out, err := exec.Command("useradd", "-M", "-N", "-g", "nogroup", "-G", grp, grp).CombinedOutput(); err != nil {
		t.Fatalf("useradd: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("userdel", grp).Run() })
	ug := newExec(t, h, &ExecRes{Cmd: "id -un; id -gn; id -Gn", Shell: "/bin/sh", User: grp})
	checkApply(t, ug, true, false)
	if got := *h.sent.(*ExecSends).Stdout; got != grp+"\nnogroup\nnogroup "+grp+"\n" {
		t.Fatalf("stdout %q, want the user, its primary group, and the primary and supplementary ones", got)
	}
	bad := newExec(t, h, &ExecRes{Cmd: "true", User: "no-such-user-here"})
	if _, err := bad.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "unknown user") {
		t.Fatalf("got %v", err)
	}
}

func TestExecPollRunsEachTime(t *testing.T) {
	h := newHarness(t)
	log := filepath.Join(t.TempDir(), "log")
	e := &ExecRes{Cmd: "echo ran >> " + log, Shell: "/bin/sh"}
	e.SetMetaParams(&engine.MetaParams{Poll: 1})
	newExec(t, h, e)
	checkApply(t, e, true, false)
	checkApply(t, e, true, false)
	if n := countLines(t, log); n != 2 {
		t.Fatalf("ran %d times in two polls, want 2", n)
	}
}

func TestExecWatchCmdExit(t *testing.T) {
	h := newHarness(t)
	e := newExec(t, h, &ExecRes{Cmd: "true", WatchCmd: "echo once", WatchShell: "/bin/sh"})
	err := e.Watch(t.Context())
	if err == nil || !strings.Contains(err.Error(), "watchcmd exited") {
		t.Fatalf("got %v, want an error saying watchcmd exited", err)
	}
	select {
	case <-h.running:
	default:
		t.Fatal("Running not called")
	}
	select {
	case <-h.events:
	default:
		t.Fatal("the line printed before exiting made no event")
	}
}

// appendLine appends line and a newline to the existing file path, as a
// watchcmd's tail -f sees it.
func appendLine(t testing.TB, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}
