package codecheck

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoTestSwapsAPackageVariable: a test never assigns a package-level
// variable of the package it tests (a root directory, a hook, a poll
// period). What a test must choose is configuration passed in (a field of
// an Env, a Config or the resource), so that production code and tests
// take the same path and tests can run in parallel.
func TestNoTestSwapsAPackageVariable(t *testing.T) {
	vars := map[string]map[string]bool{} // directory -> package-level variables
	type assign struct {
		dir, name string
		pos       token.Position
	}
	var found []assign
	eachGoFile(t, 0, func(path string, fset *token.FileSet, f *ast.File) {
		dir := filepath.Dir(path)
		if !strings.HasSuffix(path, "_test.go") {
			for _, d := range f.Decls {
				if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
					for _, s := range g.Specs {
						for _, n := range s.(*ast.ValueSpec).Names {
							if vars[dir] == nil {
								vars[dir] = map[string]bool{}
							}
							vars[dir][n.Name] = true
						}
					}
				}
			}
			return
		}
		ast.Inspect(f, func(n ast.Node) bool {
			a, ok := n.(*ast.AssignStmt)
			if !ok || a.Tok != token.ASSIGN {
				return true
			}
			for _, l := range a.Lhs {
				// A name declared in another file of the package is left
				// unresolved by the parser; a local one is not.
				if id, ok := l.(*ast.Ident); ok && id.Obj == nil && id.Name != "_" {
					found = append(found, assign{dir, id.Name, fset.Position(id.Pos())})
				}
			}
			return true
		})
	})
	for _, a := range found {
		if vars[a.dir][a.name] {
			t.Errorf("%s: a test assigns the package variable %s: pass it in as configuration", a.pos, a.name)
		}
	}
}
