package schemas

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	_ "github.com/mgmtpipe/mgmt/pkg/resources/all"
)

var update = flag.Bool("update", false, "rewrite kinds.json from the resource registry")

func compile(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(GraphV1))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("graph-v1.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("graph-v1.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func check(t *testing.T, s *jsonschema.Schema, line []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		t.Fatalf("not JSON: %v: %s", err, line)
	}
	return s.Validate(inst)
}

// encodeAll decodes a file, validates every document and returns their
// canonical JSON lines.
func encodeAll(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	docs, err := graph.ReadAll(f, path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, d := range docs {
		if err := d.Validate(); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var b bytes.Buffer
		if err := graph.Encode(&b, d, graph.JSON); err != nil {
			t.Fatal(err)
		}
		out = append(out, bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	}
	return out
}

func TestExamplesMatchSchema(t *testing.T) {
	s := compile(t)
	files, _ := filepath.Glob("../examples/graphs/*")
	testdata, _ := filepath.Glob("../pkg/graph/testdata/*.yaml")
	n := 0
	for _, p := range append(files, testdata...) {
		if strings.HasSuffix(p, ".md") {
			continue
		}
		if strings.HasSuffix(p, ".json") {
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
				if err := check(t, s, line); err != nil {
					t.Errorf("%s:%d: %v", p, i+1, err)
				}
			}
		}
		for _, line := range encodeAll(t, p) {
			n++
			if err := check(t, s, line); err != nil {
				t.Errorf("%s, encoded: %v", p, err)
			}
		}
	}
	if n < 5 {
		t.Errorf("only %d documents checked", n)
	}
}

func TestEncoderOutputMatchesSchema(t *testing.T) {
	s := compile(t)
	limit := 2.5
	f := false
	d := &graph.Document{Mgmt: graph.Version, Graph: "g", Seq: 9, Source: "test", Resources: []*graph.Resource{
		{Kind: "file", Name: "/a", Params: map[string]any{"mode": "0644", "n": json.Number("3"), "f": 1.5, "l": []any{"x"}, "m": map[string]any{"k": true}},
			Meta: &graph.Meta{Retry: -1, Delay: 10, Limit: &limit, AutoEdge: &f, Sema: []string{"a", "b:3"}, Export: []string{"*"}}, Pos: "m.mcl:1:1", Origin: "mcl"},
		{Kind: "docker:container", Name: "c"},
	}, Edges: []*graph.Edge{
		{From: graph.Ref{Kind: "file", Name: "/a"}, To: graph.Ref{Kind: "docker:container", Name: "c"}, Notify: true, Send: "x", Recv: "y"},
	}}
	errDoc := &graph.Document{Mgmt: graph.Version, Graph: "g", Seq: 10, Error: &graph.Error{Message: "boom", Pos: "a:1:2"}}
	for _, doc := range []*graph.Document{d, errDoc, {Mgmt: graph.Version}} {
		var b bytes.Buffer
		if err := graph.Encode(&b, doc, graph.JSON); err != nil {
			t.Fatal(err)
		}
		if err := check(t, s, bytes.TrimSpace(b.Bytes())); err != nil {
			t.Errorf("%v\n%s", err, b.String())
		}
	}
}

func TestSchemaRejects(t *testing.T) {
	s := compile(t)
	for _, bad := range []string{
		`{"mgmt":"graph/v2","graph":"g","seq":1}`,
		`{"mgmt":"graph/v1","graph":"g"}`,
		`{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"File","name":"a"}]}`,
		`{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"file","name":""}]}`,
		`{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"file","name":"a","params":{"x":null}}]}`,
		`{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"file","name":"a","meta":{"retry":-2}}]}`,
		`{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"file","name":"a","meta":{"bogus":1}}]}`,
		`{"mgmt":"graph/v1","graph":"g","seq":1,"edges":[{"from":{"kind":"a","name":"b"},"to":{"kind":"a","name":"c"},"send":"x"}]}`,
		`{"mgmt":"graph/v1","graph":"g","seq":1,"error":{"message":""}}`,
		`{"mgmt":"graph/v1","graph":"g","seq":1,"extra":true}`,
	} {
		if err := check(t, s, []byte(bad)); err == nil {
			t.Errorf("schema accepts %s", bad)
		}
	}
}

// kindsJSON renders the registered kind schemas.
func kindsJSON(t *testing.T) []byte {
	type collect struct {
		Refused bool     `json:"refused,omitempty"`
		Name    []string `json:"name,omitempty"`
		Local   []string `json:"local,omitempty"`
	}
	type kind struct {
		Params  map[string]string         `json:"params"`
		Sends   map[string]string         `json:"sends,omitempty"`
		Recv    bool                      `json:"recv,omitempty"`
		Collect *collect                  `json:"collect,omitempty"`
		Consts  map[string]map[string]any `json:"consts,omitempty"`
	}
	out := map[string]any{"$comment": "Generated from the resource registry by go generate ./schemas; DO NOT EDIT."}
	for _, k := range graph.Kinds() {
		s, _ := graph.LookupKind(k)
		kd := kind{Params: s.Params, Sends: s.Sends, Recv: s.Recv, Consts: s.Consts}
		if c := s.Collect; c.Refused || len(c.Name) > 0 || len(c.Local) > 0 {
			kd.Collect = &collect{c.Refused, c.Name, c.Local}
		}
		out[k] = kd
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func TestKindsInSync(t *testing.T) {
	want := kindsJSON(t)
	if *update {
		if err := os.WriteFile("kinds.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(Kinds, want) {
		t.Fatal("kinds.json is out of date with the resource registry: run go generate ./schemas")
	}
}
