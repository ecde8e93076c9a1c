package sem_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/all"
	"github.com/mgmtpipe/mgmt/pkg/lang/sem"
)

// genProgram writes an mcl program of n statements: binds, printf calls
// and file resources using them, in groups of three.
func genProgram(n int) string {
	var b strings.Builder
	b.WriteString("import \"fmt\"\n")
	for i := 0; i < n/3; i++ {
		fmt.Fprintf(&b, "$v%d = \"value%d\"\n", i, i)
		fmt.Fprintf(&b, "$p%d = fmt.printf(\"%%s-%%d\", $v%d, %d)\n", i, i, i)
		fmt.Fprintf(&b, "file \"/tmp/mcl-bench/f%d\" {\n\tcontent => $p%d,\n\tstate => \"exists\",\n}\n", i, i)
	}
	return b.String()
}

func compileOnce(tb testing.TB, path string) *graph.Document {
	prog, err := sem.Check(path, nil, sem.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	var doc *graph.Document
	err = sem.NewEngine(prog).Run(context.Background(), true, func(d *graph.Document) error {
		doc = d
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return doc
}

// BenchmarkFirstGraph measures check plus the first evaluation pass.
func BenchmarkFirstGraph(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "main.mcl")
			if err := os.WriteFile(path, []byte(genProgram(n)), 0o644); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				doc := compileOnce(b, path)
				if len(doc.Resources) != n/3 {
					b.Fatalf("got %d resources, want %d", len(doc.Resources), n/3)
				}
			}
		})
	}
}

// BenchmarkCheck measures parsing, scope and type checking alone.
func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "main.mcl")
			if err := os.WriteFile(path, []byte(genProgram(n)), 0o644); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := sem.Check(path, nil, sem.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCheckDefaults checks programs of n functions whose operator
// has no type but the default (int), each decided only when the solver
// runs out of other work; us/func is the same at every size when solving
// is linear.
func BenchmarkCheckDefaults(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var src strings.Builder
			for i := 0; i < n; i++ {
				fmt.Fprintf(&src, "$f%d = func($a, $b) { $a + $b }\n", i)
			}
			path := filepath.Join(b.TempDir(), "main.mcl")
			if err := os.WriteFile(path, []byte(src.String()), 0o644); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := sem.Check(path, nil, sem.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "us/func")
		})
	}
}
