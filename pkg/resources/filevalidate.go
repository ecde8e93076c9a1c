package resources

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// validateValidateCmd checks validate_cmd and validate_replacement.
func (obj *FileRes) validateValidateCmd() error {
	if obj.rare().ValidateCmd == "" {
		if obj.rare().ValidateReplacement != "" {
			return fmt.Errorf("validate_replacement needs validate_cmd")
		}
		return nil
	}
	switch {
	case obj.isDir() || obj.rare().Symlink || obj.State == FileStateAbsent:
		return fmt.Errorf("validate_cmd needs a file with content (not a directory, a symbolic link or state absent)")
	case strings.IndexByte(obj.rare().ValidateCmd, 0) >= 0:
		return fmt.Errorf("validate_cmd holds a NUL byte")
	}
	return nil
}

func (obj *FileRes) validateReplacement() string {
	if obj.rare().ValidateReplacement == "" {
		return "%"
	}
	return obj.rare().ValidateReplacement
}

// validator returns the check of a new content written to the temporary
// file tmp before it replaces the file, or nil without validate_cmd.
func (obj *FileRes) validator(ctx context.Context) func(tmp string) error {
	if obj.rare().ValidateCmd == "" {
		return nil
	}
	return func(tmp string) error {
		cmd := strings.ReplaceAll(obj.rare().ValidateCmd, obj.validateReplacement(), tmp)
		out, err := runShellEnv(ctx, cmd, puppetEnv(os.Environ()))
		if err != nil {
			return fmt.Errorf("validate_cmd %q refused the new content, which was not written: %v: %s", cmd, err, strings.TrimSpace(string(out)))
		}
		return nil
	}
}
