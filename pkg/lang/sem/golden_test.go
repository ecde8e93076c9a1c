package sem_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/internal/txtar"
	"github.com/mgmtpipe/mgmt/pkg/lang/sem"
)

var update = flag.Bool("update", false, "rewrite the OUTPUT sections of testdata/*.txtar")

// graphLines prints a document as sorted "Vertex:" and "Edge:" lines.
func graphLines(doc *graph.Document) string {
	var lines []string
	for _, r := range doc.Resources {
		lines = append(lines, fmt.Sprintf("Vertex: %s[%s]", r.Kind, r.Name))
	}
	for _, e := range doc.Edges {
		l := fmt.Sprintf("Edge: %s -> %s", e.From, e.To)
		if e.Notify {
			l += " notify"
		}
		if e.Send != "" {
			l += fmt.Sprintf(" send %s recv %s", e.Send, e.Recv)
		}
		lines = append(lines, l)
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		return "# empty\n"
	}
	return strings.Join(lines, "\n") + "\n"
}

// run compiles the program in dir and returns its first graph as lines,
// or the error as "# err: MESSAGE" with paths relative to dir.
func run(t *testing.T, dir string) string {
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	prog, err := sem.Check("main.mcl", nil, sem.Options{})
	if err == nil {
		var doc *graph.Document
		err = sem.NewEngine(prog).Run(context.Background(), true, func(d *graph.Document) error {
			doc = d
			return nil
		})
		if err == nil {
			return graphLines(doc)
		}
	}
	return "# err: " + err.Error() + "\n"
}

// TestGolden runs every testdata/*.txtar program and compares the first
// graph (or the error, with its position and stage) with OUTPUT.
func TestGolden(t *testing.T) {
	txtar.Golden(t, "testdata/*.txtar", *update, func(t *testing.T, fs []txtar.File) string {
		dir := t.TempDir()
		for _, f := range fs {
			p := filepath.Join(dir, f.Name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(f.Data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return run(t, dir)
	})
}
