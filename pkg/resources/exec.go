package resources

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("exec", func() engine.Res { return &ExecRes{} })
}

// ExecRes runs a command.
//
// Without a guard (ifcmd, nifcmd, creates), the command runs on the first
// CheckApply, on a refresh notification, after each line printed by
// watchcmd, at each tick of watchinterval and after each change of a
// watchfiles path; other CheckApply
// calls (a poke from a changed predecessor, the second half of a paired
// execution) find the state right. With a guard, the command runs
// whenever the guards let it: ifcmd must exit 0 (and print ifequals, when
// set, is a reason to skip), nifcmd must exit non-zero, creates must be
// missing; the guards are checked at every CheckApply, refresh or not.
// With refreshonly, only a refresh runs the command (still subject to the
// guards). With mtimes, a listed file modified since the last successful
// run started (or a command that never ran) forces a run, bypassing the
// guards. With Meta:poll, every poll is an event: the
// command runs at each one.
type ExecRes struct {
	traits.Base
	traits.Edgeable
	traits.Refreshable
	traits.Sendable

	init *engine.Init

	// Cmd is the command: run by Shell with -c when Shell is set; with
	// Args, the program to run; otherwise split on white space.
	Cmd string `lang:"cmd" yaml:"cmd"`
	// Args are the arguments of the program Cmd names (no shell).
	Args []string `lang:"args" yaml:"args"`
	// Cwd is the directory the command runs in (default: mgmt-apply's).
	Cwd string `lang:"cwd" yaml:"cwd"`
	// Shell runs Cmd as "Shell -c Cmd", e.g. "/bin/sh".
	Shell string `lang:"shell" yaml:"shell"`
	// Env holds extra environment variables.
	Env map[string]string `lang:"env" yaml:"env"`
	// UnsetEnv names variables taken out of the environment the commands
	// inherit from mgmt-apply (env may set them again): Puppet runs
	// every exec without HOME, USER and LOGNAME, and puppet-graph sets
	// those.
	UnsetEnv []string `lang:"unsetenv" yaml:"unsetenv"`
	// Timeout bounds each run of cmd, in seconds; 0 is no limit.
	Timeout uint64 `lang:"timeout" yaml:"timeout"`
	// User and Group run the commands under another identity (needs
	// root). With user, as su and Puppet do: the user's uid, its primary
	// group unless group names another, and the supplementary groups the
	// group database gives the user. With group alone: that group, and
	// the engine's own user and supplementary groups.
	User  string `lang:"user" yaml:"user"`
	Group string `lang:"group" yaml:"group"`

	// WatchCmd runs for as long as the resource is watched; each line of
	// its output is an event.
	WatchCmd string `lang:"watchcmd" yaml:"watchcmd"`
	// WatchCwd is the directory WatchCmd runs in.
	WatchCwd string `lang:"watchcwd" yaml:"watchcwd"`
	// WatchShell runs WatchCmd as "WatchShell -c WatchCmd".
	WatchShell string `lang:"watchshell" yaml:"watchshell"`
	// WatchInterval makes the command due every this many seconds while
	// the resource is watched, as a line of watchcmd does, without a
	// process; 0 is never. puppet-graph sets it to Puppet's run interval,
	// at which Puppet runs every exec again.
	WatchInterval uint32 `lang:"watchinterval" yaml:"watchinterval"`

	// IfCmd guards Cmd: Cmd runs only if IfCmd exits 0.
	IfCmd string `lang:"ifcmd" yaml:"ifcmd"`
	// IfCwd is the directory IfCmd runs in.
	IfCwd string `lang:"ifcwd" yaml:"ifcwd"`
	// IfShell runs IfCmd as "IfShell -c IfCmd".
	IfShell string `lang:"ifshell" yaml:"ifshell"`

	// Creates guards Cmd: Cmd runs only if this path does not exist (a
	// symbolic link is followed: a dangling one does not count).
	Creates string `lang:"creates" yaml:"creates"`

	// DoneCmd runs after each successful run of Cmd.
	DoneCmd string `lang:"donecmd" yaml:"donecmd"`
	// DoneCwd is the directory DoneCmd runs in.
	DoneCwd string `lang:"donecwd" yaml:"donecwd"`
	// DoneShell runs DoneCmd as "DoneShell -c DoneCmd".
	DoneShell string `lang:"doneshell" yaml:"doneshell"`

	// NIfCmd guards Cmd: Cmd runs only if NIfCmd exits non-zero.
	NIfCmd string `lang:"nifcmd" yaml:"nifcmd"`
	// NIfCwd is the directory NIfCmd runs in.
	NIfCwd string `lang:"nifcwd" yaml:"nifcwd"`
	// NIfShell runs NIfCmd as "NIfShell -c NIfCmd".
	NIfShell string `lang:"nifshell" yaml:"nifshell"`
	// IfEquals, with IfCmd exiting 0, skips Cmd when what IfCmd printed
	// (stdout and stderr together) equals it.
	IfEquals *string `lang:"ifequals" yaml:"ifequals"`
	// IfEqualsStdout is IfEquals for IfCmd's standard output alone.
	IfEqualsStdout *string `lang:"ifequals_stdout" yaml:"ifequals_stdout"`

	// WatchFiles are absolute paths whose changes make Cmd due again; a
	// path ending in "/" is a directory followed at any depth.
	WatchFiles []string `lang:"watchfiles" yaml:"watchfiles"`
	// MTimes are absolute files: when one was modified since the last
	// successful run of Cmd started (or Cmd never ran), Cmd runs whatever
	// the guards say.
	MTimes []string `lang:"mtimes" yaml:"mtimes"`

	// RefreshOnly runs Cmd only when a refresh notification arrives.
	RefreshOnly bool `lang:"refreshonly" yaml:"refreshonly"`
	// Sig is the signal sent to the command's process group when its run
	// is cancelled or times out (default "SIGTERM"); SIGKILL follows
	// after a grace period.
	Sig string `lang:"sig" yaml:"sig"`

	// SendOutput, SendStdout and SendStderr are sent instead of the
	// command's output when a guard skips it and no run has been recorded.
	SendOutput *string `lang:"send_output" yaml:"send_output"`
	SendStdout *string `lang:"send_stdout" yaml:"send_stdout"`
	SendStderr *string `lang:"send_stderr" yaml:"send_stderr"`

	mu    sync.Mutex
	dirty bool // cmd is due: first run, a line of watchcmd, a tick of watchinterval
}

