// Package docs tests the documentation under docs/ against the built
// tools: the tutorial's shell blocks run in order, and every mcl example
// of the language guide compiles.
package docs

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// A block is one fenced code block of a Markdown file.
type block struct {
	lang string
	line int // of the opening fence
	text string
}

// blocks returns the fenced code blocks of a Markdown file.
func blocks(t *testing.T, path string) []block {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []block
	var cur *block
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &block{lang: strings.TrimSpace(strings.TrimPrefix(line, "```")), line: n}
		case cur != nil && strings.TrimSpace(line) == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: unterminated code block", path, cur.line)
	}
	return out
}

// TestTutorial runs the sh blocks of docs/tutorial.md in order, as one
// shell script (so background jobs and variables carry over), in a
// temporary directory with the built tools first on PATH, and checks the
// files the tutorial says it makes.
func TestTutorial(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the tutorial, which starts an etcd member")
	}
	bin := testutil.Tools(t)
	path := filepath.Join(testutil.Root(), "docs", "tutorial.md")
	var script strings.Builder
	// Job control on, as in the reader's interactive shell: each
	// background pipeline is its own process group, which kill %N ends
	// whole. Whatever jobs are left when the script ends (on a failure, or
	// on SIGTERM at the deadline) are killed.
	script.WriteString("set -euo pipefail -m\n" +
		"trap 'for p in $(jobs -p); do kill -KILL -- -$p 2>/dev/null || true; done' EXIT\n" +
		"trap 'exit 143' TERM\n")
	n := 0
	for _, b := range blocks(t, path) {
		if b.lang != "sh" {
			continue
		}
		n++
		fmt.Fprintf(&script, "echo '--- tutorial.md:%d' >&2\n%s", b.line, b.text)
	}
	if n < 10 {
		t.Fatalf("only %d sh blocks in %s", n, path)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir = dir
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MGMT_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	// At the deadline the script is asked to stop, so that its EXIT trap
	// ends its jobs; its own process group catches the rest.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var out testutil.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err != nil {
		t.Fatalf("the tutorial failed (%v); the last block started is the last '--- tutorial.md:LINE' below:\n%s", err, out.String())
	}
	for file, want := range map[string]string{
		"tutorial/site/index.html": "<h1>Welcome to ",
		"tutorial/graph.json":      `"mgmt":"graph/v1"`,
		"tutorial/web2-motd":       "served by web2, configured by web1\n",
	} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s = %q, %v; want it to hold %q\n%s", file, b, err, want, out.String())
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "tutorial/site/index.html")); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("site/index.html: %v, %v; want mode 0644", st, err)
	}
	for _, want := range []string{"would change: content (noop)", "type error: parameter state of file wants str, got int", "mcl-compile exited with 1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the tutorial's output lacks %q:\n%s", want, out.String())
		}
	}
	log, _ := os.ReadFile(filepath.Join(dir, "tutorial/apply.log"))
	for _, want := range []string{"changed: content", "changed: created", "changed: mode 0600 -> 0644"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("apply.log lacks %q (a repair the tutorial shows):\n%s", want, log)
		}
	}
}
