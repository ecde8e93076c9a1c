package parser

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
)

// hostile is the size of the main hostile inputs: a million terms or
// brackets; the others have a tenth of that.
const hostile = 1000000

func rep(s string, n int) string { return strings.Repeat(s, n) }

func chain(term, op string, n int) string {
	return strings.TrimSuffix(rep(term+" "+op+" ", n), " "+op+" ")
}

// TestDeepNesting: hostile nesting and long chains, which would exhaust
// the stack of the parser or of a later stage, are positioned syntax
// errors.
func TestDeepNesting(t *testing.T) {
	const (
		tooDeep = `nested too deeply: more than \d+ levels`
		tooLong = `expression too long: more than 500 levels`
	)
	n, m := hostile, hostile/10
	for _, c := range []struct{ name, src, want string }{
		{"sum", "$x = " + chain("1", "+", n), `^deep.mcl:1:2004: syntax error: ` + tooLong},
		{"concatenation", "$x = " + chain(`"a"`, "+", m), `^deep.mcl:1:3004: syntax error: ` + tooLong},
		{"and", "$x = " + chain("true", "and", m), `^deep.mcl:1:4502: syntax error: ` + tooLong},
		{"except", "$x = " + chain("$a", "<|>", m), `^deep.mcl:1:3502: syntax error: ` + tooLong},
		{"indexes", "$x = $l" + rep("[0]", m), `^deep.mcl:1:1505: syntax error: ` + tooLong},
		{"fields", "$x = $s" + rep("->a", m), `^deep.mcl:1:1505: syntax error: ` + tooLong},
		{"call chain", "$x = $f" + rep("(1)", m), `^deep.mcl:1:1505: syntax error: ` + tooLong},
		{"sum in a resource", "test \"x\" {\n\tanotherstr => " + chain("1", "+", m) + ",\n}\n", `^deep.mcl:2:2014: syntax error: ` + tooLong},
		{"sum in lists", "$x = " + rep("[", 400) + chain("1", "+", 200) + rep("]", 400), `^deep.mcl:1:105: syntax error: expression ` + tooDeep},
		{"parentheses", "$x = " + rep("(", n) + "1" + rep(")", n), `^deep.mcl:1:2006: syntax error: expressions ` + tooDeep},
		{"lists", "$x = " + rep("[", n) + rep("]", n), `^deep.mcl:1:2006: syntax error: expressions ` + tooDeep},
		{"closed lists", "$x = " + rep("[", 600) + rep("]", 600), `^deep.mcl:1:105: syntax error: expression ` + tooDeep},
		{"unclosed lists", "$x = " + rep("[", m), `^deep.mcl:1:2006: syntax error: expressions ` + tooDeep},
		{"maps", "$x = " + rep("{1 => ", n) + "1" + rep("}", n), `^deep.mcl:1:12001: syntax error: expressions ` + tooDeep},
		{"structs", "$x = " + rep("struct{a => ", m) + "1" + rep("}", m), `^deep.mcl:1:24006: syntax error: expressions ` + tooDeep},
		{"calls", "$x = " + rep("f(", n) + "1" + rep(")", n), `^deep.mcl:1:4006: syntax error: expressions ` + tooDeep},
		{"lambdas", "$x = " + rep("func() { ", m) + "1" + rep(" }", m), `^deep.mcl:1:18006: syntax error: expressions ` + tooDeep},
		{"if expressions", "$x = " + rep("if true { ", n) + "1" + rep(" } else { 2 }", n), `^deep.mcl:1:\d+: syntax error: expressions ` + tooDeep},
		{"else if expressions", "$x = if true { 1 } " + rep("else if true { 1 } ", m) + "else { 2 }", `^deep.mcl:1:\d+: syntax error: (if )?expressions ` + tooDeep},
		{"short else if expressions", "$x = if true { 1 } " + rep("else if true { 1 } ", 600) + "else { 2 }", `^deep.mcl:1:\d+: syntax error: expression ` + tooDeep},
		{"not", "$x = " + rep("not ", m) + "true", `^deep.mcl:1:8002: syntax error: expressions ` + tooDeep},
		{"blocks", rep("if true {\n", m) + rep("}\n", m), `^deep.mcl:501:9: syntax error: blocks ` + tooDeep},
		{"else if statements", "if true {\n} " + rep("else if true {\n} ", m) + "else {\n}\n", `^deep.mcl:501:16: syntax error: blocks ` + tooDeep},
		{"classes", rep("class a {\n", m) + rep("}\n", m), `^deep.mcl:501:9: syntax error: blocks ` + tooDeep},
		{"list types", "$x " + rep("[]", m) + "int = []", `^deep.mcl:1:1004: syntax error: type ` + tooDeep},
		{"map types", "$x " + rep("map{int: ", m) + "int" + rep("}", m) + " = {}", `^deep.mcl:1:4499: syntax error: type ` + tooDeep},
		{"parameter types", "$f = func($x " + rep("[]", m) + "int) { 1 }", `^deep.mcl:1:1014: syntax error: type ` + tooDeep},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("deep.mcl", c.src)
			if err == nil || !regexp.MustCompile(c.want).MatchString(err.Error()) {
				t.Fatalf("got %v, want an error matching %q", err, c.want)
			}
		})
	}
}

