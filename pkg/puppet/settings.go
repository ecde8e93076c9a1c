package puppet

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Settings are the Puppet settings of the applying host that some native
// translations depend on: where puppet:///modules sources are read from
// and where backup => 'puppet' stores old contents.
type Settings struct {
	// ModulePath is the module path puppet:///modules/<module>/<file>
	// resolves in: <dir>/<module>/files/<file> of the first directory
	// holding the module.
	ModulePath []string
	// ClientBucketDir is the local filebucket (Puppet's
	// clientbucketdir) and DigestAlgorithm the digest it is laid out by.
	ClientBucketDir string
	DigestAlgorithm string
}

// LocalSettings asks the installed Puppet for the settings a pippet
// resource of env would see: env's module path (Puppet's configured one
// when env has none), environment and puppet.conf.
func LocalSettings(ctx context.Context, env PuppetEnv) (*Settings, error) {
	if PuppetPath() == "" {
		return nil, fmt.Errorf("Puppet is not installed")
	}
	args := []string{"config", "print", "modulepath", "clientbucketdir", "digest_algorithm"}
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
		return nil, fmt.Errorf("puppet config print: %v", err)
	}
	return parseSettings(string(out))
}

// parseSettings reads the "name = value" lines of puppet config print.
func parseSettings(out string) (*Settings, error) {
	s := &Settings{}
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(line, " = ")
		if !ok {
			continue
		}
		switch v = strings.TrimSpace(v); strings.TrimSpace(k) {
		case "modulepath":
			s.ModulePath = filepath.SplitList(v)
		case "clientbucketdir":
			s.ClientBucketDir = v
		case "digest_algorithm":
			s.DigestAlgorithm = v
		}
	}
	if len(s.ModulePath) == 0 || s.ClientBucketDir == "" || s.DigestAlgorithm == "" {
		return nil, fmt.Errorf("puppet config print gave no modulepath, clientbucketdir or digest_algorithm: %q", out)
	}
	return s, nil
}

// settings returns the applying host's Puppet settings, or records why
// the resource falls back without them.
func (t *tr) settings(why string) (*Settings, bool) {
	if t.opts.Settings == nil {
		t.fallback("%s: Puppet's settings are not known here", why)
		return nil, false
	}
	s, err := t.opts.Settings()
	if err != nil {
		t.fallback("%s: Puppet's settings are not known here (%v)", why, err)
		return nil, false
	}
	return s, true
}

// onceSettings asks get at most once.
func onceSettings(get func() (*Settings, error)) func() (*Settings, error) {
	if get == nil {
		return nil
	}
	return sync.OnceValues(get)
}
