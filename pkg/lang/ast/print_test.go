package ast_test

import (
	"math"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
	"github.com/mgmtpipe/mgmt/pkg/lang/parser"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
)

func str(s string) *ast.Str    { return &ast.Str{Value: s} }
func num(n int64) *ast.Int     { return &ast.Int{Value: n} }
func vr(name string) *ast.Var  { return &ast.Var{Name: name} }
func at(line, col int) ast.Pos { return ast.Pos{File: "main.mcl", Line: line, Col: col} }
func bin(op string, a, b ast.Expr) *ast.Binary {
	return &ast.Binary{Op: op, A: a, B: b}
}

// TestPrintExpr prints hand-built expressions: literals and their escapes,
// composite values, calls and lambdas, and the parentheses around every
// operand that is not atomic.
func TestPrintExpr(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    ast.Expr
		want string
	}{
		{"true", &ast.Bool{Value: true}, "true"},
		{"false", &ast.Bool{}, "false"},
		{"empty str", str(""), `""`},
		{"escapes", str("a\"b\\c\n\t\r\a\b\f\v"), `"a\"b\\c\n\t\r\a\b\f\v"`},
		{"dollar escaped", str("${x} $y"), `"\${x} \$y"`},
		{"utf-8 kept", str("héllo ✓"), `"héllo ✓"`},
		{"int", num(42), "42"},
		{"negative int", num(-7), "-7"},
		{"min int", num(math.MinInt64), "-9223372036854775808"},
		{"float text kept", &ast.Float{Value: 1.5, Text: "1.50"}, "1.50"},
		{"float whole", &ast.Float{Value: 3}, "3.0"},
		{"float fraction", &ast.Float{Value: 0.25}, "0.25"},
		{"float large", &ast.Float{Value: 1e21}, "1000000000000000000000.0"},
		{"float negative", &ast.Float{Value: -2.5}, "-2.5"},
		{"interp", &ast.Interp{Parts: []ast.Expr{str("a\"$"), vr("x"), str("-"), vr("m.y")}}, `"a\"\$${x}-${m.y}"`},
		{"empty list", &ast.List{}, "[]"},
		{"list", &ast.List{Elems: []ast.Expr{num(1), str("b"), &ast.List{}}}, `[1, "b", []]`},
		{"empty map", &ast.Map{}, "{}"},
		{"map", &ast.Map{Keys: []ast.Expr{str("a"), str("b")}, Vals: []ast.Expr{num(1), num(2)}}, `{"a" => 1, "b" => 2}`},
		{"empty struct", &ast.Struct{}, "struct{}"},
		{"struct", &ast.Struct{Names: []string{"f", "g"}, Values: []ast.Expr{num(1), &ast.Bool{}}}, "struct{f => 1, g => false}"},
		{"var", vr("x"), "$x"},
		{"dotted var", vr("mod.x"), "$mod.x"},
		{"call", &ast.Call{Name: "fmt.printf", Args: []ast.Expr{str("%d"), num(1)}}, `fmt.printf("%d", 1)`},
		{"call no args", &ast.Call{Name: "f"}, "f()"},
		{"call of var", &ast.Call{Fn: vr("f"), Args: []ast.Expr{num(1)}}, "$f(1)"},
		{"call of lambda", &ast.Call{Fn: &ast.Lambda{Body: num(1)}}, "(func() { 1 })()"},
		{"call of call", &ast.Call{Fn: &ast.Call{Name: "g"}}, "g()()"},
		{"lambda", &ast.Lambda{
			Params: []*ast.Param{{Name: "a", Type: types.Int}, {Name: "b"}},
			Out:    types.Str,
			Body:   bin("+", vr("a"), vr("b")),
		}, "func($a int, $b) str { $a + $b }"},
		{"if expr", &ast.IfExpr{Cond: vr("c"), Then: num(1), Else: num(2)}, "if $c { 1 } else { 2 }"},
		{"except", &ast.Except{A: &ast.Index{X: vr("l"), Index: num(0)}, B: num(7)}, "$l[0] <|> 7"},
		{"except nested", &ast.Except{A: &ast.Except{A: vr("a"), B: vr("b")}, B: vr("c")}, "($a <|> $b) <|> $c"},
		{"binary atoms", bin("==", vr("a"), str("b")), `$a == "b"`},
		{"binary left nested", bin("*", bin("+", num(1), num(2)), num(3)), "(1 + 2) * 3"},
		{"binary right nested", bin("-", num(1), bin("-", num(2), num(3))), "1 - (2 - 3)"},
		{"in", bin("in", num(3), &ast.List{Elems: []ast.Expr{num(3)}}), "3 in [3]"},
		{"not atom", &ast.Not{X: vr("x")}, "not $x"},
		{"not binary", &ast.Not{X: bin("and", vr("a"), vr("b"))}, "not ($a and $b)"},
		{"not not", &ast.Not{X: &ast.Not{X: vr("x")}}, "not (not $x)"},
		{"index", &ast.Index{X: &ast.Index{X: vr("m"), Index: str("k")}, Index: num(1)}, `$m["k"][1]`},
		{"index of binary", &ast.Index{X: bin("+", vr("a"), vr("b")), Index: num(0)}, "($a + $b)[0]"},
		{"field", &ast.Field{X: &ast.Field{X: vr("s"), Name: "f"}, Name: "g"}, "$s->f->g"},
		{"field of if", &ast.Field{X: &ast.IfExpr{Cond: vr("c"), Then: vr("a"), Else: vr("b")}, Name: "f"}, "(if $c { $a } else { $b })->f"},
		{"negative operand", bin("-", vr("x"), num(-5)), "$x - -5"},
	} {
		if got := ast.PrintExpr(tc.e); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestPrintStmts prints hand-built statements in the canonical layout:
// one statement a line, blocks indented with tabs, resource entries one a
// line with a comma, kinds capitalized in edges.
func TestPrintStmts(t *testing.T) {
	block := func(ss ...ast.Stmt) *ast.Prog { return &ast.Prog{Stmts: ss} }
	bind := &ast.Bind{Name: "x", Value: num(1)}
	field := &ast.ResField{Key: "content", Value: str("hi")}
	condField := &ast.ResField{Key: "mode", Cond: vr("c"), Value: str("0644")}
	edge := &ast.ResEdge{Prop: "depend", Cond: vr("c"), Kind: "pkg", Name: str("p")}
	meta := &ast.ResMeta{Prop: "noop", Cond: vr("c"), Value: &ast.Bool{Value: true}}
	metaAll := &ast.ResMeta{Value: &ast.Struct{Names: []string{"retry"}, Values: []ast.Expr{num(3)}}}
	for _, tc := range []struct {
		name string
		prog *ast.Prog
		want string
	}{
		{"empty", &ast.Prog{}, ""},
		{"bind", block(bind), "$x = 1\n"},
		{"typed bind", block(&ast.Bind{Name: "l", Type: types.NewList(types.Str), Value: &ast.List{}}), "$l []str = []\n"},
		{"two binds", block(bind, &ast.Bind{Name: "y", Value: vr("x")}), "$x = 1\n$y = $x\n"},
		{"empty resource", block(&ast.Res{Kind: "file", Name: str("/a")}), "file \"/a\" {}\n"},
		{"resource", block(&ast.Res{Kind: "file", Name: str("/a"), Order: []ast.Node{field, condField, edge, meta, metaAll}}),
			"file \"/a\" {\n\tcontent => \"hi\",\n\tmode => $c ?: \"0644\",\n\tDepend => $c ?: Pkg[\"p\"],\n\tMeta:noop => $c ?: true,\n\tMeta => struct{retry => 3},\n}\n"},
		{"collect", block(&ast.Res{Kind: "file", Name: vr("names"), Collect: true}), "collect file $names {}\n"},
		{"edge chain", block(&ast.Edge{Halves: []*ast.EdgeHalf{
			{Kind: "file", Name: str("/a")},
			{Kind: "svc:user", Name: str("b")},
			{Kind: "exec", Name: str("c")},
		}}), "File[\"/a\"] -> Svc:User[\"b\"] -> Exec[\"c\"]\n"},
		{"send recv", block(&ast.Edge{Halves: []*ast.EdgeHalf{
			{Kind: "exec", Name: str("a"), Field: "output"},
			{Kind: "file", Name: str("/b"), Field: "content"},
		}}), "Exec[\"a\"].output -> File[\"/b\"].content\n"},
		{"if", block(&ast.If{Cond: vr("c"), Then: block(bind)}), "if $c {\n\t$x = 1\n}\n"},
		{"if else", block(&ast.If{Cond: vr("c"), Then: block(), Else: block(bind)}), "if $c {} else {\n\t$x = 1\n}\n"},
		{"nested blocks", block(&ast.If{Cond: vr("a"), Then: block(&ast.If{Cond: vr("b"), Then: block(bind)})}),
			"if $a {\n\tif $b {\n\t\t$x = 1\n\t}\n}\n"},
		{"for", block(&ast.For{Index: "i", Value: "v", List: vr("l"), Body: block(bind)}), "for $i, $v in $l {\n\t$x = 1\n}\n"},
		{"forkv", block(&ast.ForKV{Key: "k", Val: "v", Map: vr("m"), Body: block()}), "forkv $k, $v in $m {}\n"},
		{"func", block(&ast.FuncStmt{Name: "double", Func: &ast.Lambda{
			Params: []*ast.Param{{Name: "n", Type: types.Int}}, Out: types.Int, Body: bin("*", vr("n"), num(2)),
		}}), "func double($n int) int { $n * 2 }\n"},
		{"class", block(&ast.Class{Name: "c", Body: block(bind)}), "class c {\n\t$x = 1\n}\n"},
		{"class params", block(&ast.Class{Name: "c", HasArg: true, Params: []*ast.Param{{Name: "a"}, {Name: "b", Type: types.Str}}, Body: block()}),
			"class c($a, $b str) {}\n"},
		{"class empty params", block(&ast.Class{Name: "c:d", HasArg: true, Body: block()}), "class c:d() {}\n"},
		{"include", block(&ast.Include{Name: "c"}), "include c\n"},
		{"include args alias", block(&ast.Include{Name: "c", HasArg: true, Args: []ast.Expr{num(1), str("s")}, Alias: "k"}),
			"include c(1, \"s\") as k\n"},
		{"import", block(&ast.Import{Path: "mod/\"q\"", Alias: "*"}), "import \"mod/\\\"q\\\"\" as *\n"},
		{"import plain", block(&ast.Import{Path: "fmt"}), "import \"fmt\"\n"},
		{"panic", block(&ast.Panic{Args: []ast.Expr{bin("==", vr("x"), num(1))}}), "panic($x == 1)\n"},
	} {
		if got := ast.Print(tc.prog); got != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

// TestPrintComments places comments by position: own-line comments before
// the node that follows them, trailing ones at the end of the line before
// it, the rest before the closing brace or at the end of the file.
func TestPrintComments(t *testing.T) {
	c := func(line, col int, text string, trailing bool) *ast.Comment {
		return &ast.Comment{Pos: at(line, col), Text: text, Trailing: trailing}
	}
	for _, tc := range []struct {
		name string
		prog *ast.Prog
		want string
	}{
		{"only comments", &ast.Prog{Comments: []*ast.Comment{c(1, 1, "# a", false), c(2, 1, "# b", false)}}, "# a\n# b\n"},
		{"before and after", &ast.Prog{
			Stmts:    []ast.Stmt{&ast.Bind{Pos: at(2, 1), Name: "x", Value: num(1)}},
			Comments: []*ast.Comment{c(1, 1, "# head", false), c(2, 8, "# tail", true), c(3, 1, "# end", false)},
		}, "# head\n$x = 1 # tail\n# end\n"},
		{"trailing then own line", &ast.Prog{
			Stmts: []ast.Stmt{
				&ast.Bind{Pos: at(1, 1), Name: "x", Value: num(1)},
				&ast.Bind{Pos: at(3, 1), Name: "y", Value: num(2)},
			},
			Comments: []*ast.Comment{c(1, 8, "# t", true), c(2, 1, "# own", false)},
		}, "$x = 1 # t\n# own\n$y = 2\n"},
		{"inside block", &ast.Prog{
			Stmts: []ast.Stmt{&ast.If{Pos: at(1, 1), Cond: &ast.Bool{Value: true}, Then: &ast.Prog{
				Stmts: []ast.Stmt{&ast.Bind{Pos: at(3, 2), Name: "x", Value: num(1)}},
				End:   at(5, 1),
			}}},
			Comments: []*ast.Comment{c(1, 11, "# brace", true), c(2, 2, "# in", false), c(4, 2, "# last", false)},
		}, "if true { # brace\n\t# in\n\t$x = 1\n\t# last\n}\n"},
		{"empty block", &ast.Prog{
			Stmts:    []ast.Stmt{&ast.If{Pos: at(1, 1), Cond: &ast.Bool{}, Then: &ast.Prog{End: at(3, 1)}}},
			Comments: []*ast.Comment{c(2, 2, "# nothing", false)},
		}, "if false {\n\t# nothing\n}\n"},
		{"inside resource", &ast.Prog{
			Stmts: []ast.Stmt{&ast.Res{Pos: at(1, 1), Kind: "file", Name: str("/a"), End: at(4, 1), Order: []ast.Node{
				&ast.ResField{Pos: at(2, 2), Key: "content", Value: str("x")},
			}}},
			Comments: []*ast.Comment{c(2, 18, "# tc", true), c(3, 2, "# end", false)},
		}, "file \"/a\" {\n\tcontent => \"x\", # tc\n\t# end\n}\n"},
		{"trailing comment in empty block", &ast.Prog{
			Stmts:    []ast.Stmt{&ast.If{Pos: at(1, 1), Cond: &ast.Bool{}, Then: &ast.Prog{End: at(2, 1)}}},
			Comments: []*ast.Comment{c(1, 12, "# only", true)},
		}, "if false { # only\n}\n"},
		{"trailing comment in empty resource", &ast.Prog{
			Stmts:    []ast.Stmt{&ast.Res{Pos: at(1, 1), Kind: "file", Name: str("/a"), End: at(2, 1)}},
			Comments: []*ast.Comment{c(1, 12, "# only", true)},
		}, "file \"/a\" { # only\n}\n"},
		{"comment in empty resource", &ast.Prog{
			Stmts:    []ast.Stmt{&ast.Res{Pos: at(1, 1), Kind: "file", Name: str("/a"), End: at(3, 1)}},
			Comments: []*ast.Comment{c(2, 2, "# nothing", false)},
		}, "file \"/a\" {\n\t# nothing\n}\n"},
	} {
		if got := ast.Print(tc.prog); got != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

// TestPrintParses checks that printed programs parse back to the same
// print, for sources covering every statement and expression.
func TestPrintParses(t *testing.T) {
	for _, src := range []string{
		"$x = 1 + 2 * 3 - 4 / 5\n",
		"$b = not $x and $y or $z == 3\n",
		"$s = \"a ${x} \\$y \\\\ \\n\"\n",
		"$f = func($a int, $b) str { $a + $b }\n$r = $f(1, 2)\n",
		"$m = {\"a\" => [1, 2.5], \"b\" => []}\n$v = $m[\"a\"][0] <|> 7\n",
		"$st = struct{f => 1, g => struct{h => true}}\n$h = $st->g->h\n",
		"$i = if $c { 1 } else { 2 }\n",
		"file \"/a\" {\n\tcontent => \"x\",\n\tmode => $c ?: \"0600\",\n\tDepend => Pkg[\"p\"],\n\tMeta:noop => true,\n}\n",
		"File[\"/a\"] -> Exec[\"b\"]\nExec[\"a\"].output -> File[\"/b\"].content\n",
		"for $i, $v in [1] {\n\t$x = $v\n}\nforkv $k, $v in {} {}\n",
		"class c($a, $b str) {\n\tinclude d(1) as e\n}\ninclude c(1, \"s\")\n",
		"import \"fmt\"\nimport \"mod\" as *\n",
		"func f($n int) int { $n * 2 }\npanic(f(1) == 2)\n",
		"# head\n$x = 1 # tail\nif true { # brace\n\t# in\n}\n# end\n",
		"$neg = 1 - -2\n$n = -0.5\n",
		"$r = (func() { 1 })()\n$g = f()()\n",
		"class a($a str){#0\n}\nfile \"/a\" { # c\n}\n",
	} {
		prog, err := parser.Parse("main.mcl", src)
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		out := ast.Print(prog)
		prog2, err := parser.Parse("main.mcl", out)
		if err != nil {
			t.Errorf("%q printed as %q, which does not parse: %v", src, out, err)
			continue
		}
		if again := ast.Print(prog2); again != out {
			t.Errorf("%q: printed %q, then %q", src, out, again)
		}
	}
}
