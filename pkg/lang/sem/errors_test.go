package sem_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/sem"
)

// checkErrors checks the program src and returns its errors, one string
// each, with the directory of the file left out.
func checkErrors(t *testing.T, src string) []string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "main.mcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := sem.Check(path, nil, sem.Options{})
	if err == nil {
		t.Fatalf("checked without an error:\n%s", src)
	}
	l, ok := graph.AsList(err)
	if !ok {
		t.Fatalf("the error is not positioned: %v", err)
	}
	var out []string
	for _, e := range l {
		out = append(out, strings.ReplaceAll(e.Error(), dir+"/", ""))
	}
	return out
}

// TestEveryTypeError: a program with several independent type errors
// reports each of them, positioned, in the order they were found.
func TestEveryTypeError(t *testing.T) {
	got := checkErrors(t, `$a = 1 + "x"
$b = not 3
$c str = 4
$d = if 1 { "y" } else { "z" }
test "t" {
	int64 => "five",
}
`)
	want := []string{
		`main.mcl:1:8: type error: operands of +: int (1 at main.mcl:1:6) does not match str ("x" at main.mcl:1:10)`,
		`main.mcl:2:6: type error: operand of not: int does not match bool`,
		`main.mcl:3:1: type error: $c is annotated str, but its value (4 at main.mcl:3:10) is int`,
		`main.mcl:4:9: type error: if condition: int does not match bool`,
		`main.mcl:6:2: type error: parameter int64 of test wants int, got str ("five" at main.mcl:6:11)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestTooManyTypeErrors: the checker reports graph.MaxStageErrors type
// errors, then "too many errors".
func TestTooManyTypeErrors(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 50; i++ {
		b.WriteString("test \"t\" {\n\tint64 => not 1,\n}\n")
	}
	got := checkErrors(t, b.String())
	if len(got) != graph.MaxStageErrors+1 || !strings.HasSuffix(got[len(got)-1], "type error: too many errors") {
		t.Fatalf("got %d errors:\n%s", len(got), strings.Join(got, "\n"))
	}
}

// TestEverySyntaxError: mcl's syntax errors reach the caller of Check
// together.
func TestEverySyntaxError(t *testing.T) {
	got := checkErrors(t, "$a = )\n$b = 1\n$c = ]\n$d = 2 3\n")
	want := []string{
		`main.mcl:1:6: syntax error: unexpected ")", expecting an expression`,
		`main.mcl:3:6: syntax error: unexpected "]", expecting an expression`,
		`main.mcl:4:8: syntax error: unexpected INTEGER, expecting NEWLINE`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
