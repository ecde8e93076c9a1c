package resources

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExecNIfCmd: nifcmd exiting 0 skips the command, a non-zero exit
// lets it run, at every CheckApply.
func TestExecNIfCmd(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	log, flag := filepath.Join(dir, "log"), filepath.Join(dir, "flag")
	e := newExec(t, h, &ExecRes{Cmd: "echo ran >> " + log, Shell: "/bin/sh", NIfCmd: "test -e " + flag, NIfShell: "/bin/sh", NIfCwd: dir})
	checkApply(t, e, true, false)
	checkApply(t, e, true, false) // a guard decides at every CheckApply
	mustWrite(t, flag, "")
	checkApply(t, e, true, true)
	if n := countLines(t, log); n != 2 {
		t.Fatalf("ran %d times, want 2", n)
	}
	broken := newExec(t, h, &ExecRes{Cmd: "true", NIfCmd: "/no/such/program"})
	if _, err := broken.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "nifcmd") {
		t.Fatalf("a nifcmd that cannot start: got %v", err)
	}
}

// TestExecIfEquals: with ifcmd exiting 0, ifequals compares its stdout and
// stderr together, ifequals_stdout its stdout alone.
func TestExecIfEquals(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	log, state := filepath.Join(dir, "log"), filepath.Join(dir, "state")
	mustWrite(t, state, "old\n")
	e := newExec(t, h, &ExecRes{Cmd: "echo ran >> " + log, Shell: "/bin/sh",
		IfCmd: "cat " + state + "; echo warn >&2", IfShell: "/bin/sh", IfEqualsStdout: strp("done\n")})
	checkApply(t, e, true, false)
	mustWrite(t, state, "done\n")
	checkApply(t, e, true, true)
	if n := countLines(t, log); n != 1 {
		t.Fatalf("ran %d times, want 1", n)
	}

	both := newExec(t, h, &ExecRes{Cmd: "echo ran >> " + log, Shell: "/bin/sh",
		IfCmd: "echo out; echo err >&2", IfShell: "/bin/sh", IfEquals: strp("out\nerr\n")})
	checkApply(t, both, true, true)
	empty := newExec(t, h, &ExecRes{Cmd: "echo ran >> " + log, Shell: "/bin/sh", IfCmd: "true", IfEquals: strp("")})
	checkApply(t, empty, true, true) // printed nothing: equal to ""
	other := newExec(t, h, &ExecRes{Cmd: "echo ran >> " + log, Shell: "/bin/sh", IfCmd: "echo x", IfEquals: strp("y")})
	checkApply(t, other, true, false)
	if n := countLines(t, log); n != 2 {
		t.Fatalf("ran %d times, want 2", n)
	}
}

// TestExecRefreshOnly: the command runs on a refresh only, still subject
// to its guards.
func TestExecRefreshOnly(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	log, made := filepath.Join(dir, "log"), filepath.Join(dir, "made")
	e := newExec(t, h, &ExecRes{Cmd: "echo ran >> " + log, Shell: "/bin/sh", RefreshOnly: true})
	checkApply(t, e, true, true)
	checkApply(t, e, true, true)
	if exists(log) {
		t.Fatal("ran without a refresh")
	}
	h.setRefresh(true)
	checkApply(t, e, false, false) // noop: would run
	if exists(log) {
		t.Fatal("apply=false ran the command")
	}
	checkApply(t, e, true, false)
	h.setRefresh(false)
	checkApply(t, e, true, true)
	if n := countLines(t, log); n != 1 {
		t.Fatalf("ran %d times, want 1", n)
	}

	g := newExec(t, h, &ExecRes{Cmd: "touch " + made, RefreshOnly: true, Creates: made})
	h.setRefresh(true)
	checkApply(t, g, true, false)
	checkApply(t, g, true, true) // refreshed, but creates exists
	h.setRefresh(false)
	if !exists(made) {
		t.Fatal("the refresh did not run the command")
	}
}

