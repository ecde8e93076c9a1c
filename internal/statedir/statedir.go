// Package statedir is the one home of the tools' state directory (the
// prefix): where it is when no --prefix is given, and how it is created
// and checked before a tool trusts what it finds there.
//
// The default is /var/lib/mgmt for root (the system's engine) and
// $XDG_STATE_HOME/mgmt, by default ~/.local/state/mgmt, for any other
// user, so that every tool of one user (mcl-compile, mgmt-apply,
// mgmt-cluster) finds the same private world and value store without a
// flag, and one user never uses another's. The prefix holds state that
// must survive a restart (saved reversals, vardirs, the world's data), so
// it is a state directory, not a runtime one ($XDG_RUNTIME_DIR is emptied
// at logout).
//
// Security: the directory is created with mode 0700 (its parents too, as
// the XDG specification asks of ~/.local/state). An existing one must be a
// directory owned by the user running the tool and writable by nobody
// else: whoever can write the prefix can make the engine undo or redo
// changes with the engine's rights.
package statedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// System is the state directory of root.
const System = "/var/lib/mgmt"

// Default returns the state directory of the user running the tool: System
// for root, else $XDG_STATE_HOME/mgmt or $HOME/.local/state/mgmt. It fails
// when neither variable gives an absolute directory.
func Default() (string, error) {
	return forUser(os.Geteuid(), os.Getenv)
}

func forUser(euid int, getenv func(string) string) (string, error) {
	if euid == 0 {
		return System, nil
	}
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "mgmt"), nil
	}
	if h := getenv("HOME"); filepath.IsAbs(h) && h != "/" {
		return filepath.Join(h, ".local", "state", "mgmt"), nil
	}
	return "", errors.New("no default state directory: neither XDG_STATE_HOME nor HOME is set to an absolute path; give --prefix")
}

// Help is the text of a --prefix flag's default, for --help.
func Help() string {
	return System + " as root, else $XDG_STATE_HOME/mgmt (~/.local/state/mgmt)"
}

// Prepare creates dir with mode 0700 when it does not exist, and checks
// that an existing one is a directory (a symbolic link to one is fine)
// owned by this process's user and not writable by group or others.
func Prepare(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return fmt.Errorf("state directory: %v", err)
	}
	err := os.Mkdir(dir, 0o700)
	if err == nil {
		// Whatever the umask.
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("state directory: %v", err)
		}
		return nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("state directory: %v", err)
	}
	return Check(dir)
}

// Check reports why the existing dir may not be trusted as a state
// directory, or nil.
func Check(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("state directory: %v", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("state directory %s: not a directory", dir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("state directory %s: no owner information", dir)
	}
	if int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("state directory %s is owned by uid %d, not by this user (uid %d): refusing to trust it", dir, st.Uid, os.Geteuid())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("state directory %s has mode %04o, which lets other users write it: chmod go-w it", dir, fi.Mode().Perm())
	}
	return nil
}