// ExecSends is what an exec resource sends after running its command.
type ExecSends struct {
	// Output is stdout and stderr together, in the order the two pipes
	// were read: each stream keeps its own order, and writes to both
	// streams interleave as the command made them unless it writes to
	// both faster than the engine reads (two pipes carry no common
	// order; only one pipe for both would, and it could not be split).
	Output *string `lang:"output"`
	// Stdout is what the last run of cmd wrote to its standard output.
	Stdout *string `lang:"stdout"`
	// Stderr is what the last run of cmd wrote to its standard error.
	Stderr *string `lang:"stderr"`
}

// Default returns an exec resource with its defaults.
func (obj *ExecRes) Default() engine.Res { return &ExecRes{} }

// RetiredParams are parameters upstream's older exec had, which its
// graph.yaml examples still carry (see engine.Retiring).
func (obj *ExecRes) RetiredParams() map[string]string {
	return map[string]string{
		"pollint": "no kind polls: exec re-runs on watchcmd output, watchinterval, watchfiles and refreshes",
		"state":   "exec has no state: it runs when ifcmd, nifcmd, mtimes or creates say so",
	}
}

// Validate checks the parameters.
func (obj *ExecRes) Validate() error {
	if strings.TrimSpace(obj.Cmd) == "" {
		return fmt.Errorf("cmd is empty")
	}
	if obj.Shell != "" && len(obj.Args) > 0 {
		return fmt.Errorf("args cannot be combined with shell (put them in cmd)")
	}
	for _, p := range []struct{ name, v string }{{"cwd", obj.Cwd}, {"watchcwd", obj.WatchCwd}, {"ifcwd", obj.IfCwd},
		{"nifcwd", obj.NIfCwd}, {"donecwd", obj.DoneCwd}, {"creates", obj.Creates}} {
		if p.v != "" && !filepath.IsAbs(p.v) {
			return fmt.Errorf("%s %q must be absolute", p.name, p.v)
		}
	}
	for k := range obj.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("invalid environment variable name %q", k)
		}
	}
	for _, k := range obj.UnsetEnv {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("invalid environment variable name %q in unsetenv", k)
		}
	}
	return obj.validateExtra()
}

