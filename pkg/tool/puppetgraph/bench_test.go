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

// classesManifest returns a manifest of n classes, each declared and
// holding one file: Puppet gives each class two whits, which become noop
// resources linked through the whole graph.
func classesManifest(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "class c%d { file { \"/tmp/pbench/c%d\": ensure => file, content => \"x\" } }\ninclude c%d\n", i, i, i)
	}
	return b.String()
}

// BenchmarkNativeScale runs `puppet-graph --engine native` in-process on
// manifests of 10,000 and 100,000 file resources, to the graph written
// out, and on manifests of 1,000 and 10,000 classes; us/resource is the
// time per resource (or class), the same at both sizes when the compiler
// is linear.
func BenchmarkNativeScale(b *testing.B) {
	for _, c := range []struct {
		shape string
		n     int
	}{{"files", 10000}, {"files", 100000}, {"classes", 1000}, {"classes", 10000}} {
		b.Run(fmt.Sprintf("%s/N=%d", c.shape, c.n), func(b *testing.B) {
			n := c.n
			src := scaleManifest(n)
			if c.shape == "classes" {
				src = classesManifest(n)
			}
			path := filepath.Join(b.TempDir(), "site.pp")
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
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
