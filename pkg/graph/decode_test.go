package graph

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

func decodeOne(t *testing.T, in string) *Document {
	t.Helper()
	docs, err := ReadAll(strings.NewReader(in), "in")
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if len(docs) != 1 {
		t.Fatalf("got %d documents, want 1", len(docs))
	}
	return docs[0]
}

func TestDecodeJSONLines(t *testing.T) {
	in := `{"mgmt":"graph/v1","graph":"main","seq":3,"source":"mcl-compile main.mcl","resources":[{"kind":"file","name":"/tmp/a/","params":{"state":"exists","mode":420,"ratio":1.5},"meta":{"retry":3,"delay":500},"pos":"main.mcl:4:1"},{"kind":"exec","name":"greet","params":{"cmd":"echo hi","shell":"/bin/sh"}}],"edges":[{"from":{"kind":"file","name":"/tmp/a/"},"to":{"kind":"exec","name":"greet"},"notify":true}]}

{"mgmt":"graph/v1","graph":"main","seq":4}
`
	docs, err := ReadAll(strings.NewReader(in), "in")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 {
		t.Fatalf("got %d docs, want 2", len(docs))
	}
	d := docs[0]
	if d.Seq != 3 || len(d.Resources) != 2 || len(d.Edges) != 1 || !d.Edges[0].Notify {
		t.Fatalf("bad document: %+v", d)
	}
	if got := d.Resources[0].Params["mode"]; got != json.Number("420") {
		t.Errorf("mode = %#v, want json.Number 420", got)
	}
	if d.Resources[0].Meta.Retry != 3 || d.Resources[0].Meta.Delay != 500 {
		t.Errorf("meta = %+v", d.Resources[0].Meta)
	}
	if d.At.String() != "in:1:1" || docs[1].At.String() != "in:3:1" {
		t.Errorf("positions %s %s", d.At, docs[1].At)
	}
}

func TestDecodePrettyJSON(t *testing.T) {
	in := "{\n  \"mgmt\": \"graph/v1\",\n  \"graph\": \"g\",\n  \"seq\": 1,\n  \"resources\": [\n    {\"kind\": \"noop\", \"name\": \"a{\"}\n  ]\n}\n{\n  \"mgmt\": \"graph/v1\", \"graph\": \"g\", \"seq\": 2\n}\n"
	docs, err := ReadAll(strings.NewReader(in), "p")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].Resources[0].Name != "a{" || docs[1].At.Line != 9 {
		t.Fatalf("got %d docs: %+v", len(docs), docs)
	}
}