// Init keeps the handle; the command is due on the first CheckApply.
func (obj *ExecRes) Init(init *engine.Init) error {
	obj.init = init
	obj.dirty = true
	return nil
}

// Cleanup does nothing.
func (obj *ExecRes) Cleanup() error { return nil }

// Sends returns the keys exec sends.
func (obj *ExecRes) Sends() any { return &ExecSends{} }

// CheckApply runs the command when it is due (see ExecRes).
func (obj *ExecRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	refresh := obj.init != nil && obj.init.Refresh()
	snap, forced, err := obj.mtimesChanged()
	if err != nil {
		return false, err
	}
	if !forced {
		skip, err := obj.skip(ctx, refresh)
		if err != nil || skip {
			if err == nil {
				err = obj.sendSkipped()
			}
			return err == nil, err
		}
	}
	if !apply {
		return false, nil
	}
	// What makes the command due while it runs (a line of watchcmd, a
	// tick) makes it due again after this run.
	obj.mu.Lock()
	obj.dirty = false
	obj.mu.Unlock()
	if err := obj.run(ctx); err != nil {
		obj.mu.Lock()
		obj.dirty = true // still due: the retry runs it
		obj.mu.Unlock()
		return false, err
	}
	if obj.DoneCmd != "" {
		cmd, err := obj.command(ctx, obj.DoneCmd, nil, obj.DoneShell, obj.DoneCwd)
		if err != nil {
			return false, err
		}
		out := newTailBuffer(0)
		cmd.Stdout, cmd.Stderr = out, out
		if err := runCommand(cmd); err != nil {
			return false, fmt.Errorf("donecmd: %v: %s", err, out.firstLine())
		}
	}
	return false, obj.recordRun(ctx, snap)
}

// skip reports whether the command is not to run now: refreshonly without
// a refresh, a guard that says no, or, without guards, nothing that made
// the command due.
func (obj *ExecRes) skip(ctx context.Context, refresh bool) (bool, error) {
	if obj.RefreshOnly && !refresh {
		return true, nil
	}
	if skip, err := obj.guardsSkip(ctx); err != nil || skip {
		return skip, err
	}
	if obj.IfCmd != "" || obj.NIfCmd != "" || obj.Creates != "" || refresh {
		return false, nil
	}
	obj.mu.Lock()
	defer obj.mu.Unlock()
	// With Meta:poll the engine calls CheckApply instead of running
	// Watch: each poll stands for an event, so the command is due.
	return !obj.dirty && obj.MetaParams().Poll == 0, nil
}

// run runs cmd and sends its output.
func (obj *ExecRes) run(ctx context.Context) error {
	if obj.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(obj.Timeout)*time.Second)
		defer cancel()
	}
	cmd, err := obj.command(ctx, obj.Cmd, obj.Args, obj.Shell, obj.Cwd)
	if err != nil {
		return err
	}
	stdout, stderr, both := newTailBuffer(maxOutput), newTailBuffer(maxOutput), newTailBuffer(maxOutput)
	var mu sync.Mutex
	cmd.Stdout = io.MultiWriter(stdout, &lockedWriter{&mu, both})
	cmd.Stderr = io.MultiWriter(stderr, &lockedWriter{&mu, both})
	start := time.Now()
	err = runCommand(cmd)
	if cut := both.cut(); cut > 0 {
		obj.logf("the command printed %d bytes: only the last %d of stdout and stderr are kept", both.total, maxOutput)
	}
	obj.logOutput(both)
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("cmd timed out after %v", time.Since(start).Round(time.Millisecond))
	}
	if err != nil {
		msg := stderr.firstLine()
		if msg == "" {
			msg = stdout.firstLine()
		}
		if msg != "" {
			return fmt.Errorf("cmd: %v: %s", err, msg)
		}
		return fmt.Errorf("cmd: %v", err)
	}
	if obj.init != nil {
		o, so, se := both.String(), stdout.String(), stderr.String()
		if err := obj.init.Send(&ExecSends{Output: &o, Stdout: &so, Stderr: &se}); err != nil {
			return err
		}
	}
	return nil
}

