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

// mixedManifest returns a manifest of about n resources in classes of a
// hundred: in each, a directory, files with five parameters and their
// content in variables, ordering edges, an exec requiring a file, a
// package, and an instance of a define that holds a file.
func mixedManifest(n int) string {
	var b strings.Builder
	b.WriteString(`$base = "/tmp/pscale"
file { $base: ensure => directory }
define pscale::site($port, $root = "${base}/sites") {
  file { "${root}/${title}.conf": ensure => file, content => "listen ${port}\n", mode => "0640", require => File[$root] }
}
file { "${base}/sites": ensure => directory, mode => "0755" }
`)
	for c := 0; c < n/100; c++ {
		fmt.Fprintf(&b, "class pscale::c%d {\n  $dir = \"${base}/c%d\"\n", c, c)
		b.WriteString("  file { $dir: ensure => directory, owner => \"root\", group => \"root\", mode => \"0755\" }\n")
		for j := 0; j < 99; j++ {
			i := c*100 + j
			switch k := j % 10; {
			case k < 7:
				fmt.Fprintf(&b, "  $v%d = \"value %d\\n\"\n", j, i)
				fmt.Fprintf(&b, "  file { \"${dir}/f%d\": ensure => file, content => $v%d, mode => \"0644\", owner => \"root\", group => \"root\", backup => false }\n", j, j)
				if k == 3 {
					fmt.Fprintf(&b, "  File[\"${dir}/f%d\"] -> File[\"${dir}/f%d\"]\n", j-1, j)
				}
			case k == 7:
				fmt.Fprintf(&b, "  exec { \"pscale-%d\": command => \"/bin/touch ${dir}/e%d\", creates => \"${dir}/e%d\", path => [\"/bin\", \"/usr/bin\"], require => File[\"${dir}/f%d\"] }\n", i, j, j, j-1)
			case k == 8:
				fmt.Fprintf(&b, "  package { \"pscale-pkg-%d\": ensure => installed }\n", i)
			default:
				fmt.Fprintf(&b, "  pscale::site { \"s%d\": port => %d }\n", i, 1000+i%50000)
			}
		}
		fmt.Fprintf(&b, "}\ninclude pscale::c%d\n", c)
	}
	return b.String()
}

// BenchmarkNativeScale runs `puppet-graph --engine native` in-process on
// manifests of 10,000 and 100,000 file resources, to the graph written
// out, on manifests of 1,000 and 10,000 classes, and on mixed manifests
// (mixedManifest) of 10,000 and 100,000 resources; us/resource is the
// time per resource (or class), the same at both sizes when the compiler
// is linear.
func BenchmarkNativeScale(b *testing.B) {
	for _, c := range []struct {
		shape string
		n     int
	}{{"files", 10000}, {"files", 100000}, {"classes", 1000}, {"classes", 10000},
		{"mixed", 10000}, {"mixed", 100000}} {
		b.Run(fmt.Sprintf("%s/N=%d", c.shape, c.n), func(b *testing.B) {
			n := c.n
			src := scaleManifest(n)
			switch c.shape {
			case "classes":
				src = classesManifest(n)
			case "mixed":
				src = mixedManifest(n)
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
