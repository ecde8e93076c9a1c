package parser

import (
	"flag"
	"strings"
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

// TestDeepNesting: hostile nesting is a syntax error, not a stack overflow.
func TestDeepNesting(t *testing.T) {
	for _, src := range []string{
		"$x = " + strings.Repeat("[", 100000) + "\n",
		"$x = " + strings.Repeat("not ", 100000) + "true\n",
		"$x " + strings.Repeat("[]", 100000) + "int = 1\n",
		strings.Repeat("if true {\n", 100000),
		"$x = " + strings.Repeat("(", 100000) + "1\n",
	} {
		if _, err := Parse("deep.mcl", src); err == nil || !strings.Contains(err.Error(), "nested more than") {
			t.Errorf("got %v, want a nesting error", err)
		}
	}
}
