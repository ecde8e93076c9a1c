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
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(unset, k) {
			env = append(env, kv)
		}
	}
	return runShellEnv(ctx, line, env)
}

// runShellEnv runs line as RunShell does, in the environment env.
func runShellEnv(ctx context.Context, line string, env []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", line)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = groupCancel(cmd, syscall.SIGTERM)
	cmd.WaitDelay = killGrace
	err := runCommand(cmd)
	return out.Bytes(), err
}

// puppetUserEnv are the variables Puppet takes out of the environment of
// every command it runs, and puppetLocaleEnv the locale ones it replaces
// with LANG=C and LC_ALL=C.
var (
	puppetUserEnv   = []string{"HOME", "USER", "LOGNAME"}
	puppetLocaleEnv = []string{"LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE", "LC_COLLATE", "LC_CTYPE",
		"LC_MONETARY", "LC_NUMERIC", "LC_TIME"}
)

// puppetEnv returns base as Puppet passes it to the commands it runs:
// without the user's variables and the locale ones, with LANG=C and
// LC_ALL=C.
func puppetEnv(base []string) []string {
	return append([]string{"LANG=C", "LC_ALL=C"}, withoutEnv(base, slices.Concat(puppetUserEnv, puppetLocaleEnv))...)
}
