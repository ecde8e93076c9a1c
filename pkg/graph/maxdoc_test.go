package graph

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// repeat is a reader of pattern repeated until n bytes are read.
type repeat struct {
	pattern string
	n, off  int
}

func (r *repeat) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && r.n > 0 {
		c := copy(p[k:min(len(p), k+r.n)], r.pattern[r.off:])
		r.off = (r.off + c) % len(r.pattern)
		k += c
		r.n -= c
	}
	return k, nil
}

// stream is head, then pattern repeated about n bytes (whole times), then
// tail.
func stream(head, pattern string, n int, tail string) io.Reader {
	return io.MultiReader(strings.NewReader(head), &repeat{pattern: pattern, n: n / len(pattern) * len(pattern)}, strings.NewReader(tail))
}

const smallDoc = `{"mgmt":"graph/v1","graph":"g","seq":2}` + "\n"

// A document larger than the limit is refused at its start and read to its
// end holding at most about the limit at once, whatever its syntax and
// however it is framed; the next document is decoded.
func TestMaxDocument(t *testing.T) {
	const max = 64 << 10
	const big = 16 << 20 // 256 times the limit
	for _, tc := range []struct {
		name string
		in   func() io.Reader
		pos  string
		next bool // a document follows the large one
	}{
		{"json line", func() io.Reader {
			return stream(`{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[`, `{"kind":"file","name":"/x","params":{}},`, big, "{}]}\n"+smallDoc)
		}, "in:1:1", true},
		{"json over lines", func() io.Reader {
			return stream("\n  {\"mgmt\":\"graph/v1\",\"graph\":\"g\",\"resources\":[\n", "  {\"kind\":\"file\",\"name\":\"/x\"},\n", big, "  {}]}\n"+smallDoc)
		}, "in:2:3", true},
		{"json string without end", func() io.Reader {
			return stream(`{"mgmt":"graph/v1","graph":"`, "y", big, "")
		}, "in:1:1", false},
		{"json cut by the next document", func() io.Reader {
			return stream("{\"mgmt\":\"graph/v1\",\"resources\":[\n", " 1,\n", big, smallDoc)
		}, "in:1:1", true},
		{"yaml lines", func() io.Reader {
			return stream("graph: g\nresources:\n", "  - {kind: file, name: /x}\n", big, "---\ngraph: h\n")
		}, "in:1:1", true},
		{"yaml endless line", func() io.Reader { return stream("graph: ", "y", big, "") }, "in:1:1", false},
		{"yes", func() io.Reader { return stream("", "y\n", big, "") }, "in:1:1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDecoder(tc.in(), "in")
			d.SetMaxDocument(max)
			_, err := d.Next()
			if err == nil || !strings.Contains(err.Error(), "document larger than 65536 bytes") {
				t.Fatalf("got %v, want the document refused as too large", err)
			}
			if pe, ok := err.(*PosError); !ok || pe.Pos != tc.pos {
				t.Errorf("error %v: want it at %s", err, tc.pos)
			}
			if n := cap(d.src.buf) + cap(d.buf); n > 4*max {
				t.Errorf("the decoder holds %d bytes of buffers, over 4 times the limit", n)
			}
			doc, err := d.Next()
			if tc.next {
				if err != nil || doc == nil || doc.Graph == "" {
					t.Fatalf("next document: %v, %v", doc, err)
				}
				doc, err = d.Next()
			}
			if err != io.EOF {
				t.Fatalf("after it: %v, %v; want the end", doc, err)
			}
		})
	}
}

// The limit holds for a document read from a file at once (a reader that
// tells its size), and a document of the limit's size passes.
func TestMaxDocumentWholeInput(t *testing.T) {
	doc := func(n int) []byte {
		var b bytes.Buffer
		b.WriteString(`{"mgmt":"graph/v1","graph":"g","resources":[`)
		for b.Len() < n-100 {
			b.WriteString(`{"kind":"file","name":"/x"},`)
		}
		b.WriteString(`{"kind":"file","name":"/y"}]`)
		for b.Len() < n-1 {
			b.WriteByte(' ')
		}
		b.WriteString("}")
		return b.Bytes()
	}
	for _, pretty := range []bool{false, true} {
		at := doc(4096)
		over := doc(4097)
		if pretty {
			at = bytes.Replace(at, []byte(`"resources":[`), []byte("\"resources\":[\n "), 1)
			over = bytes.Replace(over, []byte(`"resources":[`), []byte("\"resources\":[\n "), 1)
		}
		in := append(append(append(at, '\n'), over...), '\n')
		d := NewDecoder(bytes.NewReader(in), "in")
		d.SetMaxDocument(len(at))
		if _, err := d.Next(); err != nil {
			t.Fatalf("pretty %v: a document of the limit's size: %v", pretty, err)
		}
		if _, err := d.Next(); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("document larger than %d bytes", len(at))) {
			t.Fatalf("pretty %v: a document one byte over: %v", pretty, err)
		}
		if _, err := d.Next(); err != io.EOF {
			t.Fatalf("pretty %v: %v, want the end", pretty, err)
		}
	}
}

