package resources

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// validateValidateCmd checks validate_cmd and validate_replacement.
func (obj *FileRes) validateValidateCmd() error {
	if obj.ValidateCmd == "" {
		if obj.ValidateReplacement != "" {
			return fmt.Errorf("validate_replacement needs validate_cmd")
		}
		return nil
	}
	switch {
	case obj.isDir() || obj.Symlink || obj.State == FileStateAbsent:
		return fmt.Errorf("validate_cmd needs a file with content (not a directory, a symbolic link or state absent)")
	case strings.IndexByte(obj.ValidateCmd, 0) >= 0:
		return fmt.Errorf("validate_cmd holds a NUL byte")
	}
	return nil
}

func (obj *FileRes) validateReplacement() string {
	if obj.ValidateReplacement == "" {
		return "%"
	}
	return obj.ValidateReplacement
}

// validator returns the check of a new content written to the temporary
// file tmp before it replaces the file, or nil without validate_cmd.
func (obj *FileRes) validator(ctx context.Context) func(tmp string) error {
	if obj.ValidateCmd == "" {
		return nil
	}
	return func(tmp string) error {
		cmd := strings.ReplaceAll(obj.ValidateCmd, obj.validateReplacement(), tmp)
		out, err := runValidate(ctx, cmd)
		if err != nil {
			return fmt.Errorf("validate_cmd %q refused the new content, which was not written: %v: %s", cmd, err, strings.TrimSpace(string(out)))
		}
		return nil
	}
}

// validateEnvDrop are the variables a validation command does not inherit,
// as Puppet runs its commands: the locale (set to C instead) and the
// user's.
var validateEnvDrop = map[string]bool{
	"LANG": true, "LC_ALL": true, "LC_MESSAGES": true, "LANGUAGE": true, "LC_COLLATE": true,
	"LC_CTYPE": true, "LC_MONETARY": true, "LC_NUMERIC": true, "LC_TIME": true,
	"HOME": true, "USER": true, "LOGNAME": true,
}

// runValidate runs the validation command line with /bin/sh in its own
// session, without input, and returns its output and error together. A
// cancelled context kills its process group.
func runValidate(ctx context.Context, line string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", line)
	env := []string{"LANG=C", "LC_ALL=C"}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !validateEnvDrop[k] {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	return out.Bytes(), err
}
