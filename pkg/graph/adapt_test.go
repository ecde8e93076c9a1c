package graph

import (
	"fmt"
	"testing"
)

func init() {
	RegisterKind(&KindSchema{Kind: "test:adapt", Params: map[string]string{"state": "str", "flag": "bool"},
		Adapt: []AdaptRule{{Param: "state", Values: []string{"installed", "newest"}, Default: "installed"}}})
}

// TestMergeDuplicate checks the duplicate rule: equal declarations merge,
// a kind's adapt rule merges values within it to the later one, in either
// order, and anything else is no merge.
func TestMergeDuplicate(t *testing.T) {
	res := func(kind string, params map[string]any, meta *Meta) *Resource {
		return &Resource{Kind: kind, Name: "cowsay", Params: params, Meta: meta}
	}
	st := func(s string) map[string]any { return map[string]any{"state": s} }
	for _, tc := range []struct {
		name string
		a, b *Resource
		want string // the merged state ("-": absent), "" for no merge
	}{
		{"equal", res("test:adapt", st("newest"), nil), res("test:adapt", st("newest"), nil), "newest"},
		{"installed newest", res("test:adapt", st("installed"), nil), res("test:adapt", st("newest"), nil), "newest"},
		{"newest installed", res("test:adapt", st("newest"), nil), res("test:adapt", st("installed"), nil), "newest"},
		{"default newest", res("test:adapt", nil, nil), res("test:adapt", st("newest"), nil), "newest"},
		{"default installed", res("test:adapt", nil, nil), res("test:adapt", st("installed"), nil), "installed"},
		{"both default", res("test:adapt", nil, nil), res("test:adapt", map[string]any{}, nil), "-"},
		{"outside the rule", res("test:adapt", st("installed"), nil), res("test:adapt", st("uninstalled"), nil), ""},
		{"other param differs", res("test:adapt", st("installed"), nil), res("test:adapt", map[string]any{"state": "newest", "flag": true}, nil), ""},
		{"meta differs", res("test:adapt", st("installed"), nil), res("test:adapt", st("newest"), &Meta{Noop: true}), ""},
		{"not a str", res("test:adapt", st("installed"), nil), res("test:adapt", map[string]any{"state": 1}, nil), ""},
		{"kind without rule", res("test:plain", map[string]any{"s": "a"}, nil), res("test:plain", map[string]any{"s": "b"}, nil), ""},
	} {
		before := fmt.Sprint(tc.a.Params, tc.b.Params)
		m, ok := MergeDuplicate(tc.a, tc.b)
		if after := fmt.Sprint(tc.a.Params, tc.b.Params); after != before {
			t.Errorf("%s: the declarations changed: %s, then %s", tc.name, before, after)
		}
		switch {
		case tc.want == "" && ok:
			t.Errorf("%s: merged into %v, want no merge", tc.name, m.Params)
		case tc.want == "":
		case !ok:
			t.Errorf("%s: no merge, want state %s", tc.name, tc.want)
		default:
			got, has := m.Params["state"]
			if !has {
				got = "-"
			}
			if got != tc.want || m.Name != "cowsay" || m.Kind != tc.a.Kind {
				t.Errorf("%s: merged into %s[%s] %v, want state %s", tc.name, m.Kind, m.Name, m.Params, tc.want)
			}
		}
	}
}

// TestValidateAdapts: Validate keeps one resource for two declarations
// its kind lets merge, holding the merged value, and still reports two
// that differ outside the rule.
func TestValidateAdapts(t *testing.T) {
	doc := &Document{Mgmt: Version, Resources: []*Resource{
		{Kind: "test:adapt", Name: "a", Params: map[string]any{"state": "installed"}},
		{Kind: "test:adapt", Name: "a", Params: map[string]any{"state": "newest"}},
	}}
	if err := doc.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(doc.Resources) != 1 || doc.Resources[0].Params["state"] != "newest" {
		t.Fatalf("got %d resources, the first %v; want one with state newest", len(doc.Resources), doc.Resources[0].Params)
	}
	doc.Resources = append(doc.Resources, &Resource{Kind: "test:adapt", Name: "a", Params: map[string]any{"state": "uninstalled"}})
	if err := doc.Validate(); err == nil {
		t.Fatal("newest and uninstalled merged")
	}
}
