package ast_test

import (
	"fmt"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
	"github.com/mgmtpipe/mgmt/pkg/lang/parser"
)

func TestPosString(t *testing.T) {
	for _, tc := range []struct {
		p    ast.Pos
		want string
	}{
		{ast.Pos{}, "0:0"},
		{ast.Pos{Line: 1, Col: 2}, "1:2"},
		{ast.Pos{File: "main.mcl", Line: 3, Col: 14}, "main.mcl:3:14"},
		{ast.Pos{File: "dir/a b.mcl", Line: 10, Col: 1}, "dir/a b.mcl:10:1"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%#v: got %s, want %s", tc.p, got, tc.want)
		}
	}
}

func TestPosBefore(t *testing.T) {
	for _, tc := range []struct {
		p, q ast.Pos
		want bool
	}{
		{at(1, 1), at(1, 2), true},
		{at(1, 2), at(1, 1), false},
		{at(1, 9), at(2, 1), true},
		{at(2, 1), at(1, 9), false},
		{at(3, 3), at(3, 3), false},
		{ast.Pos{}, at(1, 1), false},
		{at(1, 1), ast.Pos{}, false},
		{ast.Pos{}, ast.Pos{}, false},
		{ast.Pos{Line: 1, Col: 0}, ast.Pos{Line: 1, Col: 1}, true},
	} {
		if got := tc.p.Before(tc.q); got != tc.want {
			t.Errorf("%v before %v: got %v, want %v", tc.p, tc.q, got, tc.want)
		}
	}
}

// TestPosition checks that every node reports the position it holds.
func TestPosition(t *testing.T) {
	p := at(7, 3)
	for _, n := range []ast.Node{
		&ast.Prog{Pos: p}, &ast.Bind{Pos: p}, &ast.Res{Pos: p}, &ast.ResField{Pos: p},
		&ast.ResEdge{Pos: p}, &ast.ResMeta{Pos: p}, &ast.Edge{Pos: p}, &ast.EdgeHalf{Pos: p},
		&ast.If{Pos: p}, &ast.For{Pos: p}, &ast.ForKV{Pos: p}, &ast.FuncStmt{Pos: p},
		&ast.Class{Pos: p}, &ast.Include{Pos: p}, &ast.Import{Pos: p}, &ast.Panic{Pos: p},
		&ast.Param{Pos: p}, &ast.Bool{Pos: p}, &ast.Str{Pos: p}, &ast.Interp{Pos: p},
		&ast.Int{Pos: p}, &ast.Float{Pos: p}, &ast.List{Pos: p}, &ast.Map{Pos: p},
		&ast.Struct{Pos: p}, &ast.Var{Pos: p}, &ast.Call{Pos: p}, &ast.Lambda{Pos: p},
		&ast.IfExpr{Pos: p}, &ast.Except{Pos: p}, &ast.Binary{Pos: p}, &ast.Not{Pos: p},
		&ast.Index{Pos: p}, &ast.Field{Pos: p},
	} {
		if got := n.Position(); got != p {
			t.Errorf("%T: got %v, want %v", n, got, p)
		}
	}
}

// TestParsedPositions checks the positions the parser gives nodes: each
// node is found by walking the tree along a path of field names.
func TestParsedPositions(t *testing.T) {
	src := "$x = 1 + $y\n" +
		"file \"/a\" {\n" +
		"\tcontent => $x,\n" +
		"\tDepend => Pkg[\"p\"],\n" +
		"\tMeta:noop => true,\n" +
		"}\n" +
		"if $c {\n" +
		"\t$l = [1, \"s\"][0]\n" +
		"}\n" +
		"File[\"/a\"] -> Exec[\"b\"]\n" +
		"$f = func($a) { not $a }\n"
	prog, err := parser.Parse("main.mcl", src)
	if err != nil {
		t.Fatal(err)
	}
	s := prog.Stmts
	bind := s[0].(*ast.Bind)
	res := s[1].(*ast.Res)
	ifs := s[2].(*ast.If)
	inner := ifs.Then.Stmts[0].(*ast.Bind)
	edge := s[3].(*ast.Edge)
	fn := s[4].(*ast.Bind)
	lambda := fn.Value.(*ast.Lambda)
	for _, tc := range []struct {
		what string
		n    any // a Node, or a Pos
		want string
	}{
		{"bind", bind, "main.mcl:1:1"},
		{"sum operand", bind.Value.(*ast.Binary).A, "main.mcl:1:6"},
		{"sum var", bind.Value.(*ast.Binary).B, "main.mcl:1:10"},
		{"resource", res, "main.mcl:2:1"},
		{"resource name", res.Name, "main.mcl:2:6"},
		{"field", res.Fields[0], "main.mcl:3:2"},
		{"field value", res.Fields[0].Value, "main.mcl:3:13"},
		{"edge entry", res.Edges[0], "main.mcl:4:2"},
		{"meta entry", res.Metas[0], "main.mcl:5:2"},
		{"resource end", res.End, "main.mcl:6:1"},
		{"if", ifs, "main.mcl:7:1"},
		{"if cond", ifs.Cond, "main.mcl:7:4"},
		{"block end", ifs.Then.End, "main.mcl:9:1"},
		{"inner bind", inner, "main.mcl:8:2"},
		{"list", inner.Value.(*ast.Index).X, "main.mcl:8:7"},
		{"list elem", inner.Value.(*ast.Index).X.(*ast.List).Elems[1], "main.mcl:8:11"},
		{"edge", edge, "main.mcl:10:1"},
		{"edge head", edge.Halves[0], "main.mcl:10:1"},
		{"edge tail", edge.Halves[1], "main.mcl:10:15"},
		{"lambda", lambda, "main.mcl:11:6"},
		{"lambda param", lambda.Params[0], "main.mcl:11:11"},
		{"not", lambda.Body, "main.mcl:11:17"},
	} {
		var got string
		if p, ok := tc.n.(ast.Pos); ok {
			got = p.String()
		} else {
			got = tc.n.(ast.Node).Position().String()
		}
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.what, got, tc.want)
		}
	}
	if got := fmt.Sprint(prog.End); got != "main.mcl:12:1" {
		t.Errorf("file end: got %s, want main.mcl:12:1", got)
	}
}
