package puppet

import (
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
)

// TestFileLineForms checks which file_line resources become line
// resources: a whole line appended or removed, every parameter accounted
// for; a regular expression, or a value that changes what the provider
// does with a plain line, goes to pippet.
func TestFileLineForms(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params map[string]any
		want   string // JSON of the output parameters; "" for a pippet fallback
	}{
		{"append", map[string]any{"path": "/etc/f", "line": "a=1"}, `{"content":"a=1","file":"/etc/f","state":"exists"}`},
		{"remove", map[string]any{"path": "/etc/f", "line": "a=1", "ensure": "absent", "match_for_absence": false},
			`{"content":"a=1","file":"/etc/f","state":"absent"}`},
		{"ignored without a pattern", map[string]any{"path": "/etc/f", "line": "a", "multiple": true, "append_on_no_match": "false",
			"replace": true, "encoding": "UTF-8", "provider": "ruby"}, `{"content":"a","file":"/etc/f","state":"exists"}`},
		{"match", map[string]any{"path": "/etc/f", "line": "a=1", "match": "^a="}, ""},
		{"after", map[string]any{"path": "/etc/f", "line": "a=1", "after": "^\\[main\\]"}, ""},
		{"replace false", map[string]any{"path": "/etc/f", "line": "a=1", "replace": false}, ""},
		{"newline in the line", map[string]any{"path": "/etc/f", "line": "a=1\n"}, ""},
		{"empty line", map[string]any{"path": "/etc/f", "line": ""}, ""},
		{"no line", map[string]any{"path": "/etc/f", "ensure": "absent"}, ""},
		{"relative path", map[string]any{"path": "etc/f", "line": "a"}, ""},
		{"other encoding", map[string]any{"path": "/etc/f", "line": "a", "encoding": "iso-8859-1"}, ""},
		{"unknown parameter", map[string]any{"path": "/etc/f", "line": "a", "unless": "x"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := translateOneChecked(t, "file_line", "l", tc.params)
			if tc.want == "" {
				if r.Kind != "pippet" {
					t.Fatalf("want a pippet fallback, got %s %s", r.Kind, asJSON(r.Params))
				}
				return
			}
			if r.Kind != "line" || r.Name != "l" || asJSON(r.Params) != tc.want {
				t.Errorf("got %s[%s] %s, want line %s", r.Kind, r.Name, asJSON(r.Params), tc.want)
			}
		})
	}
}

// translateOneChecked is translateOne with the resource validated by its
// kind, as puppet-graph does: a value the kind refuses sends it to pippet.
func translateOneChecked(t *testing.T, typ, title string, params map[string]any) *graph.Resource {
	t.Helper()
	c := &catalog.Catalog{Name: "n", Resources: []*catalog.Resource{
		{Type: catalog.CapitalizeType(typ), Title: title, Kind: catalog.KindCompilable, Params: params},
	}}
	check := func(r *graph.Resource) error {
		doc := &graph.Document{Mgmt: graph.Version, Graph: "check", Resources: []*graph.Resource{r}}
		_, err := engine.Build(doc, engine.BuildOptions{NoAutoEdges: true, NoAutoGroups: true})
		return err
	}
	doc, _, err := Translate(c, Options{Check: check})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Resources {
		if r.Kind != "noop" {
			return r
		}
	}
	t.Fatal("no resource")
	return nil
}
