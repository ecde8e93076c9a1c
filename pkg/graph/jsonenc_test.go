package graph

import (
	"bytes"
	"encoding/json"
	"testing"
)

// stdJSON encodes doc with encoding/json, the reference of appendJSON.
func stdJSON(doc *Document) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(Canonical(doc))
	return b.String(), err
}

func checkEncoderMatches(t *testing.T, doc *Document) {
	t.Helper()
	want, err1 := stdJSON(doc)
	var b bytes.Buffer
	err2 := Encode(&b, doc, JSON)
	if (err1 == nil) != (err2 == nil) {
		t.Fatalf("errors differ: encoding/json %v, ours %v", err1, err2)
	}
	if err1 == nil && b.String() != want {
		t.Fatalf("encodings differ:\nours %s\nwant %s", b.String(), want)
	}
}

func TestJSONEncoderMatchesEncodingJSON(t *testing.T) {
	limit := 0.5
	tr := true
	docs := []*Document{
		decodeOne(t, sampleJSON),
		{Mgmt: Version, Graph: "g<&>\u2028\"\\\x01\xff", Seq: -3, Source: "s", Error: &Error{Message: "m\n", Pos: "p"}},
		{Mgmt: Version, Resources: []*Resource{{Kind: "a", Name: "é", Params: map[string]any{
			"f": 1.5, "i": 3, "n": json.Number("12"), "bad": json.Number(""), "l": []any{}, "nl": []any(nil), "m": map[string]any{"z": nil, "a": []string{"x"}},
			"u": uint8(7), "s": "tab\there", "html": "<b>&amp;</b>",
		}, Meta: &Meta{Retry: -1, Limit: &limit, AutoGroup: &tr, Sema: []string{"a:2"}}, Pos: "p:1:2", Origin: "mcl"}},
			Edges: []*Edge{{From: Ref{"a", "é"}, To: Ref{"a", "é"}, Notify: true, Send: "x", Recv: "y"}}},
		{Mgmt: Version, Resources: []*Resource{{Kind: "a", Name: "b", Params: map[string]any{"x": json.Number("01")}}}},
	}
	for _, d := range docs {
		checkEncoderMatches(t, d)
	}
}

// FuzzJSONEncoder checks the encoder against encoding/json on decoded
// documents.
func FuzzJSONEncoder(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, _ := ReadAll(bytes.NewReader(data), "f")
		for _, d := range docs {
			checkEncoderMatches(t, d)
		}
	})
}
