package mclcompile

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scaleProgram returns an mcl program of n statements, in groups of four:
// a string bind, a printf call on it, a file resource with three
// parameters, and an edge from the previous group's file (a bind in the
// first group).
func scaleProgram(n int) string {
	var b strings.Builder
	b.WriteString("import \"fmt\"\n")
	for i := 0; i < n/4; i++ {
		fmt.Fprintf(&b, "$v%d = \"value%d\"\n", i, i)
		fmt.Fprintf(&b, "$p%d = fmt.printf(\"%%s-%%d\", $v%d, %d)\n", i, i, i)
		fmt.Fprintf(&b, "file \"/tmp/mcl-bench/f%d\" {\n\tcontent => $p%d,\n\tstate => \"exists\",\n\tmode => \"0644\",\n}\n", i, i)
		if i == 0 {
			b.WriteString("$first = \"f0\"\n")
		} else {
			fmt.Fprintf(&b, "File[\"/tmp/mcl-bench/f%d\"] -> File[\"/tmp/mcl-bench/f%d\"]\n", i-1, i)
		}
	}
	return b.String()
}

// BenchmarkCompileScale runs `mcl-compile --once` in-process on programs
// of 10,000, 50,000 and 100,000 statements, to the first graph written
// out; us/stmt is the time per statement, the same at every size when the
// compiler is linear.
func BenchmarkCompileScale(b *testing.B) {
	for _, n := range []int{10000, 50000, 100000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "main.mcl")
			if err := os.WriteFile(path, []byte(scaleProgram(n)), 0o644); err != nil {
				b.Fatal(err)
			}
			var errb strings.Builder
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				errb.Reset()
				if code := Run(context.Background(), []string{"--once", path}, nil, io.Discard, &errb); code != 0 {
					b.Fatalf("exit %d: %s", code, errb.String())
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "us/stmt")
		})
	}
}
