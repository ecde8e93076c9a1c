package resources

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// validateExtra checks the parameters that guard, force or signal a run.
func (obj *ExecRes) validateExtra() error {
	if obj.Sig != "" {
		if !strings.HasPrefix(obj.Sig, "SIG") || unix.SignalNum(obj.Sig) == 0 {
			return fmt.Errorf("sig %q is not a signal name such as \"SIGTERM\" or \"SIGINT\"", obj.Sig)
		}
	}
	if obj.IfCmd == "" {
		if obj.IfEquals != nil {
			return fmt.Errorf("ifequals needs ifcmd")
		}
		if obj.IfEqualsStdout != nil {
			return fmt.Errorf("ifequals_stdout needs ifcmd")
		}
	}
	for _, l := range []struct {
		name  string
		paths []string
	}{{"watchfiles", obj.WatchFiles}, {"mtimes", obj.MTimes}} {
		for _, p := range l.paths {
			if !filepath.IsAbs(p) {
				return fmt.Errorf("%s path %q must be absolute", l.name, p)
			}
		}
	}
	for _, p := range obj.MTimes {
		if strings.HasSuffix(p, "/") {
			return fmt.Errorf("mtimes path %q must be a file, not a directory", p)
		}
	}
	if obj.RefreshOnly {
		switch {
		case obj.WatchCmd != "":
			return fmt.Errorf("refreshonly cannot be combined with watchcmd: its events would never run the command")
		case obj.WatchInterval > 0:
			return fmt.Errorf("refreshonly cannot be combined with watchinterval: its ticks would never run the command")
		case len(obj.WatchFiles) > 0:
			return fmt.Errorf("refreshonly cannot be combined with watchfiles: their events would never run the command")
		case len(obj.MTimes) > 0:
			return fmt.Errorf("refreshonly cannot be combined with mtimes, which runs the command without a refresh")
		}
	}
	return nil
}

// signal returns the signal that cancels a run (sig, SIGTERM by default).
func (obj *ExecRes) signal() syscall.Signal {
	if obj.Sig == "" {
		return syscall.SIGTERM
	}
	return unix.SignalNum(obj.Sig)
}

// guardsSkip runs the guards in order, ifcmd (with ifequals and
// ifequals_stdout), nifcmd and creates, and reports whether one of them
// says the command is not to run.
func (obj *ExecRes) guardsSkip(ctx context.Context) (bool, error) {
	if obj.IfCmd != "" {
		cmd, err := obj.command(ctx, obj.IfCmd, nil, obj.IfShell, obj.IfCwd)
		if err != nil {
			return false, err
		}
		stdout, both := newTailBuffer(maxOutput), newTailBuffer(maxOutput)
		if obj.IfEqualsStdout == nil {
			// One writer for both: the command gets one pipe, so its
			// output keeps the order it was written in.
			cmd.Stdout, cmd.Stderr = both, both
		} else {
			var mu sync.Mutex
			cmd.Stdout = io.MultiWriter(stdout, &lockedWriter{&mu, both})
			cmd.Stderr = &lockedWriter{&mu, both}
		}
		ok, err := guardExit(runCommand(cmd), "ifcmd")
		if err != nil || !ok {
			return true, err
		}
		if obj.IfEquals != nil && both.cut() == 0 && both.String() == *obj.IfEquals {
			return true, nil
		}
		if obj.IfEqualsStdout != nil && stdout.cut() == 0 && stdout.String() == *obj.IfEqualsStdout {
			return true, nil
		}
	}
	if obj.NIfCmd != "" {
		cmd, err := obj.command(ctx, obj.NIfCmd, nil, obj.NIfShell, obj.NIfCwd)
		if err != nil {
			return false, err
		}
		ok, err := guardExit(runCommand(cmd), "nifcmd")
		if err != nil || ok {
			return true, err
		}
	}
	if obj.Creates != "" {
		// followed, as upstream's stat and Puppet's exist? follow it: a
		// dangling link is no creates
		if _, err := os.Stat(obj.Creates); err == nil {
			return true, nil
		}
	}
	return false, nil
}

