package eval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
)

// TestCorpusChecks compiles every manifest of pkg/puppet's corpus and
// checks its tables of values: each notify titled "check ..." has the
// message [value, expected], and the two must be equal. Every line that
// declares such a notify must have declared one. The differential test of
// pkg/puppet proves that real Puppet gives the same catalogs, so that the
// expected values are Puppet's.
func TestCorpusChecks(t *testing.T) {
	dir := filepath.Join("..", "testdata", "corpus")
	files, _ := filepath.Glob(filepath.Join(dir, "*.pp"))
	if len(files) == 0 {
		t.Fatalf("no manifest in %s", dir)
	}
	mp, _ := filepath.Abs(filepath.Join(dir, "modules"))
	const system = "/usr/share/puppet/modules"
	if _, err := os.Stat(filepath.Join(system, "stdlib")); err != nil {
		testneed.Missing(t, "the corpus needs stdlib in %s (apt-get install puppet-module-puppetlabs-stdlib): %v", system, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "facts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var facts map[string]any
	if err := json.Unmarshal(data, &facts); err != nil {
		t.Fatal(err)
	}
	checks := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		cat, err := Compile(name, string(src), Options{Facts: facts, Certname: "testnode",
			ModulePath: []string{mp, system}})
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		unseen := map[int]bool{}
		for i, line := range strings.Split(string(src), "\n") {
			if strings.Contains(line, `notify { "check `) {
				unseen[i+1] = true
			}
		}
		for _, r := range cat.Resources {
			if r.Type != "Notify" || !strings.HasPrefix(r.Title, "check ") {
				continue
			}
			checks++
			delete(unseen, r.Line)
			pair, ok := r.Params["message"].([]any)
			if !ok || len(pair) != 2 {
				t.Errorf("%s: %s: the message is not [value, expected]: %#v", r.Pos(), r.Title, r.Params["message"])
				continue
			}
			if !reflect.DeepEqual(pair[0], pair[1]) {
				t.Errorf("%s: %s:\n got %#v\nwant %#v", r.Pos(), r.Title, pair[0], pair[1])
			}
		}
		for line := range unseen {
			t.Errorf("%s:%d: the check was not declared", name, line)
		}
	}
	if checks == 0 {
		t.Errorf("no check in the corpus")
	}
}
