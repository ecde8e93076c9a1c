package sem_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/sem"
)

// lines returns the n lines f(0), ..., f(n-1), each with a newline.
func lines(n int, f func(i int) string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(f(i))
		b.WriteByte('\n')
	}
	return b.String()
}

// compileDir checks dir/main.mcl and evaluates its first graph, within a
// deadline (a program that would take exponential time fails the test
// instead of hanging it). It returns the graph or the error.
func compileDir(t *testing.T, dir string) (*graph.Document, error) {
	t.Helper()
	type result struct {
		doc *graph.Document
		err error
	}
	ch := make(chan result, 1)
	go func() {
		prog, err := sem.Check(filepath.Join(dir, "main.mcl"), nil, sem.Options{})
		if err != nil {
			ch <- result{err: err}
			return
		}
		var doc *graph.Document
		err = sem.NewEngine(prog).Run(context.Background(), true, func(d *graph.Document) error {
			doc = d
			return nil
		})
		ch <- result{doc, err}
	}()
	select {
	case r := <-ch:
		return r.doc, r.err
	case <-time.After(2 * time.Minute):
		t.Fatal("the compiler did not finish in 2 minutes")
		return nil, nil
	}
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDeepPrograms: programs whose nesting is shallow in the source but
// deep through the definitions they use (chains of variables, functions,
// classes, modules; types and values built level by level) end with a
// positioned error instead of exhausting the stack, and programs sharing
// parts of their types and values are checked in time linear in their size.
func TestDeepPrograms(t *testing.T) {
	const (
		checkTooDeep = `: scope error: program nested too deeply: more than 10000 levels`
		evalTooDeep  = `: runtime error: evaluation nested too deeply: more than 10000 levels`
		typeTooDeep  = `type nested too deeply`
	)
	n := 100000
	imports := map[string]string{}
	for i := 0; i <= 10001; i++ {
		imports[fmt.Sprintf("m%d.mcl", i)] = fmt.Sprintf("import \"m%d.mcl\"\n$x = $m%d.x\n", i+1, i+1)
	}
	imports["m10002.mcl"] = "$x = 1\n"
	imports["main.mcl"] = "import \"m0.mcl\"\ntest \"x\" {\n\tint => $m0.x,\n}\n"
	dag := lines(40, func(i int) string {
		return fmt.Sprintf("$a%d = struct{x => $a%d, y => $a%d}\n$b%d = struct{x => $b%d, y => $b%d}", i+1, i, i, i+1, i, i)
	})
	dag = "$a0 = 1\n$b0 = 1\n" + dag
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string // regexp of the error, "" for success
	}{
		{"variables", map[string]string{"main.mcl": lines(n, func(i int) string { return fmt.Sprintf("$a%d = $a%d", i, i+1) }) + fmt.Sprintf("$a%d = 1\n", n)},
			`main.mcl:10000:10` + checkTooDeep},
		{"functions", map[string]string{"main.mcl": lines(n, func(i int) string { return fmt.Sprintf("func f%d() { f%d() }", i, i+1) }) + fmt.Sprintf("func f%d() { 1 }\n$x = f0()\n", n)},
			`main.mcl:9999:16` + checkTooDeep},
		{"classes", map[string]string{"main.mcl": lines(n, func(i int) string { return fmt.Sprintf("class c%d {\n\tinclude c%d\n}", i, i+1) }) + fmt.Sprintf("class c%d {\n}\ninclude c0\n", n)},
			`main.mcl:29998:14` + checkTooDeep},
		{"modules", imports, `m9999.mcl:1:1` + checkTooDeep},
		{"lambdas", map[string]string{"main.mcl": "$f0 = func($x) { $x }\n" + lines(n, func(i int) string { return fmt.Sprintf("$f%d = func($x) { $f%d($x) }", i+1, i) }) + fmt.Sprintf("test \"x\" {\n\tint => $f%d(1),\n}\n", n)},
			`main.mcl:\d+:\d+` + evalTooDeep},
		{"list types", map[string]string{"main.mcl": "$a0 = 1\n" + lines(1000, func(i int) string { return fmt.Sprintf("$a%d = [$a%d]", i+1, i) })},
			`main.mcl:502:10: type error: list element: .*: ` + typeTooDeep},
		{"struct types", map[string]string{"main.mcl": "$a0 = 1\n" + lines(1000, func(i int) string { return fmt.Sprintf("$a%d = struct{x => $a%d}", i+1, i) })},
			`main.mcl:501:9: type error: the type of this struct is nested too deeply`},
		{"function types", map[string]string{"main.mcl": "$a0 = 1\n" + lines(1000, func(i int) string { return fmt.Sprintf("$a%d = func() { $a%d }", i+1, i) })},
			`main.mcl:501:9: type error: the type of this function is nested too deeply`},
		{"variables within the limit", map[string]string{"main.mcl": "$a0 = 1\n" + lines(3000, func(i int) string { return fmt.Sprintf("$a%d = $a%d + 1", i+1, i) }) + "test \"x\" {\n\tint => $a3000,\n}\n"},
			``},
		{"shared types compared", map[string]string{"main.mcl": dag + "$z = $a40 == $b40\ntest \"x\" {\n\tbool => $z,\n}\n"}, ``},
		{"shared types passed", map[string]string{"main.mcl": dag + "func f($x) { $x }\n$z = f($a40)\n$y = f($b40)\n"}, ``},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := compileDir(t, writeFiles(t, c.files))
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if c.name == "variables within the limit" && (len(doc.Resources) != 1 || doc.Resources[0].Params["int"] != int64(3001)) {
					t.Fatalf("got %v, want test[x] with int 3001", doc.Resources[0].Params)
				}
				return
			}
			t.Log(err)
			if err == nil || !regexp.MustCompile(c.want).MatchString(err.Error()) {
				t.Fatalf("got %v, want an error matching %q", err, c.want)
			}
		})
	}
}
