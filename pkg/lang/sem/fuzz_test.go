package sem_test

import (
	"os"
	"path/filepath"
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
