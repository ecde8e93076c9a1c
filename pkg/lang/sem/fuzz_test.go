package sem_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/lang/sem"
)

// FuzzCheck runs scope resolution and the type solver on arbitrary
// programs: they must return an error or a program, never panic.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"import \"fmt\"\n$x = fmt.printf(\"%d\", 1)\ntest [$x] {}\n",
		"func f($a) { $a + $a }\n$b = f(\"x\")\n$c = f(2)\n",
		"$l = [1]\n$m = {\"a\" => $l}\n$x = $m[\"a\"][0] <|> 3\n",
		"class c($a) {\n\t$b = $a\n}\ninclude c(1) as d\n$e = $d.b + 1\n",
		"$f = func($x) { $x }\n$g = $f(1)\n$h = $f(\"s\")\n",
		"import \"iter\"\n$r = iter.map([1, 2], func($x) { $x * 2 })\n",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "main.mcl")
	f.Fuzz(func(t *testing.T, src string) {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		sem.Check(path, nil, sem.Options{})
	})
}

// FuzzCheckDepth checks programs made of a fragment repeated many times,
// the way long chains and deep nesting are written: prefix, then middle n
// times ({i} and {j} in it become the repetition's number and the next
// one), then suffix. The parser and the checker must return an error or a
// program, never exhaust the stack or panic.
func FuzzCheckDepth(f *testing.F) {
	for _, s := range []struct {
		prefix, middle, suffix string
		n                      uint16
	}{
		{"$x = 1", " + 1", "\n", 2000},
		{"$x = ", "[", "", 3000},
		{"$x = ", "not ", "true\n", 3000},
		{"", "if true {\n", "", 600},
		{"", "$a{i} = $a{j}\n", "$a20000 = 1\n", 20000},
		{"$a0 = 1\n", "$a{j} = [$a{i}]\n", "", 2000},
		{"$a0 = 1\n", "$a{j} = struct{x => $a{i}, y => $a{i}}\n", "$z = $a60 == $a60\n", 60},
		{"", "func f{i}() { f{j}() }\n", "func f20000() { 1 }\n$x = f0()\n", 20000},
		{"", "class c{i} {\n\tinclude c{j}\n}\n", "class c20000 {\n}\ninclude c0\n", 20000},
		{"$f0 = func($x) { $x }\n", "$f{j} = func($x) { $f{i}($x) }\n", "", 20000},
		{"$x = $l", "[0]", "\n", 2000},
		{"$x = if true { 1 } ", "else if true { 1 } ", "else { 2 }\n", 1000},
	} {
		f.Add(s.prefix, s.middle, s.suffix, s.n)
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "main.mcl")
	f.Fuzz(func(t *testing.T, prefix, middle, suffix string, n uint16) {
		if len(middle)*int(n) > 1<<20 {
			return
		}
		var b strings.Builder
		b.WriteString(prefix)
		for i := 0; i < int(n); i++ {
			b.WriteString(strings.NewReplacer("{i}", strconv.Itoa(i), "{j}", strconv.Itoa(i+1)).Replace(middle))
		}
		b.WriteString(suffix)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		sem.Check(path, nil, sem.Options{})
	})
}
