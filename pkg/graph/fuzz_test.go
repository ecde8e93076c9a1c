package graph

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func addSeeds(f *testing.F) {
	for _, b := range seeds() {
		f.Add(b)
	}
}

// seeds are documents of every syntax the decoder reads.
func seeds() [][]byte {
	out := [][]byte{
		[]byte(sampleJSON),
		[]byte(`{"mgmt":"graph/v1","graph":"g","seq":1,"error":{"message":"x","pos":"a:1:2"}}` + "\n{\"mgmt\":\"graph/v1\"}"),
		[]byte("{\n \"mgmt\": \"graph/v1\",\n \"resources\": [{\"kind\":\"a\",\"name\":\"\\u00e9\\ud83d\\ude00\"}]\n}\n"),
		[]byte("---\ngraph: g\nresources:\n  file:\n  - name: /a\n    x: [1, 2.5, {a: b}]\n    meta: {retry: -1, sema: [a]}\nedges:\n- {from: {kind: file, name: /a}, to: {kind: file, name: /a}}\n...\n"),
	}
	for _, name := range []string{"ex2.mgmtgraph.yaml", "ex3.lang.yaml"} {
		if b, err := os.ReadFile("testdata/" + name); err == nil {
			out = append(out, b)
		}
	}
	return out
}

// roundTrip checks that a decoded document survives JSON and YAML
// encoding: decoding the encoding gives the same canonical JSON.
func roundTrip(t *testing.T, doc *Document) {
	var j1 bytes.Buffer
	if err := Encode(&j1, doc, JSON); err != nil {
		t.Fatalf("encode: %v", err)
	}
	for _, f := range []Format{JSON, YAML} {
		var enc bytes.Buffer
		if err := Encode(&enc, doc, f); err != nil {
			t.Fatalf("encode %v: %v", f, err)
		}
		back, err := ReadAll(&enc, "enc")
		if err != nil || len(back) != 1 {
			t.Fatalf("decoding the %v encoding: %v (%d docs)\n%s", f, err, len(back), enc.String())
		}
		var j2 bytes.Buffer
		Encode(&j2, back[0], JSON)
		if j1.String() != j2.String() {
			t.Fatalf("%v round trip changed the document:\n%s\n%s", f, j1.String(), j2.String())
		}
	}
	if err := Encode(&bytes.Buffer{}, doc, Dot); err != nil {
		t.Fatal(err)
	}
}

// FuzzDecode feeds arbitrary bytes to the decoder: it must never panic,
// every error must carry a position, and what decodes must validate
// without panicking and survive encoding round trips.
func FuzzDecode(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(bytes.NewReader(data), "f")
		for range 100 {
			doc, err := d.Next()
			if err != nil {
				if err.Error() == "EOF" {
					return
				}
				if strings.Contains(err.Error(), "cannot decode document") {
					t.Fatalf("decoder panicked: %v", err)
				}
				if !strings.HasPrefix(err.Error(), "f:") {
					t.Fatalf("error without a position: %v", err)
				}
				continue
			}
			verr := doc.Validate()
			if verr == nil || doc.IsError() {
				roundTrip(t, doc)
			}
		}
	})
}

// FuzzMerge merges the first documents of two inputs: it must never
// panic, and a merged graph must be valid and encodable.
func FuzzMerge(f *testing.F) {
	lang, _ := os.ReadFile("testdata/ex3.lang.yaml")
	puppet, _ := os.ReadFile("testdata/ex3.mgmtgraph.yaml")
	f.Add(lang, puppet, false)
	f.Add([]byte(sampleJSON), puppet, true)
	f.Add([]byte(`{"mgmt":"graph/v1","graph":"a","resources":[{"kind":"noop","name":"puppet_x"}]}`),
		[]byte(`{"mgmt":"graph/v1","graph":"b","resources":[{"kind":"noop","name":"admissible_Class[Mgmt_x]"},{"kind":"noop","name":"completed_Class[Mgmt_x]"}],"edges":[{"from":{"kind":"noop","name":"admissible_Class[Mgmt_x]"},"to":{"kind":"noop","name":"completed_Class[Mgmt_x]"}}]}`), false)
	f.Fuzz(func(t *testing.T, a, b []byte, allow bool) {
		da, err := NewDecoder(bytes.NewReader(a), "a").Next()
		if err != nil {
			return
		}
		db, err := NewDecoder(bytes.NewReader(b), "b").Next()
		if err != nil {
			return
		}
		out, _, err := Merge(MergeOptions{AllowUnmatched: allow}, Input{"a", da}, Input{"b", db})
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		var before bytes.Buffer
		Encode(&before, out, JSON)
		if err := out.Validate(); err != nil {
			t.Fatalf("merged graph is not valid: %v\n%s", err, before.String())
		}
		var after bytes.Buffer
		Encode(&after, out, JSON)
		if before.String() != after.String() {
			t.Fatalf("validating the merged graph changed it:\n%s\n%s", before.String(), after.String())
		}
		roundTrip(t, out)
	})
}
