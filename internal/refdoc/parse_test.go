package refdoc

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

func TestFieldDocs(t *testing.T) {
	src := `package p
type T struct {
	// A is a.
	A string
	B string

	// User and Group run it as another identity.
	User  string
	Group string
	// C is c.
	C string
	D string
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	st := f.Decls[0].(*ast.GenDecl).Specs[0].(*ast.TypeSpec).Type.(*ast.StructType)
	got := fieldDocs(fset, st)
	want := map[string]string{
		"A": "A is a.\n", "B": "",
		"User": "User and Group run it as another identity.\n", "Group": "User and Group run it as another identity.\n",
		"C": "C is c.\n", "D": "",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q, want %q", k, got[k], v)
		}
	}
}

func TestUntype(t *testing.T) {
	for _, c := range [][3]string{
		{"FileRes manages a file.", "FileRes", "Manages a file."},
		{"Watch follows the path.", "Watch", "Follows the path."},
		{"Something else.", "FileRes", "Something else."},
		{"TestRes is a harmless resource.", "TestRes", "A harmless resource."},
	} {
		if got := untype(c[0], c[1]); got != c[2] {
			t.Errorf("untype(%q) = %q, want %q", c[0], got, c[2])
		}
	}
}
