package puppet

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/puppet/eval"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus/golden from the native engine")

// TestCorpusGolden checks the native engine against the graphs recorded in
// testdata/corpus/golden, so that it is tested without Puppet too. The
// recorded graphs are the ones TestDifferential proves equal to real
// Puppet's (regenerate with -update, then run TestDifferential).
func TestCorpusGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/corpus/*.pp")
	mp, _ := filepath.Abs("testdata/corpus/modules")
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".pp")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			cat, err := eval.Compile(name+".pp", string(src), eval.Options{Facts: testFacts, Certname: "testnode",
				ModulePath: []string{mp, "/usr/share/puppet/modules"}})
			if err != nil {
				t.Fatal(err)
			}
			doc, _, err := Translate(cat, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := stripPos(doc) + "\n"
			golden := filepath.Join("testdata", "corpus", "golden", name+".json")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				os.WriteFile(golden, []byte(got), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("graph differs from %s:\n%s", golden, lineDiff(got, string(want)))
			}
		})
	}
}
