package parser

import (
	"flag"
	"os"
	"path/filepath"
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
	files, _ := filepath.Glob("testdata/parse/*.txtar")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			comment, fs := txtar.Parse(string(data))
			var src, want string
			wi := -1
			for i, f := range fs {
				switch f.Name {
				case "main.mcl":
					src = f.Data
				case "OUTPUT":
					want, wi = f.Data, i
				}
			}
			var got string
			if prog, err := Parse("main.mcl", src); err != nil {
				got = "# err: " + err.Error() + "\n"
			} else {
				got = ast.Print(prog)
			}
			if *update {
				if wi < 0 {
					fs = append(fs, txtar.File{Name: "OUTPUT"})
					wi = len(fs) - 1
				}
				fs[wi].Data = got
				os.WriteFile(file, []byte(txtar.Format(comment, fs)), 0o644)
				return
			}
			if got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
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
