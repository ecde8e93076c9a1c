package dist

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// completionCases are partial command lines and a match each shell must
// offer for them: a flag with its help, a subcommand, a subcommand's
// flag, a file name for a flag that takes a path, an enum's word.
var completionCases = []struct {
	line string
	want string
}{
	{"mgmt-apply --no", "--noop"},
	{"mgmt-apply --conv", "--converged-timeout"},
	{"mgmt-apply --file do", "doc.go"},
	{"mgmt-apply --log-format j", "json"},
	{"mgmt-cluster me", "members"},
	{"mgmt-cluster run --ideal", "--ideal-cluster-size"},
	{"mcl-compile --keep", "--keep-running"},
	{"puppet-graph --eng", "--engine"},
	{"graph-merge --allow", "--allow-unmatched"},
}

// needShell returns the path of shell, or skips (fails in CI) without it.
func needShell(t *testing.T, shell string) string {
	t.Helper()
	p, err := exec.LookPath(shell)
	testutil.Need(t, err == nil, shell+" (Debian package "+shell+")")
	return p
}

// runShell runs a shell command with a deadline and returns its output.
func runShell(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestZshCompletion checks the syntax of every generated zsh function
// and completes partial command lines with them in an interactive zsh.
func TestZshCompletion(t *testing.T) {
	zsh := needShell(t, "zsh")
	files, _ := filepath.Glob(filepath.Join("completion", "zsh", "_*"))
	if len(files) != 5 {
		t.Fatalf("zsh completion files: %v, want 5", files)
	}
	for _, f := range files {
		runShell(t, zsh, "-n", f)
	}
	dir, _ := filepath.Abs(filepath.Join("completion", "zsh"))
	lines := []string{"mgmt-cluster status --ideal"} // a flag of run is not offered after status
	for _, c := range completionCases {
		lines = append(lines, c.line)
	}
	outdir := t.TempDir()
	runShell(t, zsh, append([]string{"-f", filepath.Join("testdata", "complete.zsh"), dir, outdir}, lines...)...)
	for i, line := range lines {
		b, err := os.ReadFile(filepath.Join(outdir, fmt.Sprint(i+1)))
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Fields(string(b))
		if i == 0 {
			if len(got) != 0 {
				t.Errorf("zsh: %q offers %q, want nothing", line, got)
			}
			continue
		}
		if want := completionCases[i-1].want; !slices.Contains(got, want) {
			t.Errorf("zsh: %q offers %q, want %q among them", line, got, want)
		}
	}
}

// TestFishCompletion checks the syntax of every generated fish script
// and asks fish for the completions of partial command lines.
func TestFishCompletion(t *testing.T) {
	fish := needShell(t, "fish")
	files, _ := filepath.Glob(filepath.Join("completion", "fish", "*.fish"))
	if len(files) != 5 {
		t.Fatalf("fish completion files: %v, want 5", files)
	}
	for _, f := range files {
		runShell(t, fish, "--no-config", "-n", f)
	}
	for _, c := range append(completionCases, struct{ line, want string }{"mgmt-cluster status --ideal", ""}) {
		tool, _, _ := strings.Cut(c.line, " ")
		script := filepath.Join("completion", "fish", tool+".fish")
		out := runShell(t, fish, "--no-config", "-c", `source $argv[1]; complete -C $argv[2]`, script, c.line)
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if w, _, _ := strings.Cut(l, "\t"); w != "" {
				got = append(got, w)
			}
		}
		if c.want == "" {
			if len(got) != 0 {
				t.Errorf("fish: %q offers %q, want nothing", c.line, got)
			}
			continue
		}
		if !slices.Contains(got, c.want) {
			t.Errorf("fish: %q offers %q, want %q among them", c.line, got, c.want)
		}
	}
}
