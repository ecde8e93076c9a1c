package puppet

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Debian's Puppet settings the native engine follows: the global
// hiera.yaml and the directory of environments.
const (
	DefaultHieraConfig     = "/etc/puppet/hiera.yaml"
	DefaultEnvironmentPath = "/etc/puppet/code/environments"
)

// DefaultBaseModulePath is Debian's Puppet's basemodulepath: where it
// looks for modules after the environment's own.
var DefaultBaseModulePath = []string{"/etc/puppet/code/modules", "/usr/share/puppet/modules"}

// A nativeEnv is the environment a native compile runs in, as Puppet
// finds it: its name, its directory ("" when there is none), and the
// module path.
type nativeEnv struct {
	name, dir  string
	modulePath []string
}

// findEnvironment finds the environment and module path Puppet compiles
// src in, given the settings of its puppet.conf (nil without one) and
// the environmentpath envPath:
//
//   - the environment is --environment, else production; its directory
//     is <environmentpath>/<name>;
//   - --modulepath replaces the module path;
//   - else an environment with a directory has its environment.conf's
//     modulepath, by default its modules directory then basemodulepath
//     (puppet.conf's, else Debian's);
//   - production without a directory has basemodulepath; another
//     environment without one is an error, as in Puppet.
//
// puppet.conf may not set modulepath (Puppet refuses it too). Settings
// the native engine does not follow (another environmentpath or codedir,
// an environment without --environment, interpolations other than $basemodulepath, globs) are refused with a
// hint to compile with Puppet rather than guessed.
func findEnvironment(src Source, conf map[string]string, envPath string) (*nativeEnv, error) {
	for _, k := range []string{"modulepath", "manifest", "config_version"} {
		if conf[k] != "" {
			return nil, fmt.Errorf("%s: cannot set %s in puppet.conf (Puppet refuses it too): set it in an environment's environment.conf", src.PuppetConf, k)
		}
	}
	for _, k := range []string{"environmentpath", "codedir", "environment"} {
		if conf[k] != "" && (k != "environment" || src.Environment == "") {
			return nil, fmt.Errorf("%s: the native engine does not follow %s in puppet.conf: compile with --engine puppet", src.PuppetConf, k)
		}
	}
	env := &nativeEnv{name: src.Environment}
	if env.name == "" {
		env.name = "production"
	}
	if strings.ContainsAny(env.name, "/$\x00") || env.name == "." || env.name == ".." {
		return nil, fmt.Errorf("environment %q is not a valid environment name", env.name)
	}
	base := DefaultBaseModulePath
	if v, ok := conf["basemodulepath"]; ok {
		if strings.ContainsAny(v, "$~*?[{") {
			return nil, fmt.Errorf("%s: the native engine does not interpolate or expand basemodulepath %q: compile with --engine puppet", src.PuppetConf, v)
		}
		base = filepath.SplitList(v)
	}
	dir := filepath.Join(envPath, env.name)
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		env.dir = dir
	}
	switch {
	case src.ModulePath != nil:
		env.modulePath = src.ModulePath
	case env.dir != "":
		mp, err := environmentModulePath(env.dir, base)
		if err != nil {
			return nil, err
		}
		env.modulePath = mp
	case env.name == "production":
		env.modulePath = base
	}
	if env.dir == "" && env.name != "production" {
		return nil, fmt.Errorf("could not find a directory environment named %q in %s", env.name, envPath)
	}
	return env, nil
}

// environmentModulePath returns the module path of the environment in
// dir: its environment.conf's modulepath (relative entries below dir,
// $basemodulepath standing for base), or its modules directory then base.
func environmentModulePath(dir string, base []string) ([]string, error) {
	name := filepath.Join(dir, "environment.conf")
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return append([]string{filepath.Join(dir, "modules")}, base...), nil
	}
	if err != nil {
		return nil, err
	}
	value, set := "", false
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "[") {
			return nil, fmt.Errorf("%s:%d: the native engine reads only name = value lines here: compile with --engine puppet", name, i+1)
		}
		if strings.TrimSpace(k) == "modulepath" {
			value, set = strings.TrimSpace(v), true
		}
	}
	if !set {
		return append([]string{filepath.Join(dir, "modules")}, base...), nil
	}
	var out []string
	for _, e := range strings.Split(value, ":") {
		switch {
		case e == "$basemodulepath":
			out = append(out, base...)
		case strings.ContainsAny(e, "$~*?[{\"'"):
			return nil, fmt.Errorf("%s: the native engine does not interpolate or expand the modulepath entry %q (only $basemodulepath): compile with --engine puppet", name, e)
		case e == "":
		case filepath.IsAbs(e):
			out = append(out, filepath.Clean(e))
		default:
			out = append(out, filepath.Join(dir, e))
		}
	}
	return out, nil
}
