package system

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/resources"
)

// The commands of a svc resource (statuscmd, startcmd, stopcmd,
// restartcmd) replace what the resource otherwise asks of systemd, one
// action each, as Puppet's service type does with its status, start, stop
// and restart commands under its systemd provider: the unit is still
// enabled or disabled through systemd, and reloaded into systemd when its
// file changed. They run with /bin/sh -c as the user of mgmt-apply
// (root, usually), in a session of their own, without HOME, USER and
// LOGNAME (which depend on how mgmt-apply was started; Puppet removes the
// same ones): whoever writes the graph chooses what runs, as with an exec
// resource's command, so an exporter may not set them.

// cmdUnset are the variables removed from the environment of the commands.
var cmdUnset = []string{"HOME", "USER", "LOGNAME"}

// running reports whether the service runs: the status command's answer
// when there is one, else the unit's state.
func (r *SvcRes) running(ctx context.Context, st svcStatus) (bool, error) {
	if r.StatusCmd == "" {
		return st.running(), nil
	}
	_, err := resources.RunShell(ctx, r.StatusCmd, cmdUnset...)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case ctx.Err() != nil:
		return false, ctx.Err()
	case errors.As(err, &ee):
		// any other end than exit status 0, a signal included
		return false, nil
	}
	return false, fmt.Errorf("statuscmd: %v", err)
}

// command runs one of the resource's commands (param names it) and makes
// its failure an error that quotes its output.
func (r *SvcRes) command(ctx context.Context, param, line string) error {
	r.logf("%s: %s: %s", r, param, line)
	out, err := resources.RunShell(ctx, line, cmdUnset...)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	msg := strings.TrimSpace(string(out))
	if len(msg) > 400 {
		msg = "..." + msg[len(msg)-400:]
	}
	if msg != "" {
		return fmt.Errorf("%s %q: %v: %s", param, line, err, msg)
	}
	return fmt.Errorf("%s %q: %v", param, line, err)
}

// cmpCommands compares the commands of two svc resources.
func (r *SvcRes) cmpCommands(o *SvcRes) error {
	for _, c := range []struct{ name, a, b string }{
		{"statuscmd", r.StatusCmd, o.StatusCmd}, {"startcmd", r.StartCmd, o.StartCmd},
		{"stopcmd", r.StopCmd, o.StopCmd}, {"restartcmd", r.RestartCmd, o.RestartCmd},
	} {
		if c.a != c.b {
			return fmt.Errorf("%s differs: %q vs %q", c.name, c.a, c.b)
		}
	}
	return nil
}
