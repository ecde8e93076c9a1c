// Package coreos holds the mcl module "os": files (watched with fsnotify),
// commands (stdout lines streamed), and facts about the system.
package coreos

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/fsnotify/fsnotify"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// watchFile calls read now and after every change of path (watching its
// directory, so that creation, replacement and removal are seen).
func watchFile(ctx context.Context, path string, read func() error) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	// The watch's error names no path: the user's is named here.
	if err := w.Add(filepath.Dir(path)); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := read(); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if filepath.Clean(ev.Name) != filepath.Clean(path) {
				continue
			}
			if err := read(); err != nil {
				return err
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			return err
		}
	}
}

func arg(c *funcs.Call) string { return string(c.Args[0].(values.Str)) }

func init() {
	funcs.RegisterStream("os", "readfile", "func(path str) str", func(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
		p := arg(c)
		return watchFile(ctx, p, func() error {
			b, err := os.ReadFile(p)
			switch {
			case errors.Is(err, fs.ErrNotExist) && c.EmitErr != nil:
				c.EmitErr(funcs.Catchablef("%v", err))
				return nil
			case errors.Is(err, fs.ErrNotExist):
				return funcs.Catchablef("%v", err)
			case err != nil:
				return err
			}
			emit(values.Str(b))
			return nil
		})
	}, funcs.Doc("The content of a file, a new value each time it changes; while the file is missing, a catchable error (`os.readfile($p) <|> \"default\"` follows the file as it appears and goes).", `os.readfile("/etc/hostname")`))
	funcs.RegisterStream("os", "file_exists", "func(path str) bool", func(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
		p := arg(c)
		return watchFile(ctx, p, func() error {
			_, err := os.Stat(p)
			emit(values.Bool(err == nil))
			return nil
		})
	}, funcs.Doc("Whether a file exists, following its creation and removal.", `os.file_exists("/etc/motd")`))
	funcs.RegisterStream("os", "system", "func(cmd str) str", system, funcs.Doc("Runs a shell command and emits each line of its output as it comes.", `os.system("uname -r")`))
	funcs.RegisterFunc(&funcs.Func{Module: "os", Name: "args", Sigs: funcs.Sigs("func() []str"),
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			l := values.NewList(types.Str)
			for _, a := range c.Env.Args {
				l.V = append(l.V, values.Str(a))
			}
			return l, nil
		}, Doc: "The extra program arguments given to mcl-compile.", Example: "os.args()"})
	funcs.Register("os", "family", "func() str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(family()), nil
	}, funcs.Doc(`The distribution family of this host: "debian", "redhat", "archlinux" or "".`, "os.family()"))
	for _, fam := range []string{"debian", "redhat", "archlinux"} {
		fam := fam
		funcs.Register("os", "is_family_"+fam, "func() bool", func(ctx context.Context, a []values.Value) (values.Value, error) {
			return values.Bool(family() == fam), nil
		}, funcs.Doc("Whether os.family() is \""+fam+"\".", "os.is_family_"+fam+"()"))
	}
	funcs.Register("os", "expand_home", "func(path str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		p := string(a[0].(values.Str))
		if p == "~" || strings.HasPrefix(p, "~/") {
			h, err := os.UserHomeDir()
			if err != nil {
				return nil, err
			}
			return values.Str(h + p[1:]), nil
		}
		return values.Str(p), nil
	}, funcs.Doc("A path with a leading ~ replaced by the home directory of the compiling user.", `os.expand_home("~/.ssh")`))
}

// system runs cmd with sh -c and emits its output: each line as it comes,
// accumulated; the stream closes when the command exits (an error if it
// failed).
func system(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", arg(c))
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		emit(values.Str(sc.Text()))
	}
	if err := cmd.Wait(); err != nil && ctx.Err() == nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return errors.New("os.system: " + err.Error())
		}
		return err
	}
	return nil
}
