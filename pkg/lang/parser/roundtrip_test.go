package parser

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
	"github.com/mgmtpipe/mgmt/pkg/lang/internal/txtar"
)

// A corpusFile is one .mcl file of a conformance case, with the error line
// the case expects ("" for none).
type corpusFile struct {
	src, wantErr string
}

// corpus returns every .mcl file of the conformance corpus beside the
// project (case/file name -> file). Without the corpus the test is
// skipped, or fails in CI (CI=true), where the corpus must be present.
func corpus(t *testing.T) map[string]corpusFile {
	dir := filepath.Join("..", "..", "..", "..", "shared", "conformance", "mcl")
	ents, err := os.ReadDir(dir)
	if err != nil {
		testneed.Missing(t, "no conformance corpus: %v", err)
	}
	out := map[string]corpusFile{}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".txtar") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		_, files := txtar.Parse(string(data))
		wantErr := ""
		for _, f := range files {
			if f.Name == "OUTPUT" {
				for _, l := range strings.Split(f.Data, "\n") {
					if strings.HasPrefix(l, "# err: ") {
						wantErr = l
						break
					}
				}
			}
		}
		for _, f := range files {
			if strings.HasSuffix(f.Name, ".mcl") {
				out[e.Name()+"/"+f.Name] = corpusFile{f.Data, wantErr}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no .mcl file in %s", dir)
	}
	return out
}

// TestRoundTrip parses every corpus file that parses, prints it, parses
// the print and checks that printing again gives the same text.
func TestRoundTrip(t *testing.T) {
	n, bad, comments := 0, 0, 0
	for name, f := range corpus(t) {
		prog, err := Parse(name, f.src)
		if err != nil {
			bad++
			continue
		}
		n++
		out := ast.Print(prog)
		prog2, err := Parse(name, out)
		if err != nil {
			t.Errorf("%s: reparse: %v\n%s", name, err, out)
			continue
		}
		if out2 := ast.Print(prog2); out2 != out {
			t.Errorf("%s: print not stable:\n%s\n---\n%s", name, out, out2)
		}
		if a, b := commentTexts(prog), commentTexts(prog2); !slices.Equal(a, b) {
			t.Errorf("%s: the print lost or reordered comments: got %q, want %q\n%s", name, b, a, out)
		}
		comments += len(prog.Comments)
	}
	t.Logf("%d files round-tripped with %d comments, %d did not parse", n, comments, bad)
	if n == 0 {
		t.Fatal("no corpus file parsed: nothing was round-tripped")
	}
}

// commentTexts returns the texts of the comments of prog, in order.
func commentTexts(prog *ast.Prog) []string {
	var out []string
	for _, c := range prog.Comments {
		out = append(out, c.Text)
	}
	return out
}

// corpusPos matches the position upstream reports: /FILE @ LINE:COL.
var corpusPos = regexp.MustCompile(`/([^/ ]+\.mcl) @ (\d+):\d+`)

// TestCorpusParseErrors parses every corpus file: exactly the files whose
// case expects a lexing, parsing or interpolation error (errLexParse,
// errInterpolate), or an import that fails to parse, fail to parse, each
// on the line the case names.
func TestCorpusParseErrors(t *testing.T) {
	for name, f := range corpus(t) {
		_, err := Parse(name, f.src)
		file := name[strings.LastIndex(name, "/")+1:]
		want := ""
		switch {
		case strings.HasPrefix(f.wantErr, "# err: errLexParse:"), strings.HasPrefix(f.wantErr, "# err: errInterpolate:"),
			strings.Contains(f.wantErr, "could not generate AST from import"):
			if m := corpusPos.FindStringSubmatch(f.wantErr); m != nil && m[1] == file {
				want = m[2]
			}
		}
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: the case expects no parse error here, got %v", name, err)
		case want != "" && err == nil:
			t.Errorf("%s: parsed, the case expects a parse error on line %s (%s)", name, want, f.wantErr)
		case want != "":
			var pe *graph.PosError
			if !errors.As(err, &pe) {
				if l, ok := graph.AsList(err); ok && len(l) > 0 {
					pe = l[0]
				}
			}
			if pe == nil || !strings.HasPrefix(pe.Pos, name+":"+want+":") || pe.Stage != graph.StageSyntax {
				t.Errorf("%s: got %v, want a syntax error on line %s", name, err, want)
			}
		}
	}
}