// A document is reported as soon as it is found too large, before its end:
// a producer that never ends its document is reported while it writes.
func TestMaxDocumentReportedAtOnce(t *testing.T) {
	for _, head := range []string{`{"mgmt":"graph/v1","graph":"`, "graph: g\nresources:\n"} {
		pr, pw := io.Pipe()
		go func() {
			io.Copy(pw, stream(head, "y\n", 1<<20, ""))
			// and nothing more until the reader is closed
		}()
		d := NewDecoder(pr, "in")
		d.SetMaxDocument(64 << 10)
		if _, err := d.Next(); err == nil || !strings.Contains(err.Error(), "in:1:1: document larger than") {
			t.Errorf("%q...: got %v", head, err)
		}
		pr.Close()
	}
}

// outcomes decodes all of r with a decoder of at most limit bytes a document
// (0: the default), one line per document or error, and the size of the
// largest buffers it held.
func outcomes(t *testing.T, r io.Reader, limit int) (out []string, held int) {
	d := NewDecoder(r, "f")
	d.SetMaxDocument(limit)
	for range 100 {
		doc, err := d.Next()
		held = max(held, cap(d.src.buf)+cap(d.buf))
		switch {
		case err == io.EOF:
			return out, held
		case err != nil:
			if strings.Contains(err.Error(), "cannot decode document") || !strings.HasPrefix(err.Error(), "f:") {
				t.Fatalf("limit %d: %v", limit, err)
			}
			out = append(out, "error "+err.Error())
		default:
			var b bytes.Buffer
			Encode(&b, doc, JSON)
			out = append(out, b.String())
		}
	}
	return out, held
}

// FuzzMaxDocument decodes its input one byte per read with a limit of 1 to
// 256 bytes a document: no panic, every error positioned, buffers bounded;
// and with a limit larger than the input, what the default decoder gives.
func FuzzMaxDocument(f *testing.F) {
	for i, b := range seeds() {
		f.Add(b, uint8(i*40))
	}
	f.Add([]byte("--- {graph: a}\n--- {graph: b, resources: {noop: [{name: x}]}}\n--- {graph: c}"), uint8(20))
	f.Fuzz(func(t *testing.T, data []byte, limit uint8) {
		want, _ := outcomes(t, bytes.NewReader(data), 0)
		got, held := outcomes(t, iotest.OneByteReader(bytes.NewReader(data)), int(limit)+1)
		if held > 4*minSourceBuf {
			t.Fatalf("limit %d: held %d bytes", int(limit)+1, held)
		}
		if int(limit) >= len(data) && !slices.Equal(got, want) { // a YAML frame ends in a newline the input may lack
			t.Fatalf("limit %d over an input of %d bytes:\ngot  %q\nwant %q", int(limit)+1, len(data), got, want)
		}
	})
}

// The decoder gives the same documents and positions however the reads
// cut its input: the indentation before the first document's first byte
// was lost when a read ended inside it.
func TestDecodeReadCuts(t *testing.T) {
	for _, in := range []string{" 0", "\n  graph: g\n  resources:\n    noop:\n    - name: x\n", "# c\n\t {\"mgmt\":\"graph/v1\",\"graph\":\"g\"}\n"} {
		want, _ := outcomes(t, strings.NewReader(in), 0)
		got, _ := outcomes(t, iotest.OneByteReader(strings.NewReader(in)), 0)
		if !slices.Equal(got, want) {
			t.Errorf("%q read a byte at a time:\ngot  %q\nwant %q", in, got, want)
		}
	}
}
