package graph

import (
	"strings"
	"testing"
)

// TestYAMLCollect decodes exported ("@@") resources with a collect list:
// they keep their place under the name without "@@", next to the others.
func TestYAMLCollect(t *testing.T) {
	d := decodeOne(t, `graph: g
resources:
  file:
  - name: plain
    path: /tmp/a
  - name: "@@shared"
    path: /tmp/b
  noop:
  - name: "@@n"
collect:
- kind: File
  pattern: /tmp/
- kind: noop
edges:
- from: {kind: file, name: plain}
  to: {kind: file, name: shared}
`)
	var names []string
	for _, r := range d.Resources {
		names = append(names, r.Kind+"["+r.Name+"]")
	}
	if got := strings.Join(names, " "); got != "file[plain] file[shared] noop[n]" {
		t.Fatalf("resources %s", got)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestYAMLCollectErrors checks the refusals: an exported resource no
// collect entry takes (it would be applied nowhere), and malformed lists.
func TestYAMLCollectErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"not collected", "graph: g\nresources:\n  file:\n  - name: \"@@x\"\n    path: /tmp/x\ncollect:\n- kind: exec\n",
			`in:4:5: file resource "@@x" is exported but no collect entry takes kind file, so it would be applied nowhere: add {kind: file} to collect, or drop the @@`},
		{"no collect list", "graph: g\nresources:\n  file:\n  - name: \"@@x\"\n",
			`in:4:5: file resource "@@x" is exported but no collect entry takes kind file`},
		{"empty name", "graph: g\nresources:\n  file:\n  - name: \"@@\"\ncollect:\n- kind: file\n",
			`in:4:5: file resource "@@": an exported resource needs a name after @@`},
		{"not a list", "graph: g\ncollect: file\n", "in:2:10: collect: got string, want sequence"},
		{"no kind", "graph: g\ncollect:\n- pattern: /tmp\n", "in:3:3: collect entry without a kind"},
		{"unknown field", "graph: g\ncollect:\n- kind: file\n  patern: /tmp\n", `in:4:3: collect: unknown field "patern"`},
		{"pattern type", "graph: g\ncollect:\n- kind: file\n  pattern: [a]\n", "in:4:12: collect pattern: got sequence, want string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadAll(strings.NewReader(tt.in), "in")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %s", err, tt.want)
			}
		})
	}
}
