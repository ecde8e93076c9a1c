package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// txtarFiles splits a txtar block ("-- name --" lines) into its files.
func txtarFiles(t *testing.T, text string) map[string]string {
	t.Helper()
	files := map[string]string{}
	name := ""
	for _, line := range strings.SplitAfter(text, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "-- ") && strings.HasSuffix(l, " --") && len(l) > 6 {
			name = strings.TrimSpace(l[3 : len(l)-3])
			files[name] = ""
			continue
		}
		if name == "" {
			if l != "" {
				t.Fatalf("text before the first file of a txtar block: %q", line)
			}
			continue
		}
		files[name] += line
	}
	return files
}

// TestLanguageExamples compiles every mcl and txtar block of
// docs/language.md with mcl-compile --once: each is a whole program and
// must produce a graph.
func TestLanguageExamples(t *testing.T) {
	testutil.Tools(t)
	path := filepath.Join(testutil.Root(), "docs", "language.md")
	prefix := t.TempDir() // the private world, for the collect example
	n := 0
	for _, b := range blocks(t, path) {
		var files map[string]string
		switch b.lang {
		case "mcl":
			files = map[string]string{"main.mcl": b.text}
		case "txtar":
			files = txtarFiles(t, b.text)
		default:
			continue
		}
		n++
		dir := t.TempDir()
		for name, text := range files {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		r := testutil.Run(t, "", "mcl-compile", "--once", "--prefix", prefix, "--hostname", "web2", filepath.Join(dir, "main.mcl"))
		if r.Code != 0 || !strings.Contains(r.Stdout, `"mgmt":"graph/v1"`) || strings.Contains(r.Stdout, `"error":`) {
			t.Errorf("language.md:%d: the example does not compile to a graph (exit %d):\n%s%s", b.line, r.Code, r.Stderr, r.Stdout)
		}
	}
	if n < 15 {
		t.Fatalf("only %d examples in %s", n, path)
	}
}
