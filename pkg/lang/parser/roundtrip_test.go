package parser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
	"github.com/mgmtpipe/mgmt/pkg/lang/internal/txtar"
)

// corpus returns every .mcl file of the conformance corpus beside the
// project (name -> source), or skips the test when it is absent.
func corpus(t *testing.T) map[string]string {
	dir := filepath.Join("..", "..", "..", "..", "shared", "conformance", "mcl")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("no conformance corpus: %v", err)
	}
	out := map[string]string{}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".txtar") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		_, files := txtar.Parse(string(data))
		for _, f := range files {
			if strings.HasSuffix(f.Name, ".mcl") {
				out[e.Name()+"/"+f.Name] = f.Data
			}
		}
	}
	return out
}

// TestRoundTrip parses every corpus file that parses, prints it, parses
// the print and checks that printing again gives the same text.
func TestRoundTrip(t *testing.T) {
	n, bad := 0, 0
	for name, src := range corpus(t) {
		prog, err := Parse(name, src)
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
	}
	t.Logf("%d files round-tripped, %d did not parse", n, bad)
}

func TestCorpusParseErrors(t *testing.T) {
	for name, src := range corpus(t) {
		if _, err := Parse(name, src); err != nil {
			t.Logf("%v", err)
		}
	}
}
