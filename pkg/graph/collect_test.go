package graph

import (
	"encoding/json"
	"strings"
	"testing"
)

func registerCollectKinds() {
	RegisterKind(&KindSchema{Kind: "collecttest", Params: map[string]string{"path": "str", "src": "[]str", "force": "bool", "n": "int"},
		Collect: CollectRules{Name: []string{"path"}, Local: []string{"src", "force"}}})
	RegisterKind(&KindSchema{Kind: "collectnever", Collect: CollectRules{Refused: true}})
}

func TestCheckCollected(t *testing.T) {
	if _, done := LookupKind("collecttest"); !done { // -count=N runs it again
		registerCollectKinds()
	}
	for _, tc := range []struct {
		kind, name, params string
		err                string // "" means accepted
	}{
		{"collecttest", "/a", `{}`, ""},
		{"collecttest", "/a", `{"path":"/a","n":3}`, ""},
		{"collecttest", "/a", `{"path":""}`, ""},
		{"collecttest", "/a", `{"path":null,"src":[],"force":false}`, ""},
		{"collecttest", "/a", `{"path":"/b"}`, `parameter path "/b" differs from the name`},
		{"collecttest", "/a", `{"path":"/a/"}`, `parameter path "/a/" differs from the name`},
		{"collecttest", "/a", `{"path":7}`, `parameter path 7 differs from the name`},
		{"collecttest", "/a", `{"src":["/etc/shadow"]}`, `parameter src (["/etc/shadow"]) may be set only by the collecting host`},
		{"collecttest", "/a", `{"force":true}`, `parameter force (true) may be set only by the collecting host`},
		{"collectnever", "x", `{}`, "kind collectnever cannot be collected"},
		{"unregistered", "x", `{"path":"/b"}`, ""},
	} {
		r := &Resource{Kind: tc.kind, Name: tc.name}
		dec := json.NewDecoder(strings.NewReader(tc.params))
		dec.UseNumber()
		if err := dec.Decode(&r.Params); err != nil {
			t.Fatal(err)
		}
		err := CheckCollected(r)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || err.Error() != tc.err) {
			t.Errorf("%s %s: got %v, want %q", r.Ref(), tc.params, err, tc.err)
		}
	}
}
