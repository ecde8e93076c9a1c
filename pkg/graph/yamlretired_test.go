package graph

import (
	"strings"
	"testing"
)

// TestYAMLRetired decodes a resource carrying a retired parameter: it is
// left out with a warning at its position, while an unknown one stays.
func TestYAMLRetired(t *testing.T) {
	RegisterKind(&KindSchema{Kind: "test:retired", Params: map[string]string{"cmd": "str"},
		Retired: map[string]string{"pollint": "nothing polls"}})
	d := decodeOne(t, `graph: g
resources:
  test:retired:
  - name: a
    cmd: "true"
    pollint: 0
    other: 1
`)
	p := d.Resources[0].Params
	if _, ok := p["pollint"]; ok {
		t.Errorf("pollint kept: %v", p)
	}
	if _, ok := p["other"]; !ok || p["cmd"] != "true" {
		t.Errorf("params = %v, want cmd and other", p)
	}
	if len(d.Warnings) != 1 || !strings.HasPrefix(d.Warnings[0], "in:6:5: test:retired: parameter \"pollint\" is retired") ||
		!strings.Contains(d.Warnings[0], "nothing polls") {
		t.Errorf("warnings = %q", d.Warnings)
	}
}
