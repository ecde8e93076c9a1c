package graph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// parseValue parses one JSON value with the document parser.
func parseValue(data []byte) (v any, err error) {
	p := &jsonParser{data: data, start: Position{File: "v", Line: 1, Col: 1}, intern: map[string]string{}, values: map[string]any{}, posLine: 1}
	defer func() {
		if r := recover(); r != nil {
			je, ok := r.(jsonErr)
			if !ok {
				panic(r)
			}
			v, err = nil, &PosError{Pos: p.pos(je.off).String(), Msg: je.msg}
		}
	}()
	v = p.value(0)
	p.ws()
	if p.i < len(p.data) {
		p.fail(p.i, "unexpected data after the value")
	}
	return v, nil
}

// stdValue parses one JSON value with encoding/json, and refuses, as our
// parser does, the strings encoding/json repairs: invalid UTF-8 and lone
// surrogate escapes, which it replaces with U+FFFD.
func stdValue(data []byte) (any, error) {
	if !json.Valid(data) {
		return nil, &PosError{Msg: "invalid"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if !utf8.Valid(data) || countFFFD(v) > writtenFFFD(data) {
		return nil, &PosError{Msg: "repaired"}
	}
	return v, nil
}

// countFFFD counts the U+FFFD characters in the strings of a decoded value.
func countFFFD(v any) int {
	switch v := v.(type) {
	case string:
		return strings.Count(v, "\uFFFD")
	case []any:
		n := 0
		for _, e := range v {
			n += countFFFD(e)
		}
		return n
	case map[string]any:
		n := 0
		for k, e := range v {
			n += countFFFD(k) + countFFFD(e)
		}
		return n
	}
	return 0
}

// writtenFFFD counts the U+FFFD characters that data itself writes: raw,
// or as a \ufffd escape.
func writtenFFFD(data []byte) int {
	n := bytes.Count(data, []byte("\uFFFD"))
	for i := 0; i+1 < len(data); i++ {
		if data[i] != '\\' {
			continue
		}
		if data[i+1] == 'u' && i+6 <= len(data) && strings.EqualFold(string(data[i+2:i+6]), "fffd") {
			n++
		}
		i++ // skip the escaped character
	}
	return n
}

var jsonValues = []string{
	`"plain"`, `"esc \" \\ \/ \b \f \n \r \t"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00x"`, `"\ud83d\u0041"`,
	"\"\xff\xfe bad utf8\"", "\"caf\xc3\xa9\"", `0`, `-0`, `12`, `-3.25`, `1e5`, `1E+2`, `2.5e-3`, `123456789012345678901234567890`,
	`true`, `false`, `null`, `[]`, `{}`, `[1,"a",[true,{"k":null}]]`, `{"a":{"b":[1,2,{"c":"d"}]}}`, ` [ 1 , 2 ] `,
	`01`, `1.`, `.5`, `-`, `+1`, `1e`, `1e+`, `tru`, `nul`, `"\x"`, `"\u12"`, `[1,]`, `{"a":1,}`, `{"a"}`, `{1:2}`,
	"\"tab\there\"", `"unterminated`, `[1 2]`, `{"a":1 "b":2}`, `[`, `{`, `"`, ``, `nan`, `--1`, `0x10`, `1.5.5`,
}

func TestJSONValueMatchesEncodingJSON(t *testing.T) {
	for _, in := range jsonValues {
		got, err1 := parseValue([]byte(in))
		want, err2 := stdValue([]byte(in))
		if (err1 == nil) != (err2 == nil) {
			t.Errorf("%q: ours %v (%v), encoding/json %v (%v)", in, got, err1, want, err2)
			continue
		}
		if err1 == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%q: ours %#v, encoding/json %#v", in, got, want)
		}
		if err1 != nil && !strings.HasPrefix(err1.Error(), "v:1:") {
			t.Errorf("%q: error without position: %v", in, err1)
		}
	}
}

// FuzzJSONValue checks the parser against encoding/json on any input.
func FuzzJSONValue(f *testing.F) {
	for _, v := range jsonValues {
		f.Add([]byte(v))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err1 := parseValue(data)
		want, err2 := stdValue(data)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("%q: ours %v (%v), encoding/json %v (%v)", data, got, err1, want, err2)
		}
		if err1 == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: ours %#v, encoding/json %#v", data, got, want)
		}
	})
}

func TestJSONDocumentErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"mgmt":"graph/v1","resources":[{"kind":"a","name":"b","meta":{"retry":40000}}]}`, "resources[0].meta.retry: got 40000, want an integer from -32768 to 32767"},
		{`{"mgmt":"graph/v1","resources":[{"kind":"a","name":"b","meta":{"delay":-1}}]}`, "resources[0].meta.delay: got -1, want a non-negative integer"},
		{`{"mgmt":"graph/v1","resources":[{"kind":"a","name":"b","meta":{"limit":"x"}}]}`, "resources[0].meta.limit: got string, want number"},
		{`{"mgmt":"graph/v1","resources":[{"kind":"a","name":"b","meta":{"noop":1}}]}`, "resources[0].meta.noop: got number, want boolean"},
		{`{"mgmt":"graph/v1","resources":[{"kind":"a","name":"b","meta":{"sema":[1]}}]}`, "resources[0].meta.sema[0]: got number, want string"},
		{`{"mgmt":"graph/v1","resources":[{"kind":"a","name":"b","meta":{"nope":1}}]}`, `resources[0].meta: unknown metaparameter "nope"`},
		{`{"mgmt":"graph/v1","resources":[{"kind":"a","name":"b","bogus":1}]}`, `resources[0]: unknown field "bogus"`},
		{`{"mgmt":"graph/v1","edges":[{"from":{"kind":"a","name":"b","x":1}}]}`, `edges[0].from: unknown field "x"`},
		{`{"mgmt":"graph/v1","edges":[{"from":"a"}]}`, `edges[0].from: got string, want object`},
		{`{"mgmt":"graph/v1","resources":{}}`, `resources: got object, want array`},
		{`{"mgmt":"graph/v1","error":{"message":"m","x":1}}`, `error: unknown field "x"`},
		{`{"mgmt":"graph/v1","seq":1.5}`, `seq: got 1.5, want an integer`},
		{`{"mgmt":"graph/v1","resources":[{"kind":"a","name":"b","meta":{"autoedge":null,"limit":null,"sema":null}}]}`, ""},
		{`{"mgmt":"graph/v1","resources":null,"edges":null,"error":null,"graph":null}`, ""},
		{`{"mgmt":"graph/v1","resources":[null]}`, "resources[0]: got null, want object"},
		{"{\"mgmt\":\"graph/v1\",\n\"graph\": tru}", "in:2:10: graph: got boolean, want string"},
	}
	for _, tt := range tests {
		_, err := ReadAll(strings.NewReader(tt.in), "in")
		got := ""
		if err != nil {
			got = err.Error()
		}
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("%s\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// TestDecoderReleasesItsBuffer checks that the buffer a whole input was
// read into is let go of once a document has consumed all of it, and that
// the stream still decodes after that: the documents before, the ones
// read later with a small buffer, and the end.
func TestDecoderReleasesItsBuffer(t *testing.T) {
	var big strings.Builder
	big.WriteString(`{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[`)
	for i := 0; i < 2000; i++ {
		if i > 0 {
			big.WriteString(",")
		}
		fmt.Fprintf(&big, `{"kind":"file","name":"/tmp/f%d","params":{"content":"file %d\n"}}`, i, i)
	}
	big.WriteString("]}\n")
	second := `{"mgmt":"graph/v1","graph":"g","seq":2,"resources":[]}` + "\n"
	if big.Len() <= minSourceBuf {
		t.Fatalf("the first document is %d bytes: not over %d", big.Len(), minSourceBuf)
	}
	r := io.MultiReader(strings.NewReader(big.String()+second), strings.NewReader(second))
	d := NewDecoder(&sized{r, big.Len() + len(second)}, "in")
	for seq := int64(1); seq <= 3; seq++ {
		doc, err := d.Next()
		if err != nil {
			t.Fatalf("document %d: %v", seq, err)
		}
		if want := min(seq, 2); doc.Seq != want {
			t.Fatalf("got seq %d, want %d", doc.Seq, want)
		}
		if seq == 1 && d.src.buf == nil {
			t.Fatal("the buffer went while it held the next document")
		}
		if seq == 2 && d.src.buf != nil {
			t.Fatalf("a %d-byte buffer is kept with nothing unread", len(d.src.buf))
		}
		if seq == 1 && len(doc.Resources) != 2000 {
			t.Fatalf("got %d resources", len(doc.Resources))
		}
	}
	if _, err := d.Next(); err != io.EOF {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
}

// sized is a reader that tells its size, as a regular file does.
type sized struct {
	io.Reader
	n int
}

func (s *sized) Len() int { return s.n }

// TestParamsMatchEncodingJSON: the parameters of a document's resources
// are what encoding/json decodes, whatever the parser shares between
// them: keys and values with escapes, one escape right after another,
// values repeated from one resource to the next or whose first quote is
// escaped, more unique short values than it shares, nested ones.
func TestParamsMatchEncodingJSON(t *testing.T) {
	values := []string{`"exists"`, `"0644"`, `"file\n"`, `"a\"b"`, `"\"quoted\""`, `"a\\"`, `"\\"`, `""`,
		`"\u00e9t\u00e9"`, `"caf` + "\xc3\xa9" + `"`, `12`, `-1.5`, `true`, `null`, `["x\ty","exists",["\n"]]`,
		`{"k\n":"v\n","exists":"0644"}`, `"` + strings.Repeat("long ", 20) + `"`}
	keys := []string{`"state"`, `"mode"`, `"con\u0074ent"`, `"a\nb"`, `"exists"`}
	var b strings.Builder
	b.WriteString(`{"mgmt":"graph/v1","resources":[`)
	n := maxSharedValues + 100
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"kind":"k","name":"r%d","params":{`, i)
		for j, k := range keys {
			if j > 0 {
				b.WriteByte(',')
			}
			v := values[(i+j)%len(values)]
			if j == len(keys)-1 {
				v = fmt.Sprintf(`"u%d"`, i) // unique
			}
			b.WriteString(k + ":" + v)
		}
		b.WriteString(`}}`)
	}
	b.WriteString("]}\n")
	doc, err := NewDecoder(strings.NewReader(b.String()), "in").Next()
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Resources []struct {
			Params map[string]any
		}
	}
	dec := json.NewDecoder(strings.NewReader(b.String()))
	dec.UseNumber()
	if err := dec.Decode(&want); err != nil {
		t.Fatal(err)
	}
	if len(doc.Resources) != n || len(want.Resources) != n {
		t.Fatalf("%d and %d resources, want %d", len(doc.Resources), len(want.Resources), n)
	}
	for i, r := range doc.Resources {
		w := want.Resources[i].Params
		for k, v := range w {
			if v == nil {
				delete(w, k) // null: undefined
			}
		}
		if !reflect.DeepEqual(r.Params, w) {
			t.Fatalf("resource %d: params %#v, want %#v", i, r.Params, w)
		}
	}
}

// FuzzParams checks the parameters of a document against encoding/json's
// on any object, given to two resources in a row so that the second one
// reads what the first one shared.
func FuzzParams(f *testing.F) {
	for _, v := range []string{`{"a":"x","b":"a\\","c":"a\"b"}`, `{"k\n":"v\n","k":"v"}`, `{"a":null,"b":[1,"\t",{"c":"d"}]}`} {
		f.Add([]byte(v))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		want, err := stdValue(params)
		m, isObject := want.(map[string]any)
		if err != nil || !isObject || bytes.ContainsAny(params, "\n\r") {
			return
		}
		for k, v := range m {
			if v == nil {
				delete(m, k)
			}
		}
		data := fmt.Sprintf(`{"mgmt":"graph/v1","resources":[{"kind":"k","name":"a","params":%s},{"kind":"k","name":"b","params":%[1]s}]}`, params)
		doc, err := NewDecoder(strings.NewReader(data), "in").Next()
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		for _, r := range doc.Resources {
			if got := r.Params; !reflect.DeepEqual(got, m) && !(len(got) == 0 && len(m) == 0) {
				t.Fatalf("%s: params %#v, want %#v", data, got, m)
			}
		}
	})
}
