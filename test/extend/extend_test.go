// Package extend tests examples/extend: a Go module outside the project
// that registers its own resource kind and functions and builds its own
// tools from the public pkg/tool packages.
package extend

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// build builds the example module's tools into a temporary directory.
func build(t *testing.T) string {
	t.Helper()
	testutil.Tools(t) // records the sources, so a cached result is reused only while they are unchanged
	bin := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin+string(os.PathSeparator), "./cmd/...")
	cmd.Dir = filepath.Join(testutil.Root(), "examples", "extend")
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building examples/extend: %v\n%s", err, out)
	}
	return bin
}

// TestExtendingModule: the example's acme-compile knows the acme
// functions and the acme:stamp kind, its acme-apply makes the stamp file,
// and both keep the project's flags, kinds and functions.
func TestExtendingModule(t *testing.T) {
	bin := build(t)
	dir := t.TempDir()
	prog := filepath.Join(testutil.Root(), "examples", "extend", "main.mcl")

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	compile := exec.CommandContext(ctx, filepath.Join(bin, "acme-compile"), "--once", "--var", "dir="+dir, prog)
	apply := exec.CommandContext(ctx, filepath.Join(bin, "acme-apply"), "--converged-timeout", "0", "--tmp-prefix")
	var cerr, aerr strings.Builder
	compile.Stderr, apply.Stderr = &cerr, &aerr
	pipe, err := compile.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	apply.Stdin = pipe
	if err := compile.Start(); err != nil {
		t.Fatal(err)
	}
	if err := apply.Start(); err != nil {
		t.Fatal(err)
	}
	aErr, cErr := apply.Wait(), compile.Wait()
	if aErr != nil || cErr != nil {
		t.Fatalf("acme-compile: %v\n%s\nacme-apply: %v\n%s", cErr, cerr.String(), aErr, aerr.String())
	}
	got, err := os.ReadFile(filepath.Join(dir, "stamp"))
	if err != nil {
		t.Fatalf("the stamp was not made: %v\n%s", err, aerr.String())
	}
	if string(got) != "== HELLO!!! ==\n" {
		t.Fatalf("the stamp holds %q", got)
	}

	// The functions' signatures are checked like the project's own.
	r := testutil.RunWith(t, func(c *exec.Cmd) { c.Path = filepath.Join(bin, "acme-compile") }, "import \"acme\"\n$x = acme.repeat(\"a\", \"b\")\n", "mcl-compile", "--check", "-")
	if r.Code != 1 || !strings.Contains(r.Stderr, "<stdin>:2:6: type error: call of acme.repeat") {
		t.Fatalf("a bad call: exit %d, stderr %s", r.Code, r.Stderr)
	}
	// The project's kinds stay, beside the new one; the stock tool does
	// not know it.
	r = testutil.RunWith(t, func(c *exec.Cmd) { c.Path = filepath.Join(bin, "acme-apply") }, "", "mgmt-apply", "--list-kinds")
	if r.Code != 0 || !strings.Contains(r.Stdout, "acme:stamp") || !strings.Contains(r.Stdout, "\nfile") {
		t.Fatalf("acme-apply --list-kinds: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r = testutil.Run(t, "", "mgmt-apply", "--list-kinds")
	if strings.Contains(r.Stdout, "acme:stamp") {
		t.Fatal("the stock mgmt-apply lists acme:stamp")
	}
}
