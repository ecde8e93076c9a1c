package puppet

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/puppet/eval"
)

// stripPos drops positions, which differ between the engines (real
// Puppet reports no columns).
func stripPos(d *graph.Document) string {
	for _, r := range d.Resources {
		r.Pos = ""
	}
	b, _ := json.MarshalIndent(d, "", " ")
	return string(b)
}

// TestNativeMatchesPuppetOnExamples compiles each example manifest with the
// native engine and requires the same graph as the translation of the
// catalog real Puppet compiled from it.
func TestNativeMatchesPuppetOnExamples(t *testing.T) {
	for _, name := range exampleNames(t) {
		t.Run(name, func(t *testing.T) {
			want, _, err := Translate(loadCatalog(t, "testdata/examples/"+name+".catalog.json"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			src, err := os.ReadFile("testdata/examples/" + name + ".pp")
			if err != nil {
				t.Fatal(err)
			}
			cat, err := eval.Compile(name+".pp", string(src), eval.Options{Certname: "testnode"})
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := Translate(cat, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if g, w := stripPos(got), stripPos(want); g != w {
				t.Errorf("native graph differs:\n%s\nwant:\n%s", g, w)
			}
		})
	}
}
