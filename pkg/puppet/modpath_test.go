package puppet

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
)

// TestModulePathAgainstPuppet: the module path of the native engine is
// the one Puppet reports for the same environments and settings.
func TestModulePathAgainstPuppet(t *testing.T) {
	testneed.Puppet(t)
	envs := t.TempDir()
	base := t.TempDir()
	baseDirs := []string{filepath.Join(base, "a"), filepath.Join(base, "b")}
	mk := func(dirs ...string) {
		for _, d := range dirs {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk(baseDirs...)
	// plain: its modules directory, then basemodulepath
	mk(filepath.Join(envs, "plain", "modules"))
	// own: environment.conf's modulepath, relative entries below it
	own := filepath.Join(envs, "own")
	mk(filepath.Join(own, "site"), filepath.Join(own, "modules"), filepath.Join(base, "abs"))
	os.WriteFile(filepath.Join(own, "environment.conf"), []byte("# mine\nmodulepath = site:$basemodulepath:"+filepath.Join(base, "abs")+"\nenvironment_timeout = 0\n"), 0o644)
	for _, name := range []string{"plain", "own", "production"} {
		t.Run(name, func(t *testing.T) {
			src := Source{Environment: name}
			conf := map[string]string{"basemodulepath": strings.Join(baseDirs, ":")}
			env, err := findEnvironment(src, conf, envs)
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command("puppet", "config", "print", "modulepath", "--section", "user",
				"--environmentpath", envs, "--basemodulepath", conf["basemodulepath"], "--environment", name).Output()
			if err != nil {
				t.Fatal(err)
			}
			if got, want := strings.Join(env.modulePath, ":"), strings.TrimSpace(string(out)); got != want {
				t.Errorf("native %s, Puppet %s", got, want)
			}
		})
	}
}

// TestModulePathRefusals: settings Puppet refuses, or the native engine
// does not follow, are errors.
func TestModulePathRefusals(t *testing.T) {
	envs := t.TempDir()
	os.MkdirAll(filepath.Join(envs, "globbed"), 0o755)
	os.WriteFile(filepath.Join(envs, "globbed", "environment.conf"), []byte("modulepath = modules/*:$basemodulepath\n"), 0o644)
	for _, tc := range []struct {
		env  string
		conf map[string]string
		want string
	}{
		{"", map[string]string{"modulepath": "/m"}, "cannot set modulepath in puppet.conf"},
		{"", map[string]string{"environmentpath": "/e"}, "does not follow environmentpath"},
		{"", map[string]string{"environment": "test"}, "does not follow environment"},
		{"", map[string]string{"basemodulepath": "$codedir/modules"}, "does not interpolate"},
		{"nosuch", nil, `could not find a directory environment named "nosuch"`},
		{"globbed", nil, `modulepath entry "modules/*"`},
	} {
		_, err := findEnvironment(Source{Environment: tc.env, PuppetConf: "/p.conf"}, tc.conf, envs)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: err %v, want %q", tc.env, tc.conf, err, tc.want)
		}
	}
}