// guardExit turns the result of a guard command into whether it exited 0;
// a guard that could not run or was cancelled is an error.
func guardExit(err error, what string) (bool, error) {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &ee) && ee.Exited():
		return false, nil
	}
	return false, fmt.Errorf("%s: %v", what, err)
}

// mtimesRecord is the file in the resource's vardir that holds, for the
// last successful run, the modification time (in nanoseconds) each mtimes
// file had when the run started.
const mtimesRecord = "mtimes.json"

// mtimesChanged reports, with mtimes set, whether a listed file's
// modification time differs from the one recorded for the last successful
// run (a newer file, or one put back with an older time), or no run was
// recorded for it; snap is what to record if the next run succeeds. A
// missing file is an error. Comparing each file with its own earlier time,
// rather than with the clock, is exact: the kernel's file times are
// coarser than the clock, so a file written a moment before a run could
// look older than the run's start.
func (obj *ExecRes) mtimesChanged() (snap map[string]int64, changed bool, err error) {
	if len(obj.MTimes) == 0 {
		return nil, false, nil
	}
	if obj.init == nil {
		return nil, false, fmt.Errorf("mtimes needs a state directory")
	}
	dir, err := obj.init.VarDir("exec")
	if errors.Is(err, engine.ErrNoVarDir) {
		return nil, false, fmt.Errorf("mtimes needs a state directory")
	}
	if err != nil {
		return nil, false, err
	}
	last := map[string]int64{}
	b, err := os.ReadFile(filepath.Join(dir, mtimesRecord))
	switch {
	case err == nil:
		if err := json.Unmarshal(b, &last); err != nil {
			return nil, false, fmt.Errorf("the mtimes record of the last run: %v", err)
		}
	case !errors.Is(err, os.ErrNotExist):
		return nil, false, err
	}
	snap = make(map[string]int64, len(obj.MTimes))
	for _, p := range obj.MTimes {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, false, fmt.Errorf("mtimes: %v", err)
		}
		snap[p] = fi.ModTime().UnixNano()
		if t, ok := last[p]; !ok || t != snap[p] {
			changed = true
		}
	}
	return snap, changed, nil
}

// execCache is what a successful run sent, kept in the resource's vardir
// so that a run skipped by a guard, even in a later process, sends it.
const execCache = "sends.json"

// recordRun keeps, after a successful run, the mtimes snapshot taken
// before it and what it sent.
func (obj *ExecRes) recordRun(ctx context.Context, snap map[string]int64) error {
	if obj.init == nil {
		return nil
	}
	dir, err := obj.init.VarDir("exec")
	if errors.Is(err, engine.ErrNoVarDir) {
		return nil
	}
	if err != nil {
		return err
	}
	if snap != nil {
		b, err := json.Marshal(snap)
		if err != nil {
			return err
		}
		if err := writeAtomic(ctx, filepath.Join(dir, mtimesRecord), b, 0o600, -1, -1); err != nil {
			return err
		}
	}
	s, ok := obj.Sent().(*ExecSends)
	if !ok || s == nil {
		return nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return writeAtomic(ctx, filepath.Join(dir, execCache), b, 0o600, -1, -1)
}

// sendSkipped sends, when the command did not run and nothing was sent
// yet, what the last recorded run sent or, when none was recorded, the
// send_output, send_stdout and send_stderr fallbacks.
func (obj *ExecRes) sendSkipped() error {
	if obj.init == nil || obj.Sent() != nil {
		return nil
	}
	s := &ExecSends{}
	if dir, err := obj.init.VarDir("exec"); !errors.Is(err, engine.ErrNoVarDir) {
		if err != nil {
			return err
		}
		b, err := os.ReadFile(filepath.Join(dir, execCache))
		switch {
		case err == nil:
			if err := json.Unmarshal(b, s); err != nil {
				return fmt.Errorf("the recorded output of the last run: %v", err)
			}
			return obj.init.Send(s)
		case !errors.Is(err, os.ErrNotExist):
			return err
		}
	}
	if obj.SendOutput == nil && obj.SendStdout == nil && obj.SendStderr == nil {
		return nil
	}
	return obj.init.Send(&ExecSends{Output: obj.SendOutput, Stdout: obj.SendStdout, Stderr: obj.SendStderr})
}
