package graph

import (
	"bytes"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"
)

const sampleJSON = `{"mgmt":"graph/v1","graph":"main","seq":3,"source":"mcl-compile main.mcl","resources":[{"kind":"file","name":"/tmp/a/","params":{"state":"exists","mode":420,"ratio":1.5,"tags":["x","y"],"opts":{"b":true,"a":[1,2]}},"meta":{"retry":3,"delay":500,"sema":["s:2"],"autoedge":false,"limit":2.5,"burst":1},"pos":"main.mcl:4:1","origin":"mcl"},{"kind":"exec","name":"greet","params":{"cmd":"echo hi","shell":"/bin/sh"}},{"kind":"file","name":"/tmp/a/b","params":{"state":"exists","content":"a: b\n\"q\" <&>"}}],"edges":[{"from":{"kind":"file","name":"/tmp/a/"},"to":{"kind":"exec","name":"greet"},"notify":true},{"from":{"kind":"exec","name":"greet"},"to":{"kind":"file","name":"/tmp/a/b"},"send":"output","recv":"content"}]}`

func encode(t *testing.T, d *Document, f Format) string {
	t.Helper()
	var b bytes.Buffer
	if err := Encode(&b, d, f); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestEncodeRoundTrip(t *testing.T) {
	d := decodeOne(t, sampleJSON)
	j1 := encode(t, d, JSON)
	if strings.Count(j1, "\n") != 1 || !strings.HasSuffix(j1, "\n") {
		t.Fatalf("JSON output is not one line: %q", j1)
	}
	y := encode(t, decodeOne(t, j1), YAML)
	j2 := encode(t, decodeOne(t, y), JSON)
	if j1 != j2 {
		t.Errorf("JSON -> YAML -> JSON changed the document\n%s\n%s\nyaml:\n%s", j1, j2, y)
	}
	y2 := encode(t, decodeOne(t, y), YAML)
	if y != y2 {
		t.Errorf("YAML round trip changed\n%s\n%s", y, y2)
	}
	if !strings.Contains(j1, `"content":"a: b\n\"q\" <&>"`) {
		t.Errorf("HTML escaped or mangled: %s", j1)
	}
}

func TestEncodeCanonical(t *testing.T) {
	d := decodeOne(t, sampleJSON)
	want := encode(t, d, JSON)
	wantY := encode(t, d, YAML)
	wantD := encode(t, d, Dot)
	rng := rand.New(rand.NewSource(1))
	for range 20 {
		s := decodeOne(t, sampleJSON)
		rng.Shuffle(len(s.Resources), func(i, j int) { s.Resources[i], s.Resources[j] = s.Resources[j], s.Resources[i] })
		rng.Shuffle(len(s.Edges), func(i, j int) { s.Edges[i], s.Edges[j] = s.Edges[j], s.Edges[i] })
		if got := encode(t, s, JSON); got != want {
			t.Fatalf("order changed the JSON output:\n%s\n%s", got, want)
		}
		if got := encode(t, s, YAML); got != wantY {
			t.Fatalf("order changed the YAML output")
		}
		if got := encode(t, s, Dot); got != wantD {
			t.Fatalf("order changed the dot output")
		}
	}
	// Encoding does not reorder the caller's document.
	if d.Resources[0].Name != "/tmp/a/" {
		t.Errorf("Encode sorted the input in place")
	}
}

func TestMarshalIsEncode(t *testing.T) {
	d := decodeOne(t, sampleJSON)
	slices.Reverse(d.Resources)
	for _, f := range []Format{JSON, YAML, Dot} {
		b, err := Marshal(d, f)
		if err != nil {
			t.Fatal(err)
		}
		if want := encode(t, d, f); string(b) != want {
			t.Errorf("Marshal(%v) = %s, want what Encode writes: %s", f, b, want)
		}
	}
}

func TestEncodeDot(t *testing.T) {
	got := encode(t, decodeOne(t, sampleJSON), Dot)
	for _, want := range []string{
		`digraph "main" {`,
		`"exec[greet]" [label="exec[greet]"];`,
		`"file[/tmp/a/]" -> "exec[greet]" [style=bold, label="notify"];`,
		`"exec[greet]" -> "file[/tmp/a/b]" [style=dashed, label="output -> content"];`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("dot output lacks %s:\n%s", want, got)
		}
	}
}

func TestEncodeErrorDoc(t *testing.T) {
	d := &Document{Mgmt: Version, Graph: "g", Seq: 2, Error: &Error{Message: "boom", Pos: "a.mcl:1:2"}}
	j := encode(t, d, JSON)
	if j != `{"mgmt":"graph/v1","graph":"g","seq":2,"error":{"message":"boom","pos":"a.mcl:1:2"}}`+"\n" {
		t.Errorf("got %s", j)
	}
	back := decodeOne(t, encode(t, d, YAML))
	if !back.IsError() || back.Error.Message != "boom" || back.Error.Pos != "a.mcl:1:2" {
		t.Errorf("YAML error document round trip: %+v", back)
	}
}

func TestEncodeUpstreamYAML(t *testing.T) {
	b, err := os.ReadFile("testdata/ex2.mgmtgraph.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d := decodeOne(t, string(b))
	y := encode(t, d, YAML)
	if encode(t, decodeOne(t, y), JSON) != encode(t, d, JSON) {
		t.Errorf("graph.yaml did not survive a YAML round trip:\n%s", y)
	}
}

func TestParseFormat(t *testing.T) {
	for s, want := range map[string]Format{"json": JSON, "yaml": YAML, "dot": Dot, "YAML": YAML} {
		if f, err := ParseFormat(s); err != nil || f != want || (s == strings.ToLower(s) && f.String() != s) {
			t.Errorf("ParseFormat(%q) = %v, %v", s, f, err)
		}
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Errorf("xml accepted")
	}
}

func TestEncodeSkipsNil(t *testing.T) {
	d := &Document{Mgmt: Version, Graph: "g", Resources: []*Resource{nil, {Kind: "a", Name: "b"}}, Edges: []*Edge{nil}}
	if got := encode(t, d, JSON); got != `{"mgmt":"graph/v1","graph":"g","seq":0,"resources":[{"kind":"a","name":"b"}]}`+"\n" {
		t.Errorf("got %s", got)
	}
}
