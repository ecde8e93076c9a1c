package codecheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/mgmtpipe/mgmt/"

// stagesOfDoc returns the compiler's stages in the order pkg/lang/doc.go
// lists them: the indented lines of its package comment that start with a
// word.
func stagesOfDoc(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(moduleRoot, "pkg/lang/doc.go"), nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	var stages []string
	for _, line := range strings.Split(f.Doc.Text(), "\n") {
		if strings.HasPrefix(line, "\t") && len(line) > 1 && line[1] != ' ' && line[1] != '\t' {
			stages = append(stages, strings.Fields(line)[0])
		}
	}
	return stages
}

// imports returns the module packages the non-test files of dir import.
func imports(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range es {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, n), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range f.Imports {
			p := importPath(is)
			if strings.HasPrefix(p, module) {
				seen[strings.TrimPrefix(p, module)] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func importPath(is *ast.ImportSpec) string {
	p, _ := strconv.Unquote(is.Path.Value)
	return p
}

// TestLangStagesImportOrder: each stage of the mcl compiler imports only
// the stages pkg/lang/doc.go lists before it, pkg/graph,
// pkg/world/worldapi and internal/bounded, as that comment says.
func TestLangStagesImportOrder(t *testing.T) {
	stages := stagesOfDoc(t)
	if want := []string{"types", "ast", "parser", "values", "funcs", "sem"}; !slices.Equal(stages, want) {
		t.Fatalf("pkg/lang/doc.go lists the stages %v, want %v", stages, want)
	}
	allowed := map[string]bool{"pkg/graph": true, "pkg/world/worldapi": true, "internal/bounded": true}
	for _, s := range stages {
		for _, imp := range imports(t, filepath.Join(moduleRoot, "pkg/lang", s)) {
			if !allowed[imp] {
				t.Errorf("pkg/lang/%s imports %s, which pkg/lang/doc.go does not list before it", s, imp)
			}
		}
		allowed["pkg/lang/"+s] = true
	}
}
