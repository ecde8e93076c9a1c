package mgmtapply

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/benchcpu"
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// filesDoc returns the document bench/cfengine.sh gives mgmt-apply: n
// files of one line each (mode 0644) under n/1000 directories (one up to
// 10,000 files), as one JSON line.
func filesDoc(n int) []byte {
	nd := 1
	if n > 10000 {
		nd = n / 1000
	}
	var b bytes.Buffer
	b.WriteString(`{"mgmt":"graph/v1","graph":"bench","seq":1,"resources":[`)
	for j := range nd {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"kind":"file","name":"/srv/bench/d%d/","params":{"state":"exists"}}`, j)
	}
	for i := range n {
		fmt.Fprintf(&b, `,{"kind":"file","name":"/srv/bench/d%d/f%d","params":{"state":"exists","content":"file %d\n","mode":"0644"}}`, i%nd, i, i)
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

// BenchmarkLoadFiles decodes and prepares the document of bench/cfengine.sh
// as mgmt-apply does before running it (decode, validate, make every
// resource with its parameters, autoedges, compact): the part of a warm
// run that does not depend on the files.
func BenchmarkLoadFiles(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			data := filesDoc(n)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			start := benchcpu.Time()
			base := liveHeap()
			var o outcome
			for b.Loop() {
				dec := graph.NewDecoder(bytes.NewReader(data), "in")
				var err error
				o, err = next(dec, engine.BuildOptions{Consume: true})
				if err != nil || o.g == nil {
					b.Fatal(err, o.msg)
				}
				o.g.Compact()
				if _, err := dec.Next(); err != io.EOF {
					b.Fatal(err)
				}
			}
			benchcpu.Report(b, start)
			// What the last graph holds, as a running mgmt-apply does (its
			// document too, whose resources it exports).
			b.ReportMetric(float64(liveHeap()-base)/float64(n), "live-B/file")
			runtime.KeepAlive(o)
		})
	}
}

// BenchmarkDecodeFiles decodes the document of bench/cfengine.sh alone.
func BenchmarkDecodeFiles(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			data := filesDoc(n)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			defer benchcpu.Report(b, benchcpu.Time())
			for b.Loop() {
				if _, err := graph.NewDecoder(bytes.NewReader(data), "in").Next(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// liveHeap returns the bytes of the heap live after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