// TestExecWatchFiles: a change to a watched file, or anywhere below a
// watched directory given with a trailing slash, makes the command due.
func TestExecWatchFiles(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	log, conf, tree := filepath.Join(dir, "log"), filepath.Join(dir, "app.conf"), filepath.Join(dir, "tree")
	mustWrite(t, conf, "a\n")
	if err := os.MkdirAll(filepath.Join(tree, "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := newExec(t, h, &ExecRes{Cmd: "echo ran >> " + log, Shell: "/bin/sh", WatchFiles: []string{conf, tree + "/"}})
	checkApply(t, e, true, false)
	checkApply(t, e, true, true)
	startWatch(t, h, e)
	expectEvent(t, h, "watched file written", func() { mustWrite(t, conf, "b\n") })
	checkApply(t, e, true, false)
	checkApply(t, e, true, true)
	expectEvent(t, h, "file made deep in a watched tree", func() { mustWrite(t, filepath.Join(tree, "deep", "new"), "") })
	checkApply(t, e, true, false)
	if n := countLines(t, log); n != 3 {
		t.Fatalf("ran %d times, want 3", n)
	}
}

// TestExecMTimes: a listed file modified since the last successful run
// forces a run past the guards; what the files were at that run is kept
// in the vardir, so a new resource (a restarted engine) does not run
// again; a missing file is an error; a change to a listed file is an
// event.
func TestExecMTimes(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	log, a, b := filepath.Join(dir, "log"), filepath.Join(dir, "a"), filepath.Join(dir, "b")
	past := time.Now().Add(-time.Hour)
	for _, p := range []string{a, b} {
		mustWrite(t, p, "")
		if err := os.Chtimes(p, past, past); err != nil {
			t.Fatal(err)
		}
	}
	spec := func() *ExecRes {
		return &ExecRes{Cmd: "echo ran >> " + log, Shell: "/bin/sh", MTimes: []string{a, b}, IfCmd: "false"}
	}
	e := newExec(t, h, spec())
	checkApply(t, e, false, false) // never ran: due, but noop
	checkApply(t, e, true, false)  // never ran: runs despite ifcmd
	checkApply(t, e, true, true)   // nothing newer, ifcmd says no
	mustWrite(t, b, "changed\n")
	checkApply(t, e, true, false)
	checkApply(t, e, true, true)
	if n := countLines(t, log); n != 2 {
		t.Fatalf("ran %d times, want 2", n)
	}
	again := newExec(t, h, spec())
	checkApply(t, again, true, true)

	startWatch(t, h, again)
	expectEvent(t, h, "listed file written", func() { mustWrite(t, a, "x") })
	checkApply(t, again, true, false)
	if n := countLines(t, log); n != 3 {
		t.Fatalf("ran %d times, want 3", n)
	}

	failing := newExec(t, newHarness(t), &ExecRes{Cmd: "exit 1", Shell: "/bin/sh", MTimes: []string{a}})
	if _, err := failing.CheckApply(t.Context(), true); err == nil {
		t.Fatal("the failing command succeeded")
	}
	if _, err := failing.CheckApply(t.Context(), true); err == nil {
		t.Fatal("a failed run was recorded: the command did not run again")
	}
	os.Remove(a)
	if _, err := again.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "mtimes") {
		t.Fatalf("a missing mtimes file: got %v", err)
	}
}

// runCancelled starts e's CheckApply, waits until the command wrote to the
// fifo ready (it is running, its traps are set), cancels it and returns
// its error.
func runCancelled(t *testing.T, e *ExecRes, ready string) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := e.CheckApply(ctx, true)
		done <- err
	}()
	if _, err := os.ReadFile(ready); err != nil { // blocks until the command opens the fifo
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		return err
	case <-time.After(killGrace + 10*time.Second):
		t.Fatal("the cancelled command did not end")
	}
	return nil
}

// gone reports whether the process pid has ended (it may stay a zombie
// until its new parent reaps it).
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}

// TestExecSig: cancelling a run sends sig (SIGTERM by default) to the
// command's process group; a signal that does not end the command is
// followed by SIGKILL, and what is left of the group is killed.
func TestExecSig(t *testing.T) {
	for _, tc := range []struct{ sig, trap string }{{"", "TERM"}, {"SIGINT", "INT"}, {"SIGUSR1", "USR1"}, {"SIGCONT", "CONT"}} {
		t.Run(tc.trap, func(t *testing.T) {
			h := newHarness(t)
			dir := t.TempDir()
			ready, got, pidFile := filepath.Join(dir, "ready"), filepath.Join(dir, "got"), filepath.Join(dir, "pid")
			if err := syscall.Mkfifo(ready, 0o600); err != nil {
				t.Fatal(err)
			}
			exit := "exit 0"
			if tc.trap == "CONT" {
				exit = ":" // survives its signal: only SIGKILL ends it
			}
			// The background sleep ignores SIGINT (sh does that to
			// background jobs) and outlives the shell unless killed.
			script := "trap 'echo " + tc.trap + " >> " + got + "; " + exit + "' " + tc.trap + "; " +
				"sleep 600 >/dev/null 2>&1 & echo $! > " + pidFile + "; echo > " + ready + "; while :; do wait; done"
			e := newExec(t, h, &ExecRes{Cmd: script, Shell: "/bin/sh", Sig: tc.sig})
			start := time.Now()
			if err := runCancelled(t, e, ready); err == nil {
				t.Fatal("a cancelled run reported success")
			}
			if s := strings.TrimSpace(mustRead(t, got)); !strings.HasPrefix(s, tc.trap) {
				t.Fatalf("the command caught %q, want %s", s, tc.trap)
			}
			if d := time.Since(start); tc.trap != "CONT" && d > killGrace {
				t.Fatalf("the command ended after %v: its signal did not end it", d)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(mustRead(t, pidFile)))
			if err != nil {
				t.Fatal(err)
			}
			// The group was sent SIGKILL before CheckApply returned:
			// wait for the kernel to end the process.
			for deadline := time.Now().Add(10 * time.Second); !gone(pid); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Fatalf("process %d of the group outlived the cancelled run", pid)
				}
			}
		})
	}
}

