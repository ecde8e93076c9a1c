package dist

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/manual"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestGeneratedInSync fails when a tool's command line changed without
// regenerating its manual page and completion.
func TestGeneratedInSync(t *testing.T) {
	files, err := manual.Files()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is out of date with the command line: run go generate ./dist", name)
		}
	}
}

// complete runs the bash completion of tool for the words of a command
// line whose last word is being completed, in a real bash, in dir.
func complete(t *testing.T, dir, tool string, words ...string) []string {
	t.Helper()
	script := fmt.Sprintf(`source %q; COMP_WORDS=(%s); COMP_CWORD=%d; _%s; printf '%%s\n' "${COMPREPLY[@]}"`,
		filepath.Join("completion", "bash", tool), quoteAll(words), len(words)-1, strings.ReplaceAll(tool, "-", "_"))
	cmd := exec.Command("bash", "--norc", "-c", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	return strings.Fields(string(out))
}

func quoteAll(words []string) string {
	var q []string
	for _, w := range words {
		q = append(q, "'"+w+"'")
	}
	return strings.Join(q, " ")
}

// TestBashCompletion completes flags, subcommands and paths with the
// generated scripts in bash.
func TestBashCompletion(t *testing.T) {
	_, err := exec.LookPath("bash")
	testutil.Need(t, err == nil, "bash")
	for _, c := range []struct {
		tool  string
		words []string
		want  string
	}{
		{"mgmt-apply", []string{"mgmt-apply", "--conv"}, "--converged-timeout"},
		{"mgmt-apply", []string{"mgmt-apply", "--file", "do"}, "doc.go"},
		{"mgmt-cluster", []string{"mgmt-cluster", "me"}, "members"},
		{"mgmt-cluster", []string{"mgmt-cluster", "run", "--ideal"}, "--ideal-cluster-size"},
		{"mcl-compile", []string{"mcl-compile", "--keep"}, "--keep-running"},
	} {
		got := complete(t, ".", c.tool, c.words...)
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: got %q, want %q", strings.Join(c.words, " "), got, c.want)
		}
	}
	if got := complete(t, ".", "mgmt-cluster", "mgmt-cluster", "status", "--ideal"); len(got) != 0 {
		t.Errorf("a flag of run after status: got %q", got)
	}
}

// TestManPagesFormat formats every manual page with groff, which must
// find nothing to warn about.
func TestManPagesFormat(t *testing.T) {
	_, err := exec.LookPath("groff")
	testutil.Need(t, err == nil, "groff (Debian package groff-base)")
	pages, _ := filepath.Glob(filepath.Join("man", "*.1"))
	if len(pages) != 5 {
		t.Fatalf("manual pages: %v, want 5", pages)
	}
	for _, p := range pages {
		out, err := exec.Command("groff", "-man", "-ww", "-z", p).CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Errorf("groff %s: %v\n%s", p, err, out)
		}
	}
}