func TestDecodeYAML(t *testing.T) {
	for _, f := range []string{"ex2.lang.yaml", "ex2.mgmtgraph.yaml", "ex3.lang.yaml", "ex3.mgmtgraph.yaml"} {
		b, err := os.ReadFile("testdata/" + f)
		if err != nil {
			t.Fatal(err)
		}
		d := decodeOne(t, string(b))
		if len(d.Resources) == 0 || len(d.Edges) == 0 {
			t.Errorf("%s: empty graph", f)
		}
		if err := d.Validate(); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	d := decodeOne(t, "graph: g\nresources:\n  file:\n  - name: /a\n    mode: 0x1F\n    size: 1.5\n    tags: [a, b]\n    opts: {x: 1}\n    gone: ~\n    meta:\n      retry: -1\n      sema: [a, 'b:2']\n      autoedge: false\n      limit: .inf\n  exec:\n  - name: e\nedges:\n- name: x\n  from: {kind: file, name: /a}\n  to: {kind: exec, name: e}\n  notify: true\n")
	r := d.Resources[0]
	if r.At.String() != "in:4:5" {
		t.Errorf("resource at %s, want in:4:5", r.At)
	}
	if r.Params["mode"] != json.Number("31") || r.Params["size"] != json.Number("1.5") {
		t.Errorf("params %#v", r.Params)
	}
	if _, ok := r.Params["gone"]; ok {
		t.Errorf("null parameter kept")
	}
	if r.Meta.Retry != -1 || len(r.Meta.Sema) != 2 || r.Meta.AutoEdge == nil || *r.Meta.AutoEdge || r.Meta.Limit != nil {
		t.Errorf("meta %+v", r.Meta)
	}
	if !d.Edges[0].Notify || d.Edges[0].At.Line != 18 {
		t.Errorf("edge %+v", d.Edges[0])
	}
}

func TestDecodeYAMLStream(t *testing.T) {
	// A document may start on the separator that ends the one before
	// (d, e), up to the last line.
	in := "# comment\n---\ngraph: a\n---\n\n---\ngraph: b\nresources:\n  noop:\n  - name: x\n...\n--- {graph: c}\n--- {graph: d}\n--- {graph: e}"
	docs, err := ReadAll(strings.NewReader(in), "s")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range docs {
		names = append(names, d.Graph+"@"+d.At.String())
	}
	if got := strings.Join(names, " "); got != "a@s:3:1 b@s:7:1 c@s:12:1 d@s:13:1 e@s:14:1" {
		t.Errorf("got %s", got)
	}
}

func TestDecodeIndentedYAML(t *testing.T) {
	d := decodeOne(t, "\n  graph: g\n  resources:\n    noop:\n    - name: x\n")
	if d.Graph != "g" || len(d.Resources) != 1 {
		t.Fatalf("got %+v", d)
	}
}

// TestDecodeErrors checks that bad input gives one positioned error and
// that the decoder goes on with the next document.
func TestDecodeErrors(t *testing.T) {
	good := `{"mgmt":"graph/v1","graph":"ok","seq":1}`
	tests := []struct{ name, in, want string }{
		{"truncated", `{"mgmt":"graph/v1","graph":"g","resources":[{"kind":"file"`, "in:1:59: unexpected end of JSON document (truncated?)"},
		{"truncated then next", `{"mgmt":"graph/v1","graph":"g","resources":[` + "\n" + good, "in:1:45: unexpected end of JSON document (truncated?): line 2 starts with '{', which begins the next document; a document written over several lines must indent the lines inside it"},
		{"truncated string then next", `{"mgmt":"graph/v1","graph":"g` + "\n" + good, "in:1:30: unexpected end of JSON document (truncated?): line 2 starts with '{', which begins the next document; a document written over several lines must indent the lines inside it"},
		{"unindented lines", `{"mgmt":"graph/v1","graph":"g","resources":[` + "\n" + `{"kind":"a","name":"b"}` + "\n]}\n" + good, "in:1:45: unexpected end of JSON document (truncated?): line 2 starts with '{', which begins the next document; a document written over several lines must indent the lines inside it"},
		{"indented lines", `{"mgmt":"graph/v1","graph":"g","resources":[` + "\n" + ` {"kind":"a","name":"b"` + "\n}]}\n" + `{"mgmt":"graph/v1","graph":"g","bogus":1}` + "\n" + good, `in:4:32: unknown field "bogus"`},
		{"syntax", `{"mgmt":"graph/v1",,}` + "\n" + good, "in:1:20: invalid character ',' looking for beginning of object key string"},
		{"wrong type", `{"mgmt":"graph/v1","graph":"g","seq":"x"}` + "\n" + good, "in:1:38: seq: got string, want integer"},
		{"wrong meta type", `{"mgmt":"graph/v1","graph":"g","resources":[{"kind":"a","name":"b","meta":{"retry":"x"}}]}` + "\n" + good, "in:1:84: resources[0].meta.retry: got string, want integer"},
		{"unknown field", `{"mgmt":"graph/v1","graph":"g","bogus":1}` + "\n" + good, `in:1:32: unknown field "bogus"`},
		{"unknown mgmt tag", `{"mgmt":"graph/v9","graph":"g"}` + "\n" + good, `in:1:1: unknown mgmt tag "graph/v9", want "graph/v1"`},
		{"missing mgmt tag", `{"graph":"g"}` + "\n" + good, `in:1:1: missing mgmt tag, want "mgmt": "graph/v1"`},
		{"garbage line", good + "\nhello\n" + good, `in:2:1: expected '{' to start a JSON graph document, got 'h'`},
		{"binary", good + "\n\x00\x01\x02\n" + good, `in:2:1: expected '{' to start a JSON graph document, got byte 0x00`},
		{"trailing", good + ` 5` + "\n" + good, `in:1:42: unexpected data after the document`},
		{"yaml syntax", "graph: g\nresources: [\n", "in:3: did not find expected node content"},
		{"yaml type", "graph: g\nresources:\n  file:\n  - name: a\n    meta:\n      retry: lots\n", "in:6:14: meta.retry: got string, want integer (int16)"},
		{"yaml unknown meta", "graph: g\nresources:\n  file:\n  - name: a\n    meta:\n      retyr: 1\n", `in:6:7: meta: unknown metaparameter "retyr"`},
		{"yaml no name", "graph: g\nresources:\n  file:\n  - state: x\n", "in:4:5: file resource without a name"},
		{"yaml mgmt tag", "mgmt: graph/v2\ngraph: g\n", `in:1:1: unknown mgmt tag "graph/v2", want "graph/v1"`},
		{"yaml scalar", "hello\n", "in:1:1: document: got string, want mapping"},
		{"yaml binary", "\x01\x02\x03\n", "in:1: control characters are not allowed"},
		{"yaml edge", "graph: g\nedges:\n- from: x\n", "in:3:9: edge from: got string, want mapping"},
		{"yaml alias bomb", "graph: g\nresources:\n  file:\n  - name: a\n    x: &a [1,1,1,1,1,1,1,1,1,1]\n    y: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n    z: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n" +
			"    w: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n    v: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n    u: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n    s: [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\n",
			"in:5:12: value nested too deeply or too large"},
		{"json deep", `{"mgmt":"graph/v1","resources":[{"kind":"a","name":"b","params":{"x":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}}]}`, "in:1:1070: value nested too deeply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDecoder(strings.NewReader(tt.in), "in")
			var got string
			goodDocs := 0
			for {
				doc, err := d.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					var pe *PosError
					var el ErrorList
					if !errors.As(err, &pe) && !errors.As(err, &el) {
						t.Fatalf("error %T %v is not positioned", err, err)
					}
					if got == "" {
						got = err.Error()
					}
					continue
				}
				if doc.Graph == "ok" {
					goodDocs++
				}
			}
			if got != tt.want {
				t.Errorf("error\n got %s\nwant %s", got, tt.want)
			}
			if strings.Contains(tt.in, good) && goodDocs == 0 {
				t.Errorf("decoder did not recover")
			}
		})
	}
}

