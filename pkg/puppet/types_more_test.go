package puppet

import (
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
)

// TestUserForms checks user translations: the exact list of groups with
// membership inclusive, nothing for no groups with membership minimum
// (Puppet adds none and removes none), and a fallback for groups with
// membership minimum.
func TestUserForms(t *testing.T) {
	checkForms(t, "user", "u", []formCase{
		{"comment, gid by name, home, shell", map[string]any{"ensure": "present", "comment": "Zookeeper", "gid": "zookeeper",
			"home": "/var/lib/zookeeper", "shell": "/bin/false", "system": false},
			`{"comment":"Zookeeper","group":"zookeeper","homedir":"/var/lib/zookeeper","shell":"/bin/false","state":"exists"}`},
		{"no groups, minimum", map[string]any{"ensure": "present", "groups": []any{}}, `{"state":"exists"}`},
		{"no groups, inclusive", map[string]any{"ensure": "present", "groups": []any{}, "membership": "inclusive"}, `{"groups":[],"state":"exists"}`},
		{"groups, inclusive", map[string]any{"ensure": "present", "groups": []any{"a", "b"}, "membership": "inclusive"}, `{"groups":["a","b"],"state":"exists"}`},
		{"groups, minimum", map[string]any{"ensure": "present", "groups": []any{"a"}}, ""},
		{"no ensure but a property: present", map[string]any{"comment": "x"}, `{"comment":"x","state":"exists"}`},
		{"no ensure and no property", map[string]any{"system": false}, ""},
	})
}

// TestAccountWithoutEnsure: a group without ensure is present, as in
// Puppet; a user with neither ensure nor anything else manages nothing
// and becomes a noop.
func TestAccountWithoutEnsure(t *testing.T) {
	c := &catalog.Catalog{Name: "n", Resources: []*catalog.Resource{
		{Type: "Group", Title: "bind", Kind: catalog.KindCompilable, Params: map[string]any{}},
		{Type: "User", Title: "bind", Kind: catalog.KindCompilable, Params: map[string]any{"name": "bind"}},
		{Type: "Group", Title: "staff", Kind: catalog.KindCompilable, Params: map[string]any{"gid": int64(50)}},
	}}
	doc, _, err := Translate(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range doc.Resources {
		got[r.Name] = r.Kind
		if r.Kind == "group" && r.Params["state"] != "exists" {
			t.Errorf("%s: %v, want state exists", r.Name, r.Params)
		}
	}
	for name, kind := range map[string]string{"bind": "group", "User[bind]": "noop", "staff": "group"} {
		if got[name] != kind {
			t.Errorf("%s: got %q, want %s (all: %v)", name, got[name], kind, got)
		}
	}
}
