package parser

import (
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// parseErrors parses src and returns its errors, one string each.
func parseErrors(t *testing.T, src string) []string {
	t.Helper()
	_, err := Parse("e.mcl", src)
	if err == nil {
		t.Fatalf("parsed without an error:\n%s", src)
	}
	l, ok := graph.AsList(err)
	if !ok {
		t.Fatalf("the error is not positioned: %v", err)
	}
	var out []string
	for _, e := range l {
		out = append(out, e.Error())
	}
	return out
}

// TestEveryError: a file with several independent syntax errors reports
// each of them, positioned, in the order of the source; what lies between
// them parses.
func TestEveryError(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"statements", "$a = 1 + * 2\n$b = 2\n$c = )\nfile \"x\" {\n\tmode => ,\n}\n$d = [1, 2]]\n", []string{
			`e.mcl:1:10: syntax error: unexpected "*", expecting an expression`,
			`e.mcl:3:6: syntax error: unexpected ")", expecting an expression`,
			`e.mcl:5:10: syntax error: unexpected ",", expecting an expression`,
			`e.mcl:7:12: syntax error: unexpected "]", expecting NEWLINE`,
		}},
		{"in blocks", "if true {\n\t$a = *\n\t$b = 1\n\t$c = [\n}\n$d = 1 1\n", []string{
			`e.mcl:2:7: syntax error: unexpected "*", expecting an expression`,
			`e.mcl:5:1: syntax error: unexpected "}", expecting an expression`,
			`e.mcl:6:8: syntax error: unexpected INTEGER, expecting NEWLINE`,
		}},
		{"lexer", "$a = 1 @ 2\n$b = \"\\q\"\n$c = 3 ~\n$d = \"open\n", []string{
			`e.mcl:1:8: syntax error: unexpected character '@'`,
			`e.mcl:2:6: syntax error: unknown escape sequence \q`,
			`e.mcl:3:8: syntax error: unexpected character '~'`,
			`e.mcl:4:6: syntax error: unterminated string`,
		}},
		{"unclosed blocks", "if true {\n\tif true {\n\t\t$a = 1\n", []string{
			`e.mcl:4:1: syntax error: unexpected EOF, expecting "}"`,
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := parseErrors(t, c.src)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// TestTooManyErrors: the parser stops after graph.MaxStageErrors errors
// with "too many errors" at the next one.
func TestTooManyErrors(t *testing.T) {
	got := parseErrors(t, strings.Repeat("$a = )\n", 1000))
	if len(got) != graph.MaxStageErrors+1 {
		t.Fatalf("got %d errors, want %d:\n%s", len(got), graph.MaxStageErrors+1, strings.Join(got, "\n"))
	}
	if last := got[len(got)-1]; last != "e.mcl:11:6: syntax error: too many errors" {
		t.Fatalf("last error %q", last)
	}
}

// TestRecoveryEnds: recovery always moves on, whatever the bad input: a
// line of stray closing brackets, refused characters and unclosed
// brackets ends with errors, not a loop.
func TestRecoveryEnds(t *testing.T) {
	for _, src := range []string{
		strings.Repeat(")]}", 10000) + "\n",
		strings.Repeat("\x00", 10000),
		strings.Repeat("é", 10000),
		strings.Repeat("if { ", 10000),
		strings.Repeat("$x = (\n", 10000),
		strings.Repeat("}\n", 10000),
		"class a {\n" + strings.Repeat("\t)\n", 10000) + "}\n",
	} {
		if got := parseErrors(t, src); len(got) == 0 || len(got) > graph.MaxStageErrors+1 {
			t.Fatalf("got %d errors", len(got))
		}
	}
}
