package puppetgraph

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scaleManifest returns a manifest of a directory and n files in it, each
// file's content in a variable of its own, with an ordering edge between
// two files every tenth file.
func scaleManifest(n int) string {
	var b strings.Builder
	b.WriteString("$base = \"/tmp/pbench\"\nfile { $base: ensure => directory }\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "$c%d = \"x%d\\n\"\n", i, i)
		fmt.Fprintf(&b, "file { \"${base}/f%d\": ensure => file, content => $c%d, mode => \"0644\" }\n", i, i)
		if i > 0 && i%10 == 0 {
			fmt.Fprintf(&b, "File[\"${base}/f%d\"] -> File[\"${base}/f%d\"]\n", i-1, i)
		}
	}
	return b.String()
}

// BenchmarkNativeScale runs `puppet-graph --engine native` in-process on
// manifests of 10,000 and 100,000 file resources, to the graph written
// out; us/resource is the time per resource, the same at both sizes when
// the compiler is linear.
func BenchmarkNativeScale(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "site.pp")
			if err := os.WriteFile(path, []byte(scaleManifest(n)), 0o644); err != nil {
				b.Fatal(err)
			}
			var errb strings.Builder
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				errb.Reset()
				args := []string{"--engine", "native", "--certname", "bench", path}
				if code := Run(context.Background(), args, nil, io.Discard, &errb); code != 0 {
					b.Fatalf("exit %d: %s", code, errb.String())
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "us/resource")
		})
	}
}
