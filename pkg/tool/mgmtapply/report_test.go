package mgmtapply

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// badEdges returns a graph document of one file and n edges to files that
// are not in the graph, as JSON.
func badEdges(tb testing.TB, n int) []byte {
	tb.Helper()
	d := map[string]any{"mgmt": "graph/v1", "graph": "bad",
		"resources": []any{map[string]any{"kind": "file", "name": "/tmp/a", "params": map[string]any{"state": "exists"}}}}
	edges := make([]any, n)
	for i := range edges {
		edges[i] = map[string]any{"from": map[string]any{"kind": "file", "name": "/tmp/a"}, "to": map[string]any{"kind": "file", "name": fmt.Sprintf("/tmp/no/%d", i)}}
	}
	d["edges"] = edges
	data, err := json.Marshal(d)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// report decodes data and returns what mgmt-apply logs for it, which must
// be an invalid graph.
func report(tb testing.TB, data []byte) string {
	o, err := next(graph.NewDecoder(bytes.NewReader(data), "in"), engine.BuildOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	if o.g != nil {
		tb.Fatal("an invalid graph was prepared")
	}
	return o.msg
}

// TestManyErrorsCapped: the errors of a graph are logged one per line up
// to graph.MaxListed, then counted.
func TestManyErrorsCapped(t *testing.T) {
	lines := strings.Split(report(t, badEdges(t, 100000)), "\n")
	if len(lines) != graph.MaxListed+1 {
		t.Fatalf("%d lines", len(lines))
	}
	if !strings.HasPrefix(lines[0], "in:1:") || !strings.HasSuffix(lines[0], "runtime error: edge file[/tmp/a] -> file[/tmp/no/0]: no resource file[/tmp/no/0]") {
		t.Fatalf("first line %q", lines[0])
	}
	if want := "... and 99900 more errors"; lines[graph.MaxListed] != want {
		t.Fatalf("last line %q, want %q", lines[graph.MaxListed], want)
	}
}

// BenchmarkReportBadEdges decodes, validates and reports graphs of 1,000
// to 100,000 bad edges: the time per edge (ns/edge) must stay flat, the report being
// linear in the number of errors.
func BenchmarkReportBadEdges(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			data := badEdges(b, n)
			b.ReportAllocs()
			for b.Loop() {
				report(b, data)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/edge")
		})
	}
}
