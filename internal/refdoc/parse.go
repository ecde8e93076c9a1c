package refdoc

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// ModulePath is the Go module of the project; a kind's type in a package
// below it is found in the source tree under the same relative path.
const ModulePath = "github.com/mgmtpipe/mgmt"

// A KindDoc is what the source says about one resource kind: the doc
// comment of its Go type and of its parameter fields. The generator stores
// these in kinddoc.json, which the tools embed (they have no source).
type KindDoc struct {
	// Type is the Go type ("pkg/resources.FileRes"), to find the source.
	Type string `json:"type"`
	// Doc is the type's doc comment, in Go doc comment syntax.
	Doc string `json:"doc"`
	// Params maps a parameter's mcl name to its field's doc comment.
	Params map[string]string `json:"params,omitempty"`
	// Sends maps a key the kind sends to its field's doc comment.
	Sends map[string]string `json:"sends,omitempty"`
	// Watch is the doc comment of the type's Watch method: how the kind
	// notices that its state changed.
	Watch string `json:"watch"`
	// AutoEdges is the doc comment of its AutoEdges method, if it has one.
	AutoEdges string `json:"autoedges,omitempty"`
}

// typeDoc is one struct type as the parser saw it.
type typeDoc struct {
	doc     string
	fields  map[string]string // Go field name -> doc comment
	methods map[string]string // method name -> doc comment
}

// pkgDocs parses the non-test Go files of one directory and returns its
// struct types by name.
func pkgDocs(dir string) (map[string]typeDoc, error) {
	fset := token.NewFileSet()
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]typeDoc{}
	methods := map[string]map[string]string{} // type -> method -> doc
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				if t := recvType(fd); t != "" {
					if methods[t] == nil {
						methods[t] = map[string]string{}
					}
					methods[t][fd.Name.Name] = fd.Doc.Text()
				}
				continue
			}
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, sp := range gd.Specs {
				ts := sp.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				td := typeDoc{doc: doc.Text(), fields: fieldDocs(fset, st)}
				out[ts.Name.Name] = td
			}
		}
	}
	for t, td := range out {
		td.methods = methods[t]
		out[t] = td
	}
	return out, nil
}

// fieldDocs returns the doc comment of each field of st. A field without
// one, on the line right after a documented field, shares that field's
// comment when the comment names it ("User and Group run ..."), as Go
// source documents a group of fields.
func fieldDocs(fset *token.FileSet, st *ast.StructType) map[string]string {
	out := map[string]string{}
	prevDoc, prevLine := "", -1
	for _, fl := range st.Fields.List {
		doc := fl.Doc.Text()
		line := fset.Position(fl.Pos()).Line
		for _, nm := range fl.Names {
			d := doc
			if d == "" && line == prevLine+1 && mentions(prevDoc, nm.Name) {
				d = prevDoc
			}
			out[nm.Name] = d
		}
		if doc != "" || line != prevLine+1 {
			prevDoc = doc
		}
		prevLine = fset.Position(fl.End()).Line
	}
	return out
}

// mentions reports whether text names word as a whole word.
func mentions(text, word string) bool {
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_')
	}) {
		if w == word {
			return true
		}
	}
	return false
}

// recvType returns the name of a method's receiver type, "" for a function.
func recvType(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) != 1 {
		return ""
	}
	t := fd.Recv.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// ParseKinds reads, from the source tree at root, the doc comments of
// every registered kind's type and parameter fields (and of the struct it
// sends). A kind whose type is outside the module or not found is an
// error: the reference could not describe it.
func ParseKinds(root string) (map[string]*KindDoc, error) {
	cache := map[string]map[string]typeDoc{}
	lookup := func(t reflect.Type) (typeDoc, string, error) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		rel, ok := strings.CutPrefix(t.PkgPath(), ModulePath+"/")
		if !ok {
			return typeDoc{}, "", fmt.Errorf("type %s is outside %s", t, ModulePath)
		}
		types, ok := cache[rel]
		if !ok {
			var err error
			if types, err = pkgDocs(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
				return typeDoc{}, "", err
			}
			cache[rel] = types
		}
		td, ok := types[t.Name()]
		if !ok {
			return typeDoc{}, "", fmt.Errorf("type %s not found in %s", t.Name(), rel)
		}
		return td, rel + "." + t.Name(), nil
	}
	out := map[string]*KindDoc{}
	for _, kind := range engine.RegisteredKinds() {
		r, err := engine.NewResource(kind)
		if err != nil {
			return nil, err
		}
		td, name, err := lookup(reflect.TypeOf(r))
		if err != nil {
			return nil, fmt.Errorf("kind %s: %v", kind, err)
		}
		params, err := langDocs(reflect.TypeOf(r), td, lookup)
		if err != nil {
			return nil, fmt.Errorf("kind %s: %v", kind, err)
		}
		kd := &KindDoc{Type: name, Doc: td.doc, Params: params,
			Watch: td.methods["Watch"], AutoEdges: td.methods["AutoEdges"]}
		if s, ok := r.(engine.Sendable); ok {
			sd, _, err := lookup(reflect.TypeOf(s.Sends()))
			if err != nil {
				return nil, fmt.Errorf("kind %s: sends: %v", kind, err)
			}
			if kd.Sends, err = langDocs(reflect.TypeOf(s.Sends()), sd, lookup); err != nil {
				return nil, fmt.Errorf("kind %s: sends: %v", kind, err)
			}
		}
		out[kind] = kd
	}
	return out, nil
}

// langDocs maps the mcl names of t's parameters (engine.ParamFields) to
// their docs: td's for t's own fields, and for those of an inline field
// the docs of the struct type that declares them, found with lookup.
func langDocs(t reflect.Type, td typeDoc, lookup func(reflect.Type) (typeDoc, string, error)) (map[string]string, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	fields, err := engine.ParamFields(t)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, p := range fields {
		d := td
		if p.Owner != t {
			if d, _, err = lookup(p.Owner); err != nil {
				return nil, err
			}
		}
		out[p.Name] = d.fields[p.Field.Name]
	}
	return out, nil
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
