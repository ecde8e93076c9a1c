package graph

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// decodeEach decodes every document of data, its resources arrays split
// from min bytes, and returns, for each, its canonical JSON and the
// positions of its resources, or its error.
func decodeEach(t testing.TB, data []byte, min int) []string {
	var out []string
	d := NewDecoder(bytes.NewReader(data), "f")
	d.splitMin = min
	for range 100 {
		doc, err := d.Next()
		if err != nil {
			out = append(out, "error: "+err.Error())
			if err.Error() == "EOF" {
				break
			}
			continue
		}
		var b bytes.Buffer
		if err := Encode(&b, doc, JSON); err != nil {
			out = append(out, "encode: "+err.Error())
			continue
		}
		for _, r := range doc.Resources {
			if r != nil {
				fmt.Fprintf(&b, "%s ", r.At)
			}
		}
		out = append(out, b.String())
	}
	return out
}

// bigDoc returns a document of n resources whose strings hold the bytes
// the split's scan must step over: quotes, escapes, brackets and commas.
func bigDoc(n int, extra string) string {
	var b strings.Builder
	b.WriteString("{\"mgmt\":\"graph/v1\",\"graph\":\"g\",\"seq\":1,\n\"resources\":[\n")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"kind":"file","name":"/srv/f%d","params":{"content":"a \"quoted\" [%d], {x}\\\\","mode":"0644","list":[1,[2,{"a":"]"}]]}}`, i, i)
		if i == n/2 {
			b.WriteString(extra)
		}
	}
	b.WriteString("],\n\"edges\":[{\"from\":{\"kind\":\"file\",\"name\":\"/srv/f0\"},\"to\":{\"kind\":\"file\",\"name\":\"/srv/f1\"}}]}\n")
	return b.String()
}

// TestResourcesSplit: a large resources array decoded in two halves gives
// the same document, positions included, as on one goroutine, and an
// error anywhere gives the same error; the split is taken when it can be.
func TestResourcesSplit(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		split      bool // resourcesSplit decodes it in two halves
	}{
		{"valid", bigDoc(2000, ""), true},
		{"null elements", strings.Replace(bigDoc(2000, ",null"), "[\n{", "[\nnull,{", 1), true},
		{"error in the second half", bigDoc(2000, `,{"kind":"file","name":"/x","params":{"mode":}}`), false},
		{"error in the first half", strings.Replace(bigDoc(2000, ""), `"/srv/f3"`, `"/srv/f3`+"\x01"+`"`, 1), false},
		{"unknown key in the second half", bigDoc(2000, `,{"kind":"file","name":"/y","nope":1}`), false},
		{"truncated", bigDoc(2000, "")[:len(bigDoc(2000, ""))/2+17], false},
		{"two resources keys", strings.Replace(bigDoc(2000, ""), `"seq":1,`, `"seq":1,"resources":[{"kind":"noop","name":"first"}],`, 1), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			one := decodeEach(t, []byte(tc.data), 1<<62)
			two := decodeEach(t, []byte(tc.data), 1)
			if strings.Join(one, "\n") != strings.Join(two, "\n") {
				t.Fatalf("on one goroutine:\n%.3000s\nin two halves:\n%.3000s", strings.Join(one, "\n"), strings.Join(two, "\n"))
			}
			i := strings.LastIndex(tc.data, `"resources":`) + len(`"resources":`)
			p := &jsonParser{data: []byte(tc.data), i: i, intern: map[string]string{}, values: map[string]any{}, posLine: 1, splitMin: 1}
			if got := p.resourcesSplit(&Document{}); got != tc.split {
				t.Errorf("resourcesSplit = %v, want %v", got, tc.split)
			}
			if !tc.split && p.i != i {
				t.Errorf("a refused split left the parser at %d, not at the array's start %d", p.i, i)
			}
		})
	}
}

// FuzzDecodeSplit: any input decodes to the same documents and errors
// with the resources arrays split as without.
func FuzzDecodeSplit(f *testing.F) {
	addSeeds(f)
	f.Add([]byte(bigDoc(20, "")))
	f.Add([]byte(bigDoc(20, `,{"kind":"x","name":"]"}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		one, two := decodeEach(t, data, 1<<62), decodeEach(t, data, 1)
		if strings.Join(one, "\n") != strings.Join(two, "\n") {
			t.Fatalf("on one goroutine:\n%s\nin two halves:\n%s", strings.Join(one, "\n"), strings.Join(two, "\n"))
		}
	})
}
