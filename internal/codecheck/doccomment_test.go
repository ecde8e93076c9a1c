package codecheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// moduleRoot is the module's directory, from this package's.
const moduleRoot = "../.."

// eachGoFile parses every Go file of the module (testdata and hidden
// directories left out) and calls fn with it.
func eachGoFile(t *testing.T, mode parser.Mode, fn func(path string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	err := filepath.WalkDir(moduleRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != moduleRoot && (n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, mode)
		if err != nil {
			return err
		}
		fn(p, fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// namesSomething reports whether w, the first word of a doc comment (or
// the one after its article), is a name rather than a word of a sentence:
// it holds an upper case letter, a digit or an underscore after its first
// letter (mixedCaps), or, first, starts lower case.
func namesSomething(w string, first bool) bool {
	for i, r := range w {
		if i == 0 && first && unicode.IsLower(r) {
			return true
		}
		if i > 0 && (unicode.IsUpper(r) || unicode.IsDigit(r) || r == '_') {
			return true
		}
	}
	return false
}

// articles may come before the name a doc comment starts with.
var articles = map[string]bool{"A": true, "An": true, "The": true, "a": true, "an": true, "the": true}

// wrongName returns the name a doc comment starts with when it is not
// name, the declaration's ("" when it names it, or starts a sentence that
// names nothing).
func wrongName(doc *ast.CommentGroup, name string) string {
	if doc == nil || name == "_" || name == "init" || strings.HasPrefix(name, "Example") {
		return ""
	}
	words := strings.Fields(doc.Text())
	first := true
	if len(words) > 1 && articles[words[0]] {
		words, first = words[1:], false
	}
	if len(words) == 0 {
		return ""
	}
	w := strings.TrimRight(words[0], ",.:;")
	if w == name || strings.HasPrefix(w, "//") || !namesSomething(w, first) {
		return ""
	}
	return w
}

// TestDocCommentsNameTheirDeclaration: a doc comment that starts with a
// name starts with the name of what it documents, so that a comment left
// behind by a rename or a move does not describe another function.
func TestDocCommentsNameTheirDeclaration(t *testing.T) {
	eachGoFile(t, parser.ParseComments, func(path string, fset *token.FileSet, f *ast.File) {
		check := func(doc *ast.CommentGroup, name *ast.Ident) {
			if w := wrongName(doc, name.Name); w != "" {
				t.Errorf("%s: the doc comment of %s starts with %s", fset.Position(name.Pos()), name.Name, w)
			}
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				check(d.Doc, d.Name)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						doc := s.Doc
						if doc == nil && d.Lparen == 0 {
							doc = d.Doc
						}
						check(doc, s.Name)
					case *ast.ValueSpec:
						doc := s.Doc
						if doc == nil && d.Lparen == 0 {
							doc = d.Doc
						}
						if len(s.Names) == 1 {
							check(doc, s.Names[0])
						}
					}
				}
			}
		}
	})
}

// TestWrongName checks the rule itself.
func TestWrongName(t *testing.T) {
	doc := func(s string) *ast.CommentGroup { return &ast.CommentGroup{List: []*ast.Comment{{Text: "// " + s}}} }
	for _, tc := range []struct{ doc, name, want string }{
		{"Run runs it.", "Run", ""},
		{"A Graph is a graph.", "Graph", ""},
		{"run runs it.", "run", ""},
		{"graph builds a document.", "smGraph", "graph"},
		{"sortStrings sorts values.", "sortValues", "sortStrings"},
		{"Binary operators, lowest first.", "precedence", ""},
		{"binary operators, lowest first.", "precedence", "binary"},
		{"Functions of the core.", "init", ""},
		{"The parseX function, parsing.", "parseY", "parseX"},
		{"The corpus of examples.", "corpus2", ""},
		{"a resource of each kind", "protos", ""},
	} {
		if got := wrongName(doc(tc.doc), tc.name); got != tc.want {
			t.Errorf("%q on %s: got %q, want %q", tc.doc, tc.name, got, tc.want)
		}
	}
}
