package graph

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// A Format is an output syntax of Encode.
type Format int

// The formats Encode writes.
const (
	JSON Format = iota // one JSON object per line (the wire format)
	YAML               // upstream graph.yaml, "---"/"..." delimited
	Dot                // Graphviz dot, for looking at
)

// Formats lists the names ParseFormat accepts.
var Formats = []string{"json", "yaml", "dot"}

// ParseFormat returns the format named s (json, yaml or dot).
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "json", "jsonl", "":
		return JSON, nil
	case "yaml", "yml":
		return YAML, nil
	case "dot", "graphviz":
		return Dot, nil
	}
	return JSON, fmt.Errorf("unknown format %q, want one of %s", s, strings.Join(Formats, ", "))
}

// String returns the name of f.
func (f Format) String() string {
	if int(f) < len(Formats) && f >= 0 {
		return Formats[f]
	}
	return "format(" + strconv.Itoa(int(f)) + ")"
}

// Canonical returns a shallow copy of doc whose resources are sorted by
// (kind, name) and edges by (from, to, send, recv), without nil entries,
// and where a meta that holds only defaults is left out. doc is not
// changed.
func Canonical(doc *Document) *Document {
	c := *doc
	c.Resources = make([]*Resource, 0, len(doc.Resources))
	for _, r := range doc.Resources {
		if r == nil {
			continue
		}
		if r.Meta != nil && equalMeta(r.Meta, nil) {
			rc := *r
			rc.Meta = nil
			r = &rc
		}
		c.Resources = append(c.Resources, r)
	}
	c.Edges = slices.DeleteFunc(slices.Clone(doc.Edges), func(e *Edge) bool { return e == nil })
	SortResources(c.Resources)
	SortEdges(c.Edges)
	return &c
}

// SortResources sorts resources by (kind, name) in place.
func SortResources(res []*Resource) {
	slices.SortFunc(res, func(a, b *Resource) int { return a.Ref().Compare(b.Ref()) })
}

// SortEdges sorts edges by (from, to, send, recv) in place.
func SortEdges(edges []*Edge) {
	slices.SortFunc(edges, func(a, b *Edge) int { return a.Key().Compare(b.Key()) })
}

// Encode writes doc to w in format f, canonically: identical graphs give
// identical bytes. Every format ends with a newline.
func Encode(w io.Writer, doc *Document, f Format) error {
	c := Canonical(doc)
	switch f {
	case JSON:
		return encodeJSON(w, c)
	case YAML:
		return encodeYAML(w, c)
	case Dot:
		return encodeDot(w, c)
	}
	return fmt.Errorf("unknown format %v", f)
}

func encodeJSON(w io.Writer, doc *Document) error {
	b, err := marshalJSON(doc)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func marshalJSON(doc *Document) ([]byte, error) {
	return appendJSON(make([]byte, 0, 256+160*(len(doc.Resources)+len(doc.Edges))), doc)
}

// Marshal returns the bytes Encode writes: for a program that holds the
// document's encoding before it writes it, without a copy.
func Marshal(doc *Document, f Format) ([]byte, error) {
	if f == JSON {
		return marshalJSON(Canonical(doc))
	}
	var b bytes.Buffer
	err := Encode(&b, doc, f)
	return b.Bytes(), err
}

// dotQuote quotes s as a dot ID.
func dotQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func encodeDot(w io.Writer, doc *Document) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, "digraph %s {\n", dotQuote(doc.Graph))
	fmt.Fprintf(bw, "\tlabel=%s;\n", dotQuote(strings.TrimSpace(fmt.Sprintf("%s seq %d", doc.Graph, doc.Seq))))
	if doc.Error != nil {
		fmt.Fprintf(bw, "\terror [shape=box, color=red, label=%s];\n", dotQuote("error: "+doc.Error.Err().Error()))
	}
	for _, r := range doc.Resources {
		ref := r.Ref().String()
		fmt.Fprintf(bw, "\t%s [label=%s];\n", dotQuote(ref), dotQuote(ref))
	}
	for _, e := range doc.Edges {
		var attrs []string
		if e.Notify {
			attrs = append(attrs, "style=bold", `label="notify"`)
		}
		if e.Send != "" || e.Recv != "" {
			attrs = append(attrs, "style=dashed", "label="+dotQuote(e.Send+" -> "+e.Recv))
		}
		fmt.Fprintf(bw, "\t%s -> %s", dotQuote(e.From.String()), dotQuote(e.To.String()))
		if len(attrs) > 0 {
			fmt.Fprintf(bw, " [%s]", strings.Join(attrs, ", "))
		}
		bw.WriteString(";\n")
	}
	bw.WriteString("}\n")
	return bw.Flush()
}
