package eval

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
)

// TestLazyFactsMatchFacter computes the module facts of lazyfacts.go
// natively and with Facter (the modules' fact code loaded through
// FACTERLIB), on this machine, and requires the same values. A fact the
// engine leaves unknown here must be refused, never guessed.
func TestLazyFactsMatchFacter(t *testing.T) {
	const mods = "/usr/share/puppet/modules"
	facter := testneed.Command(t, "facter", "facter")
	testneed.Path(t, mods+"/stdlib", "puppet-module-puppetlabs-stdlib")
	names := []string{"service_provider", "systemd", "python_dir", "redis_server_version", "collectd_version"}
	var lib []string
	for _, m := range []string{"stdlib", "systemd", "collectd", "redis"} {
		testneed.Path(t, filepath.Join(mods, m), "puppet-module-*-"+m)
		lib = append(lib, filepath.Join(mods, m, "lib", "facter"))
	}
	cmd := exec.Command(facter, append([]string{"--json"}, names...)...)
	cmd.Env = append(os.Environ(), "FACTERLIB="+strings.Join(lib, ":"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("facter: %v", err)
	}
	var want map[string]any
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("facter's output: %v: %s", err, out)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			src := `notify { 'fact': message => to_json([$facts['` + name + `']]) }`
			cat, err := Compile("x.pp", src, Options{Facts: GatherFacts(), StrictFacts: true, ModulePath: []string{mods}})
			if err != nil {
				if strings.Contains(err.Error(), "the native fact gatherer does not know") {
					t.Skipf("unknown to the engine on this machine (Facter: %v): %v", want[name], err)
				}
				t.Fatal(err)
			}
			var got []any
			msg, _ := cat.Lookup("Notify[fact]").Params["message"].(string)
			if err := json.Unmarshal([]byte(msg), &got); err != nil {
				t.Fatalf("%v: %q", err, msg)
			}
			if !reflect.DeepEqual(got[0], want[name]) {
				t.Errorf("native %#v, Facter %#v", got[0], want[name])
			}
		})
	}
}
