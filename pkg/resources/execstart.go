package resources

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// The commands of exec resources die with the process that started them,
// even when it is killed with SIGKILL and cannot stop them: command sets
// SysProcAttr.Pdeathsig, so that the kernel sends SIGKILL to the command
// when its parent dies.
//
// The kernel's parent is the thread that forked the command, not the
// process: a command forked from a thread that exits gets the signal
// then, in the middle of its run. The Go runtime ends a thread when a
// goroutine locked to it (runtime.LockOSThread) returns without unlocking,
// which any code in the process may do on any thread, and a goroutine
// calling cmd.Start runs on whichever thread is free. Locking the caller's
// thread just around Start would not help: the thread goes back to the
// pool afterwards and may be ended later. A subreaper would not help
// either: it adopts orphans, it does not signal them. So every command is
// started by one goroutine that locks its thread and never returns: that
// thread ends with the process, and only then do the commands get their
// signal.
//
// The signal reaches the command's own process only: processes it forked
// (a shell running a command without exec) outlive a SIGKILL of the
// engine. Cancelling a run (a timeout, a graceful stop) signals the whole
// process group (exec's sig, SIGTERM by default), and SIGKILL follows
// killGrace later for the command and at once, once the command has
// ended, for the rest of its group.

// forker is the goroutine that starts the commands (see above); it lives
// as long as the process.
var forker struct {
	once sync.Once
	reqs chan forkReq
}

type forkReq struct {
	cmd  *exec.Cmd
	done chan error
}

// startCommand starts cmd from the forking thread.
func startCommand(cmd *exec.Cmd) error {
	forker.once.Do(func() {
		forker.reqs = make(chan forkReq)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread must not end
			for r := range forker.reqs {
				r.done <- r.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	forker.reqs <- forkReq{cmd, done}
	return <-done
}

// runCommand starts cmd from the forking thread and waits for it.
func runCommand(cmd *exec.Cmd) error {
	if err := startCommand(cmd); err != nil {
		return err
	}
	return waitCommand(cmd)
}

// killGrace is how long a cancelled command has, after its signal (exec's
// sig), before SIGKILL ends it.
const killGrace = 5 * time.Second

// cancelled holds the started commands whose Cancel ran (see waitCommand).
var cancelled sync.Map // *exec.Cmd -> struct{}

// groupCancel returns a Cancel function for cmd, which must run in its own
// process group: it sends sig to the whole group. The exec package kills
// the command itself killGrace later if it is still running, and
// waitCommand kills the rest of the group.
func groupCancel(cmd *exec.Cmd, sig syscall.Signal) func() error {
	return func() error {
		cancelled.Store(cmd, struct{}{})
		return syscall.Kill(-cmd.Process.Pid, sig)
	}
}

// waitCommand waits for cmd and, when its run was cancelled, kills with
// SIGKILL what is left of its process group (children that ignored or
// caught the signal), so that a cancelled run leaves nothing behind.
func waitCommand(cmd *exec.Cmd) error {
	err := cmd.Wait()
	if _, ok := cancelled.LoadAndDelete(cmd); ok {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // ESRCH when the group is gone
	}
	return err
}
