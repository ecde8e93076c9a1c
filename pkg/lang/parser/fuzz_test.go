package parser

import (
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
)

// FuzzParse checks that the parser never panics and that whatever parses
// prints to source that parses again to the same print.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"$x = 1\n",
		"test \"a\" {\n\tanotherstr => \"${x}\",\n}\n",
		"import \"fmt\"\n$s = fmt.printf(\"%d\", 1 + 2 * 3)\n",
		"class c($a str) {\n\tinclude d($a) as e\n}\n",
		"$f = func($x, $y int) int { if $x > $y { $x } else { $y } }\n",
		"File[\"a\"].x -> Exec[[\"b\"]].y\n",
		"for $i, $v in [1, 2] {\n\tpanic($v == 3)\n}\n",
		"$m = {\"k\" => [struct{a => 1.5}]}\n$z = $m[\"k\"][0]->a <|> 2.0\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		prog, err := Parse("fuzz.mcl", src)
		if err != nil {
			return
		}
		out := ast.Print(prog)
		prog2, err := Parse("fuzz.mcl", out)
		if err != nil {
			t.Fatalf("printed program does not parse: %v\n%s", err, out)
		}
		if out2 := ast.Print(prog2); out2 != out {
			t.Fatalf("print not stable:\n%s\n---\n%s", out, out2)
		}
	})
}
