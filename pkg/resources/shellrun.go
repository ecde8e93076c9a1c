package resources

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
)

// RunShell runs line with /bin/sh -c, as exec resources run their
// commands: in the environment of this process without the variables
// named in unset, with no input, in a session (and process group) of its
// own that is sent SIGTERM, then SIGKILL, when ctx ends, and dying with
// this process. It returns what the command wrote to stdout and stderr,
// in the order written, and the error of its run (an *exec.ExitError when
// it did not exit with status 0). Other kinds use it to run the commands
// their users give them.
func RunShell(ctx context.Context, line string, unset ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", line)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(unset, k) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = groupCancel(cmd, syscall.SIGTERM)
	cmd.WaitDelay = killGrace
	err := runCommand(cmd)
	return out.Bytes(), err
}
