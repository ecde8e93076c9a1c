package graph

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"sync"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/benchcpu"
)

// bigGraph returns the JSON line of a graph of n resources and m edges.
// Edges go from lower to higher numbers, so the graph is acyclic. Resources
// below n/10 are named alike in every graph, so merging collapses them.
func bigGraph(tb testing.TB, prefix string, n, m int, seed int64) []byte {
	rng := rand.New(rand.NewSource(seed))
	d := &Document{Mgmt: Version, Graph: prefix, Seq: 1}
	name := func(i int) string {
		if i < n/10 {
			return fmt.Sprintf("/srv/shared/%d", i)
		}
		return fmt.Sprintf("/srv/%s/%d", prefix, i)
	}
	for i := range n {
		d.Resources = append(d.Resources, &Resource{Kind: "file", Name: name(i),
			Params: map[string]any{"state": "exists", "mode": "0644"}})
	}
	for len(d.Edges) < m {
		a, b := rng.Intn(n), rng.Intn(n)
		if a == b {
			continue
		}
		if a > b {
			a, b = b, a
		}
		if a < n/10 && b < n/10 {
			continue // shared resources: keep the graphs' union acyclic
		}
		d.Edges = append(d.Edges, &Edge{From: Ref{"file", name(a)}, To: Ref{"file", name(b)}, Notify: i64(a)%7 == 0})
	}
	var buf bytes.Buffer
	if err := Encode(&buf, d, JSON); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func i64(i int) int64 { return int64(i) }

func decodeValidate(tb testing.TB, data []byte, name string) *Document {
	doc, err := NewDecoder(bytes.NewReader(data), name).Next()
	if err != nil {
		tb.Fatal(err)
	}
	if err := doc.Validate(); err != nil {
		tb.Fatal(err)
	}
	return doc
}

// BenchmarkDecodeValidateMerge decodes, validates and merges two graphs of
// 100,000 resources and 200,000 edges each; like graph-merge, it reads the
// two inputs concurrently.
func BenchmarkDecodeValidateMerge(b *testing.B) {
	ga := bigGraph(b, "a", 100_000, 200_000, 1)
	gb := bigGraph(b, "b", 100_000, 200_000, 2)
	b.SetBytes(int64(len(ga) + len(gb)))
	b.ReportAllocs()
	b.ResetTimer()
	defer benchcpu.Report(b, benchcpu.Time())
	for b.Loop() {
		var da, db *Document
		var wg sync.WaitGroup
		wg.Go(func() { da = decodeValidate(b, ga, "a") })
		wg.Go(func() { db = decodeValidate(b, gb, "b") })
		wg.Wait()
		out, _, err := Merge(MergeOptions{}, Input{"a", da}, Input{"b", db})
		if err != nil {
			b.Fatal(err)
		}
		if len(out.Resources) != 190_000 {
			b.Fatalf("merged %d resources", len(out.Resources))
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	ga := bigGraph(b, "a", 100_000, 200_000, 1)
	b.SetBytes(int64(len(ga)))
	b.ReportAllocs()
	defer benchcpu.Report(b, benchcpu.Time())
	for b.Loop() {
		if _, err := NewDecoder(bytes.NewReader(ga), "a").Next(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	ga := bigGraph(b, "a", 100_000, 200_000, 1)
	d, _ := NewDecoder(bytes.NewReader(ga), "a").Next()
	b.ReportAllocs()
	defer benchcpu.Report(b, benchcpu.Time())
	for b.Loop() {
		// Validate is idempotent: a valid document stays as it is.
		if err := d.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	ga := bigGraph(b, "a", 100_000, 200_000, 1)
	d, _ := NewDecoder(bytes.NewReader(ga), "a").Next()
	b.SetBytes(int64(len(ga)))
	b.ReportAllocs()
	defer benchcpu.Report(b, benchcpu.Time())
	for b.Loop() {
		if err := Encode(io.Discard, d, JSON); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMerge(b *testing.B) {
	da := decodeValidate(b, bigGraph(b, "a", 100_000, 200_000, 1), "a")
	db := decodeValidate(b, bigGraph(b, "b", 100_000, 200_000, 2), "b")
	b.ReportAllocs()
	defer benchcpu.Report(b, benchcpu.Time())
	for b.Loop() {
		if _, _, err := Merge(MergeOptions{}, Input{"a", da}, Input{"b", db}); err != nil {
			b.Fatal(err)
		}
	}
}
