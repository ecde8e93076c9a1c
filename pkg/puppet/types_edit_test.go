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
		{"match", map[string]any{"path": "/etc/f", "line": "a=1", "match": "^a\\ ?="}, `{"content":"a=1","file":"/etc/f","match":"^a\\ ?=","state":"exists"}`},
		{"match with every option", map[string]any{"path": "/etc/f", "line": "a=1", "match": "^a=", "after": "^\\[main\\]", "multiple": "true",
			"replace": true, "append_on_no_match": false, "replace_all_matches_not_matching_line": true, "match_for_absence": true},
			`{"after":"^\\[main\\]","append_on_no_match":false,"content":"a=1","file":"/etc/f","match":"^a=","multiple":true,` +
				`"replace_all_matches_not_matching_line":true,"state":"exists"}`},
		{"match, replace false", map[string]any{"path": "/etc/f", "line": "a=1", "match": "^a=", "replace": "false"},
			`{"content":"a=1","file":"/etc/f","match":"^a=","replace":false,"state":"exists"}`},
		{"after", map[string]any{"path": "/etc/f", "line": "a=1", "after": "^\\[main\\]", "multiple": true, "append_on_no_match": false},
			`{"after":"^\\[main\\]","content":"a=1","file":"/etc/f","multiple":true,"state":"exists"}`},
		{"absent by match", map[string]any{"path": "/etc/f", "ensure": "absent", "match": "^a=", "match_for_absence": true, "multiple": true},
			`{"file":"/etc/f","match":"^a=","match_for_absence":true,"multiple":true,"state":"absent"}`},
		{"absent ignores match without match_for_absence", map[string]any{"path": "/etc/f", "line": "a=1", "ensure": "absent", "match": "^a=", "after": "x("},
			`{"content":"a=1","file":"/etc/f","state":"absent"}`},
		{"replace false", map[string]any{"path": "/etc/f", "line": "a=1", "replace": false}, ""},
		{"match Go reads otherwise", map[string]any{"path": "/etc/f", "line": "a=1", "match": "^a\\s"}, ""},
		{"absent with a match Go reads otherwise", map[string]any{"path": "/etc/f", "line": "a=1", "ensure": "absent", "match": "a\\z"}, ""},
		{"after Go reads otherwise", map[string]any{"path": "/etc/f", "line": "a=1", "after": "\\bmain"}, ""},
		{"all matches with multiple false", map[string]any{"path": "/etc/f", "line": "a=1", "match": "a", "multiple": false,
			"replace_all_matches_not_matching_line": true}, ""},
		{"all matches when absent", map[string]any{"path": "/etc/f", "ensure": "absent", "match": "a", "match_for_absence": true,
			"replace_all_matches_not_matching_line": true}, ""},
		{"match without line", map[string]any{"path": "/etc/f", "match": "a"}, ""},
		{"multiple not a boolean", map[string]any{"path": "/etc/f", "line": "a", "match": "a", "multiple": "yes"}, ""},
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