// TestDepthLimitRoundTrip: what is just within the limits parses, and its
// print (one pair of parentheses per level of a chain) parses again to the
// same print.
func TestDepthLimitRoundTrip(t *testing.T) {
	for _, c := range []struct{ name, ok, bad string }{
		{"sum", "$x = " + chain("1", "+", 500), "$x = " + chain("1", "+", 501)},
		{"indexes", "$x = $l" + rep("[0]", 499), "$x = $l" + rep("[0]", 500)},
		{"lists", "$x = " + rep("[", 500) + rep("]", 500), "$x = " + rep("[", 501) + rep("]", 501)},
		{"not", "$x = " + rep("not ", 499) + "true", "$x = " + rep("not ", 500) + "true"},
		{"nots in a chain", "$x = " + chain("not true", "and", 499), "$x = " + chain("not true", "and", 500)},
		{"nots and parentheses", "$x = " + rep("not (true and ", 249) + "true" + rep(")", 249), "$x = " + rep("not (true and ", 250) + "true" + rep(")", 250)},
		{"blocks", rep("if true {\n", 499) + "$x = 1\n" + rep("}\n", 499), rep("if true {\n", 499) + "$x = [1]\n" + rep("}\n", 499)},
		{"else if", "$x = if true { 1 } " + rep("else if true { 1 } ", 498) + "else { 2 }", "$x = if true { 1 } " + rep("else if true { 1 } ", 499) + "else { 2 }"},
		{"sum in blocks", rep("if true {\n", 250) + "$x = " + chain("1", "+", 250) + "\n" + rep("}\n", 250), rep("if true {\n", 250) + "$x = " + chain("1", "+", 251) + "\n" + rep("}\n", 250)},
		{"types", "$x " + rep("[]", 499) + "int = []", "$x " + rep("[]", 500) + "int = []"},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog, err := Parse("ok.mcl", c.ok+"\n")
			if err != nil {
				t.Fatalf("within the limit: %v", err)
			}
			out := ast.Print(prog)
			prog2, err := Parse("ok.mcl", out)
			if err != nil {
				t.Fatalf("printed program does not parse: %v", err)
			}
			if out2 := ast.Print(prog2); out2 != out {
				t.Fatal("print not stable")
			}
			if _, err := Parse("bad.mcl", c.bad+"\n"); err == nil || !strings.Contains(err.Error(), "500 levels") {
				t.Fatalf("one more level: got %v, want an error at 500 levels", err)
			}
		})
	}
}
