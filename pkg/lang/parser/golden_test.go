package parser

import (
	"flag"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
	"github.com/mgmtpipe/mgmt/pkg/lang/internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the OUTPUT sections of testdata/parse/*.txtar")

// TestParseGolden parses testdata/parse/*.txtar (file main.mcl) and
// compares the printed tree (canonical source, with parentheses showing
// how operators grouped) or the positioned error with OUTPUT.
func TestParseGolden(t *testing.T) {
	txtar.Golden(t, "testdata/parse/*.txtar", *update, func(t *testing.T, fs []txtar.File) string {
		var src string
		for _, f := range fs {
			if f.Name == "main.mcl" {
				src = f.Data
			}
		}
		prog, err := Parse("main.mcl", src)
		if err != nil {
			return "# err: " + err.Error() + "\n"
		}
		return ast.Print(prog)
	})
}