type failReader struct{ n int }

func (r *failReader) Read(p []byte) (int, error) {
	if r.n > 0 {
		r.n = 0
		return copy(p, `{"mgmt":"graph/v1","graph":"g"}`+"\n"), nil
	}
	return 0, errors.New("disk on fire")
}

func TestDecodeReadError(t *testing.T) {
	d := NewDecoder(&failReader{1}, "f")
	if _, err := d.Next(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := d.Next(); err == nil || err.Error() != "disk on fire" {
			t.Fatalf("got %v", err)
		}
	}
}

func TestDecodeEmpty(t *testing.T) {
	for _, in := range []string{"", "\n\n", "# nothing\n", "---\n", "   "} {
		if _, err := NewDecoder(bytes.NewReader([]byte(in)), "e").Next(); err != io.EOF {
			t.Errorf("%q: got %v, want EOF", in, err)
		}
	}
}

// TestInvalidUTF8Refused checks that a string that is not valid UTF-8 is
// an error at the offending byte in both formats, never a string repaired
// into another name.
func TestInvalidUTF8Refused(t *testing.T) {
	tests := []struct{ in, want string }{
		{"{\"mgmt\":\"graph/v1\",\"resources\":[{\"kind\":\"file\",\"name\":\"/tmp/a\xffb\"}]}",
			"in:1:62: invalid UTF-8 byte 0xff in string literal"},
		{"{\"mgmt\":\"graph/v1\",\"resources\":[{\"kind\":\"file\",\"name\":\"/tmp/\\n\xc3\"}]}",
			"in:1:63: invalid UTF-8 byte 0xc3 in string literal"},
		{"{\"mgmt\":\"graph/v1\",\"resources\":[{\"kind\":\"file\",\"name\":\"/a\",\"params\":{\"content\":\"\xed\xa0\x80\"}}]}",
			"in:1:81: invalid UTF-8 byte 0xed in string literal"},
		{`{"mgmt":"graph/v1","resources":[{"kind":"file","name":"/tmp/\ud800"}]}`,
			`in:1:61: invalid \u escape in string literal: lone surrogate \ud800`},
		{"---\ngraph: g\nresources:\n  file:\n  - name: \"/tmp/a\xfe\"\n",
			"in:5:18: invalid UTF-8 byte 0xfe"},
		{"graph: g\nresources:\n  file:\n  - name: /tmp/a\n    content: \"x\xff\"\n",
			"in:5:16: invalid UTF-8 byte 0xff"},
	}
	for _, tt := range tests {
		docs, err := ReadAll(strings.NewReader(tt.in), "in")
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q:\n got %v (%d documents)\nwant %s", tt.in, err, len(docs), tt.want)
		}
	}
}

// TestYAMLErrorLineAfterSeparator checks that an error in a document that
// follows a "---" line names the line it is on.
func TestYAMLErrorLineAfterSeparator(t *testing.T) {
	in := "---\ngraph: g\nresources:\n  file:\n  - name: /a\n    meta: {retry: x}\n"
	_, err := ReadAll(strings.NewReader(in), "in")
	if err == nil || !strings.HasPrefix(err.Error(), "in:6:19: ") {
		t.Fatalf("got %v, want an error at in:6:19", err)
	}
}
