package puppet

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/puppet/eval"
)

// filesManifest is the benchmark manifest (bench/puppet.sh makes the same):
// a directory and n files in it.
func filesManifest(n int) string {
	var b strings.Builder
	b.WriteString(`file { "/tmp/pbench": ensure => directory }` + "\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "file { \"/tmp/pbench/f%d\": ensure => file, content => \"x\\n\" }\n", i)
	}
	return b.String()
}

// BenchmarkNative1000 compiles and translates the 1,000-file manifest
// with the native engine (bench/puppet.sh compares the whole tool with
// `puppet catalog compile`).
func BenchmarkNative1000(b *testing.B) {
	src := filesManifest(1000)
	b.ReportAllocs()
	for b.Loop() {
		cat, err := eval.Compile("files.pp", src, eval.Options{Certname: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := Translate(cat, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTranslate1000 measures the catalog to graph step alone, the
// part the real-Puppet path adds to Puppet's compile time.
func BenchmarkTranslate1000(b *testing.B) {
	cat, err := eval.Compile("files.pp", filesManifest(1000), eval.Options{Certname: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Translate(cat, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
