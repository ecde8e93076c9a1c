// Package mcl holds the end-to-end tests of mcl-compile: real programs run
// through the built tools.
package mcl

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// waitContent waits until path holds want, up to the deadline.
func waitContent(t *testing.T, path, want string, deadline time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		if b, err := os.ReadFile(path); err == nil && string(b) == want {
			return time.Since(start)
		}
		if time.Since(start) > deadline {
			b, _ := os.ReadFile(path)
			t.Fatalf("%s holds %q after %v, want %q", path, b, deadline, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// applyProgram writes prog to dir/main.mcl and runs `mcl-compile main.mcl
// | mgmt-apply --tmp-prefix` until the test ends, when an error mcl-compile
// reported fails the test.
func applyProgram(t *testing.T, dir, prog string) {
	t.Helper()
	bin := testutil.Tools(t)
	if err := os.WriteFile(filepath.Join(dir, "main.mcl"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	compile := exec.Command(filepath.Join(bin, "mcl-compile"), filepath.Join(dir, "main.mcl"))
	apply := exec.Command(filepath.Join(bin, "mgmt-apply"), "--tmp-prefix")
	pipe, err := compile.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var cerr, aerr bytes.Buffer
	compile.Stderr, apply.Stderr, apply.Stdin = &cerr, &aerr, pipe
	if err := compile.Start(); err != nil {
		t.Fatal(err)
	}
	if err := apply.Start(); err != nil {
		compile.Process.Kill()
		compile.Wait()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		compile.Process.Kill()
		apply.Process.Signal(os.Interrupt)
		compile.Wait()
		apply.Wait()
		if strings.Contains(cerr.String(), "error") {
			t.Errorf("mcl-compile reported: %s", cerr.String())
		}
		if t.Failed() {
			t.Logf("mcl-compile stderr:\n%s\nmgmt-apply stderr:\n%s", cerr.String(), aerr.String())
		}
	})
}

// TestReadfileToFile runs `mcl-compile main.mcl | mgmt-apply`: a file
// resource whose content is os.readfile of another file. Editing the source
// file must change the target within a second, without a restart.
func TestReadfileToFile(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src.txt"), filepath.Join(dir, "dst.txt")
	if err := os.WriteFile(src, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	applyProgram(t, dir, `import "os"

file "`+dst+`" {
	state => "exists",
	content => os.readfile("`+src+`"),
}
`)
	waitContent(t, dst, "one\n", 20*time.Second)
	for i, content := range []string{"two\n", "three\nlines\n"} {
		if err := os.WriteFile(src, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		took := waitContent(t, dst, content, time.Second)
		t.Logf("change %d reached the target in %v", i+1, took)
	}
}

// TestReadfileFallbackToFile: a file resource whose content is
// `os.readfile(src) <|> "default"` holds "default" while src is missing,
// src's content once it appears, and "default" again when it is removed,
// all in one run of the pipeline.
func TestReadfileFallbackToFile(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src.txt"), filepath.Join(dir, "dst.txt")
	applyProgram(t, dir, `import "os"

file "`+dst+`" {
	state => "exists",
	content => os.readfile("`+src+`") <|> "default\n",
}
`)
	const deadline = 30 * time.Second
	waitContent(t, dst, "default\n", deadline)
	tmp := filepath.Join(dir, "tmp")
	if err := os.WriteFile(tmp, []byte("recovered\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, src); err != nil {
		t.Fatal(err)
	}
	waitContent(t, dst, "recovered\n", deadline)
	if err := os.Remove(src); err != nil {
		t.Fatal(err)
	}
	waitContent(t, dst, "default\n", deadline)
}
