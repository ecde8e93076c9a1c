package graph

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

var registerTestKinds = sync.OnceFunc(func() {
	RegisterKind(&KindSchema{Kind: "test:typed", Params: map[string]string{
		"s": "str", "i": "int", "f": "float", "b": "bool", "l": "[]str",
		"m": "map{str: int}", "mi": "map{int: bool}", "st": "struct{a str; b []int}", "v": "variant",
	}, Sends: map[string]string{"out": "str", "n": "int"}, Recv: true})
	RegisterKind(&KindSchema{Kind: "test:plain", Params: map[string]string{"s": "str"}})
})

func validate(t *testing.T, in string) string {
	t.Helper()
	registerTestKinds()
	docs, err := ReadAll(strings.NewReader(in), "v")
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if err := docs[0].Validate(); err != nil {
		return err.Error()
	}
	return ""
}

func doc(body string) string { return `{"mgmt":"graph/v1","graph":"g",` + body + `}` }

func TestValidate(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"ok", sampleJSON, ""},
		{"bad kind", doc(`"resources":[{"kind":"File","name":"a"}]`), `v:1:45: bad resource kind "File"`},
		{"bad kind colon", doc(`"resources":[{"kind":"docker:","name":"a"}]`), `bad resource kind "docker:"`},
		{"ok kind colon", doc(`"resources":[{"kind":"docker:container","name":"a"}]`), ""},
		{"empty name", doc(`"resources":[{"kind":"file","name":"","pos":"x.mcl:3:4"}]`), "x.mcl:3:4: file resource with an empty name"},
		{"identical dup", doc(`"resources":[{"kind":"file","name":"a","params":{"x":1}},{"kind":"file","name":"a","params":{"x":1},"pos":"p:1:1"}]`), ""},
		{"conflicting dup", doc(`"resources":[{"kind":"file","name":"a","params":{"x":1},"pos":"a.mcl:1:1"},{"kind":"file","name":"a","params":{"x":2},"pos":"b.mcl:2:2"}]`),
			"b.mcl:2:2: duplicate resource file[a] differs from the one at a.mcl:1:1"},
		{"missing edge end", doc(`"resources":[{"kind":"file","name":"a"}],"edges":[{"from":{"kind":"file","name":"a"},"to":{"kind":"exec","name":"b"}}]`),
			"v:1:82: edge file[a] -> exec[b]: no resource exec[b]"},
		{"self loop", doc(`"resources":[{"kind":"file","name":"a"}],"edges":[{"from":{"kind":"file","name":"a"},"to":{"kind":"file","name":"a"}}]`),
			"v:1:45: cycle: file[a] -> file[a]"},
		{"cycle", doc(`"resources":[{"kind":"n","name":"c"},{"kind":"n","name":"b","pos":"b:1:1"},{"kind":"n","name":"a","pos":"a:1:1"},{"kind":"n","name":"z"}],"edges":[` +
			`{"from":{"kind":"n","name":"a"},"to":{"kind":"n","name":"b"}},{"from":{"kind":"n","name":"b"},"to":{"kind":"n","name":"c"}},` +
			`{"from":{"kind":"n","name":"c"},"to":{"kind":"n","name":"a"}},{"from":{"kind":"n","name":"c"},"to":{"kind":"n","name":"z"}}]`),
			"a:1:1: cycle: n[a] -> n[b] -> n[c] -> n[a]"},
		{"half send", doc(`"resources":[{"kind":"a","name":"a"},{"kind":"b","name":"b"}],"edges":[{"from":{"kind":"a","name":"a"},"to":{"kind":"b","name":"b"},"send":"x"}]`),
			`send and recv go together`},
		{"typed ok", doc(`"resources":[{"kind":"test:typed","name":"a","params":{"s":"x","i":3,"f":2,"b":true,"l":["a"],"m":{"k":1},"mi":{"7":true},"st":{"a":"x","b":[1]},"v":[1]}}]`), ""},
		{"typed float ok", doc(`"resources":[{"kind":"test:typed","name":"a","params":{"f":2.5,"i":1e3}}]`), ""},
		{"wrong type", doc(`"resources":[{"kind":"test:typed","name":"a","params":{"i":"3"},"pos":"m.mcl:9:2"}]`),
			`m.mcl:9:2: test:typed[a]: parameter "i": got str, want int`},
		{"wrong int", doc(`"resources":[{"kind":"test:typed","name":"a","params":{"i":1.5}}]`), `parameter "i": got float, want int`},
		{"wrong list", doc(`"resources":[{"kind":"test:typed","name":"a","params":{"l":["a",1]}}]`), `parameter "l": got []str, want []str`},
		{"wrong map key", doc(`"resources":[{"kind":"test:typed","name":"a","params":{"mi":{"x":true}}}]`), `parameter "mi": got struct{x bool}, want map{int: bool}`},
		{"wrong struct", doc(`"resources":[{"kind":"test:typed","name":"a","params":{"st":{"c":1}}}]`), `parameter "st": got struct{c int}, want struct{a str; b []int}`},
		{"unknown param", doc(`"resources":[{"kind":"test:typed","name":"a","params":{"ss":"x"}}]`), `test:typed[a]: unknown parameter "ss" (did you mean "s"?)`},
		{"sema with colons in its id", doc(`"resources":[{"kind":"file","name":"a","meta":{"sema":["not:smart:4","a:b","c:2"]}}]`), ""},
		{"sema empty id", doc(`"resources":[{"kind":"file","name":"a","meta":{"sema":[":3",""]}}]`), `meta sema: empty semaphore id`},
		{"sema zero size", doc(`"resources":[{"kind":"file","name":"a","meta":{"sema":["x:y:0"]}}]`), `meta sema "x:y:0": size must be a positive integer`},
		{"bad meta", doc(`"resources":[{"kind":"file","name":"a","meta":{"retry":-2,"sema":["x:0"]}}]`), `meta retry -2`},
		{"send ok", doc(`"resources":[{"kind":"test:typed","name":"a"},{"kind":"test:typed","name":"b"}],"edges":[{"from":{"kind":"test:typed","name":"a"},"to":{"kind":"test:typed","name":"b"},"send":"n","recv":"i"}]`), ""},
		{"send int to float", doc(`"resources":[{"kind":"test:typed","name":"a"},{"kind":"test:typed","name":"b"}],"edges":[{"from":{"kind":"test:typed","name":"a"},"to":{"kind":"test:typed","name":"b"},"send":"n","recv":"f"}]`), ""},
		{"dollar", doc(`"resources":[{"kind":"test:plain","name":"$a"}]`), `name starts with a $`},
		{"dollar ok", doc(`"resources":[{"kind":"test:plain","name":"$a","meta":{"dollar":true}}]`), ""},
		{"poll once ok", doc(`"resources":[{"kind":"test:plain","name":"a","meta":{"poll":-1}}]`), ""},
		{"limit without burst", doc(`"resources":[{"kind":"test:plain","name":"a","meta":{"limit":1}}]`), `burst must be non-zero`},
		{"self edge", doc(`"resources":[{"kind":"test:plain","name":"a"}],"edges":[{"from":{"kind":"test:plain","name":"a"},"to":{"kind":"test:plain","name":"a"}}]`), `cycle: test:plain[a] -> test:plain[a]`},
		{"send bad key", doc(`"resources":[{"kind":"test:typed","name":"a"},{"kind":"test:typed","name":"b"}],"edges":[{"from":{"kind":"test:typed","name":"a"},"to":{"kind":"test:typed","name":"b"},"send":"outt","recv":"s"}]`), `sends no key "outt" (did you mean "out"?)`},
		{"send type", doc(`"resources":[{"kind":"test:typed","name":"a"},{"kind":"test:typed","name":"b"}],"edges":[{"from":{"kind":"test:typed","name":"a"},"to":{"kind":"test:typed","name":"b"},"send":"out","recv":"i"}]`), `sends str, but test:typed[b] parameter "i" is int`},
		{"not sendable", doc(`"resources":[{"kind":"test:plain","name":"a"},{"kind":"test:plain","name":"b"}],"edges":[{"from":{"kind":"test:plain","name":"a"},"to":{"kind":"test:plain","name":"b"},"send":"out","recv":"s"}]`), `kind test:plain cannot send values`},
		{"error doc", doc(`"error":{"message":"x"}`), ""},
		{"empty error doc", doc(`"error":{"message":""}`), "error document without a message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := validate(t, tt.in)
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			if strings.Contains(got, "\n") && !strings.Contains(tt.name, "meta") {
				t.Errorf("more than one error: %s", got)
			}
		})
	}
}

