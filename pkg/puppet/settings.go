package puppet

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// LocalModulePath asks the installed Puppet for the module path a pippet
// resource of env would see, as puppet apply sees it: env's module path
// (the environment's when env has none), environment and puppet.conf. The
// native engine needs none of this: it knows the module path it compiled
// with.
func LocalModulePath(ctx context.Context, env PuppetEnv) ([]string, error) {
	if PuppetPath() == "" {
		return nil, fmt.Errorf("Puppet is not installed")
	}
	args := []string{"config", "print", "modulepath", "--section", "user"}
	if len(env.ModulePath) > 0 {
		args = append(args, "--modulepath", strings.Join(env.ModulePath, ":"))
	}
	if env.Environment != "" {
		args = append(args, "--environment", env.Environment)
	}
	if env.Conf != "" {
		args = append(args, "--config", env.Conf)
	}
	out, err := exec.CommandContext(ctx, PuppetPath(), args...).Output()
	if err != nil {
		return nil, fmt.Errorf("puppet config print modulepath: %v", err)
	}
	mp := filepath.SplitList(strings.TrimSpace(string(out)))
	if len(mp) == 0 {
		return nil, fmt.Errorf("puppet config print gave no modulepath")
	}
	return mp, nil
}

// modulePath returns the module path puppet:///modules sources resolve
// in, or records why the resource falls back without it.
func (t *tr) modulePath(why string) ([]string, bool) {
	if t.opts.ModulePath == nil {
		t.fallback("%s: the module path is not known here", why)
		return nil, false
	}
	mp, err := t.opts.ModulePath()
	if err != nil {
		t.fallback("%s: the module path is not known here (%v)", why, err)
		return nil, false
	}
	return mp, true
}

// onceModulePath asks get at most once.
func onceModulePath(get func() ([]string, error)) func() ([]string, error) {
	if get == nil {
		return nil
	}
	return sync.OnceValues(get)
}