// TestExecSendsWhenSkipped: a run skipped by a guard sends what the last
// successful run sent, kept in the vardir across restarts, or without
// one the send_* fallbacks.
func TestExecSendsWhenSkipped(t *testing.T) {
	h := newHarness(t)
	made := filepath.Join(t.TempDir(), "made")
	spec := func() *ExecRes {
		return &ExecRes{Cmd: "echo built; touch " + made, Shell: "/bin/sh", Creates: made, SendOutput: strp("fallback")}
	}
	e := newExec(t, h, spec())
	checkApply(t, e, true, false)
	if s := h.sent.(*ExecSends); *s.Output != "built\n" {
		t.Fatalf("sent %q", *s.Output)
	}
	h.sent = nil
	restarted := newExec(t, h, spec())
	checkApply(t, restarted, true, true)
	if s, ok := h.sent.(*ExecSends); !ok || *s.Output != "built\n" || *s.Stdout != "built\n" || *s.Stderr != "" {
		t.Fatalf("a skipped run sent %+v, want the recorded output", h.sent)
	}
	fi, err := os.Stat(filepath.Join(h.vardir, "exec", execCache))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the recorded output: %v, mode %v (want 0600: it may hold secrets)", err, fi.Mode())
	}

	fresh := newHarness(t)
	f := newExec(t, fresh, spec())
	checkApply(t, f, true, true)
	if s, ok := fresh.sent.(*ExecSends); !ok || s.Output == nil || *s.Output != "fallback" || s.Stdout != nil {
		t.Fatalf("sent %+v, want the fallback output and no stdout", fresh.sent)
	}
}

func TestExecParamsValidate(t *testing.T) {
	for _, tc := range []struct {
		e    *ExecRes
		want string
	}{
		{&ExecRes{Cmd: "x", Sig: "TERM"}, "not a signal name"},
		{&ExecRes{Cmd: "x", Sig: "SIGNOPE"}, "not a signal name"},
		{&ExecRes{Cmd: "x", IfEquals: strp("")}, "ifequals needs ifcmd"},
		{&ExecRes{Cmd: "x", IfEqualsStdout: strp("a")}, "ifequals_stdout needs ifcmd"},
		{&ExecRes{Cmd: "x", NIfCmd: "y", NIfCwd: "rel"}, "nifcwd"},
		{&ExecRes{Cmd: "x", WatchFiles: []string{"rel"}}, "watchfiles path \"rel\" must be absolute"},
		{&ExecRes{Cmd: "x", MTimes: []string{"rel"}}, "mtimes path"},
		{&ExecRes{Cmd: "x", MTimes: []string{"/etc/"}}, "must be a file"},
		{&ExecRes{Cmd: "x", RefreshOnly: true, WatchCmd: "y"}, "refreshonly cannot be combined with watchcmd"},
		{&ExecRes{Cmd: "x", RefreshOnly: true, MTimes: []string{"/a"}}, "mtimes"},
	} {
		err := tc.e.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.e, err, tc.want)
		}
	}
	if err := (&ExecRes{Cmd: "x", Sig: "SIGCONT", IfCmd: "y", IfEquals: strp("")}).Validate(); err != nil {
		t.Fatal(err)
	}
	a, b := &ExecRes{Cmd: "x", MTimes: []string{"/a"}}, &ExecRes{Cmd: "x", MTimes: []string{"/b"}}
	if a.Cmp(b) == nil {
		t.Fatal("different mtimes compare equal")
	}
	if err := a.Cmp(&ExecRes{Cmd: "x", MTimes: []string{"/a"}}); err != nil {
		t.Fatal(err)
	}
	if a.Cmp(&PrintRes{}) == nil {
		t.Fatal("an exec equals a print")
	}
}