// logOutput logs the end of the command's output (stdout and stderr as
// they came) at info level, when there is some.
func (obj *ExecRes) logOutput(out *tailBuffer) {
	if out.total == 0 || obj.init == nil || obj.init.Log == nil {
		return
	}
	obj.init.Log.Info("output of the command", "output", out.last(maxLogOutput))
}

// logf logs through the engine, when there is one.
func (obj *ExecRes) logf(format string, v ...any) {
	if obj.init != nil {
		obj.init.Logf(format, v...)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// command builds a command in its own process group, so that cancelling
// ctx kills the command and its children, and that dies with this process
// (see startCommand, which must start it).
func (obj *ExecRes) command(ctx context.Context, line string, args []string, shell, cwd string) (*exec.Cmd, error) {
	var argv []string
	switch {
	case shell != "":
		argv = []string{shell, "-c", line}
	case len(args) > 0:
		argv = append([]string{line}, args...)
	default:
		argv = strings.Fields(line)
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("empty command")
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = cwd
	if cwd == "" {
		cmd.Dir = obj.Cwd
	}
	cmd.Env = withoutEnv(os.Environ(), obj.UnsetEnv)
	keys := make([]string, 0, len(obj.Env))
	for k := range obj.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cmd.Env = append(cmd.Env, k+"="+obj.Env[k])
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cred, err := obj.credential()
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr.Credential = cred
	cmd.Cancel = groupCancel(cmd, obj.signal())
	cmd.WaitDelay = killGrace
	return cmd, nil
}

// UIDs returns the exec's UID.
func (obj *ExecRes) UIDs() []engine.ResUID {
	return []engine.ResUID{&engine.BaseUID{Kind: "exec", Name: obj.Name()}}
}

// AutoEdges makes the exec wait for the file resource of its cwd, for the
// file or pkg resource providing its program (when named by an absolute
// path) and for the user and group resources of its user and group, and
// run before the file resource of the path it creates.
func (obj *ExecRes) AutoEdges() (engine.AutoEdge, error) {
	var uids []engine.ResUID
	if obj.Cwd != "" {
		uids = append(uids, newFileUID(obj.Cwd, false))
	}
	if prog := obj.program(); filepath.IsAbs(prog) {
		uids = append(uids, newFileUID(prog, false), &engine.BaseUID{Kind: "pkg", Name: filepath.Clean(prog)})
	}
	if obj.Creates != "" {
		uids = append(uids, newFileUID(obj.Creates, true))
	}
	// the identity the commands run under, made before they run
	if obj.User != "" {
		uids = append(uids, &engine.BaseUID{Kind: "user", Name: obj.User})
	}
	if obj.Group != "" {
		uids = append(uids, &engine.BaseUID{Kind: "group", Name: obj.Group})
	}
	return &onceAutoEdge{uids: uids}, nil
}

// program returns the program cmd runs: its first word (the first word of
// the shell line with a shell).
func (obj *ExecRes) program() string {
	if len(obj.Args) > 0 && obj.Shell == "" {
		return obj.Cmd
	}
	if f := strings.Fields(obj.Cmd); len(f) > 0 {
		return f[0]
	}
	return ""
}

// onceAutoEdge proposes one fixed list of UIDs.
type onceAutoEdge struct {
	uids []engine.ResUID
	done bool
}

// Next returns the UIDs the first time, then nothing.
func (a *onceAutoEdge) Next() []engine.ResUID {
	if a.done {
		return nil
	}
	return a.uids
}

// Test ends the search.
func (a *onceAutoEdge) Test([]bool) bool {
	a.done = true
	return false
}

// Cmp compares two exec resources.
func (obj *ExecRes) Cmp(r engine.Res) error {
	if _, ok := r.(*ExecRes); !ok {
		return fmt.Errorf("not a %T", obj)
	}
	return cmpParams(obj, r)
}

// withoutEnv returns env without the variables named in unset.
func withoutEnv(env, unset []string) []string {
	if len(unset) == 0 {
		return env
	}
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(unset, k) {
			out = append(out, kv)
		}
	}
	return out
}