func TestValidateDedup(t *testing.T) {
	d := decodeOne(t, doc(`"resources":[{"kind":"f","name":"a"},{"kind":"f","name":"a","meta":{}},{"kind":"f","name":"b"}],"edges":[`+
		`{"from":{"kind":"f","name":"a"},"to":{"kind":"f","name":"b"}},{"from":{"kind":"f","name":"a"},"to":{"kind":"f","name":"b"},"notify":true}]`))
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(d.Resources) != 2 || len(d.Edges) != 1 || !d.Edges[0].Notify {
		t.Errorf("not collapsed: %d resources, %d edges %+v", len(d.Resources), len(d.Edges), d.Edges[0])
	}
}

func TestValidKind(t *testing.T) {
	for k, want := range map[string]bool{"file": true, "docker:container": true, "a_b2": true, "a:b:c": true,
		"": false, "File": false, "2a": false, ":a": false, "a::b": false, "a:": false, "a-b": false, "_a": false} {
		if ValidKind(k) != want {
			t.Errorf("ValidKind(%q) = %v", k, !want)
		}
	}
}

func TestMclTypeParse(t *testing.T) {
	for _, s := range []string{"str", "[]str", "map{str: int}", "struct{a str; b []int}", "[][]map{int: float}", "struct{}", "variant", "func(str) int"} {
		if _, err := parseMclType(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	for _, s := range []string{"", "strr", "map{str}", "[]", "struct{a}", "str int"} {
		if _, err := parseMclType(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}

// TestErrorListCap: a list prints its first MaxListed errors and counts
// the others.
func TestErrorListCap(t *testing.T) {
	var l ErrorList
	for i := range 100000 {
		l.Add(fmt.Sprintf("in:1:%d", i+1), "bad %d", i)
	}
	lines := strings.Split(l.Error(), "\n")
	if len(lines) != MaxListed+1 || lines[0] != "in:1:1: bad 0" || lines[MaxListed-1] != "in:1:100: bad 99" || lines[MaxListed] != "... and 99900 more errors" {
		t.Fatalf("%d lines, first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
	if s := l[:MaxListed].Error(); strings.Count(s, "\n") != MaxListed-1 || strings.Contains(s, "more errors") {
		t.Fatalf("a list of exactly %d errors: %q", MaxListed, s)
	}
}

func TestEqualResource(t *testing.T) {
	limit := 2.0
	res := func(params map[string]any, m *Meta) *Resource {
		return &Resource{Kind: "file", Name: "/a", Params: params, Meta: m, Pos: "x:1:1"}
	}
	for _, tc := range []struct {
		name string
		a, b *Resource
		want bool
	}{
		{"numbers of any Go type", res(map[string]any{"n": int64(1), "l": []any{float64(2), "x"}}, nil),
			res(map[string]any{"n": json.Number("1"), "l": []any{json.Number("2"), "x"}}, nil), true},
		{"nested maps", res(map[string]any{"m": map[string]any{"a": true}}, nil), res(map[string]any{"m": map[string]any{"a": true}}, nil), true},
		{"different value", res(map[string]any{"m": map[string]any{"a": true}}, nil), res(map[string]any{"m": map[string]any{"a": false}}, nil), false},
		{"string is not a number", res(map[string]any{"n": "1"}, nil), res(map[string]any{"n": int64(1)}, nil), false},
		{"missing key", res(map[string]any{"n": "1"}, nil), res(map[string]any{"m": "1"}, nil), false},
		{"empty list is not null", res(map[string]any{"l": []any{}}, nil), res(map[string]any{"l": []any(nil)}, nil), false},
		{"nil meta is zero meta", res(nil, nil), res(nil, &Meta{Sema: []string{}}), true},
		{"meta differs", res(nil, &Meta{Limit: &limit, Burst: 1}), res(nil, &Meta{Burst: 1}), false},
		{"position does not count", res(nil, nil), &Resource{Kind: "file", Name: "/a", Pos: "y:2:2", Origin: "mcl"}, true},
	} {
		if got := EqualResource(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: EqualResource = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSameGraph(t *testing.T) {
	parse := func(s string) *Document {
		t.Helper()
		d, err := NewDecoder(strings.NewReader(s), "t").Next()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	a := parse(`{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"k","name":"b"},{"kind":"k","name":"a","params":{"n":1}}],"edges":[{"from":{"kind":"k","name":"a"},"to":{"kind":"k","name":"b"}}]}`)
	for _, tc := range []struct {
		b    string
		want bool
	}{
		{`{"mgmt":"graph/v1","graph":"g","seq":7,"source":"x","resources":[{"kind":"k","name":"a","params":{"n":1}},{"kind":"k","name":"b","meta":{}}],"edges":[{"from":{"kind":"k","name":"a"},"to":{"kind":"k","name":"b"}}]}`, true},
		{`{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"k","name":"b"},{"kind":"k","name":"a","params":{"n":2}}],"edges":[{"from":{"kind":"k","name":"a"},"to":{"kind":"k","name":"b"}}]}`, false},
		{`{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"k","name":"b","pos":"p:1:1"},{"kind":"k","name":"a","params":{"n":1}}],"edges":[{"from":{"kind":"k","name":"a"},"to":{"kind":"k","name":"b"}}]}`, false},
		{`{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"k","name":"b"},{"kind":"k","name":"a","params":{"n":1}}],"edges":[{"from":{"kind":"k","name":"a"},"to":{"kind":"k","name":"b"},"notify":true}]}`, false},
		{`{"mgmt":"graph/v1","graph":"h","seq":1,"resources":[{"kind":"k","name":"b"},{"kind":"k","name":"a","params":{"n":1}}],"edges":[{"from":{"kind":"k","name":"a"},"to":{"kind":"k","name":"b"}}]}`, false},
		{`{"mgmt":"graph/v1","graph":"g","seq":1,"error":{"message":"x"}}`, false},
	} {
		if got := SameGraph(a, parse(tc.b)); got != tc.want {
			t.Errorf("SameGraph(a, %s) = %v, want %v", tc.b, got, tc.want)
		}
	}
}
