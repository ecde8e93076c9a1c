// Package testutil helps the end-to-end tests under test/: it builds the
// project's tools once per test binary and runs them.
package testutil

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
	buildOut  []byte
)

// Root returns the project's root directory.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Shared returns the path of ../shared beside the project, or "" if absent.
func Shared() string {
	p := filepath.Join(Root(), "..", "shared")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// NeedShared returns the path of ../shared beside the project; without it
// the test fails in CI (CI=true) and is skipped elsewhere (see Need).
func NeedShared(t testing.TB) string {
	t.Helper()
	p := Shared()
	Need(t, p != "", "../shared beside the project (the shared corpora and examples)")
	return p
}

// Tools builds all five tools (once per test binary) and returns the
// directory holding them.
func Tools(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		touchSources()
		sweepTools()
		binDir, buildErr = os.MkdirTemp("", toolsPrefix)
		if buildErr != nil {
			return
		}
		// the test process that owns the build, for sweepTools
		if buildErr = os.WriteFile(filepath.Join(binDir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o600); buildErr != nil {
			return
		}
		// As the Makefile builds them: static (internal/account).
		cmd := exec.Command("go", "build", "-o", binDir+string(os.PathSeparator), "./cmd/...")
		cmd.Dir = Root()
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("building the tools: %v\n%s", buildErr, buildOut)
	}
	return binDir
}

const (
	toolsPrefix = "mgmt-e2e-bin-"
	ownerFile   = ".owner-pid"
)

// sweepTools removes the tool builds of test processes that have ended: a
// test binary cannot remove its own at exit (it has no hook after its last
// test), and each build takes some 170 MB of the temporary directory.
func sweepTools() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), toolsPrefix+"*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err != nil {
			continue // being made, or made by an older version: left alone
		}
		pid, err := strconv.Atoi(string(b))
		if err != nil || pid <= 0 {
			continue
		}
		if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
			os.RemoveAll(d)
		}
	}
}

// touchSources stats every Go source file and go.mod/go.sum of the
// project. go test records the files a test looks at, so a cached result
// of an end-to-end test is reused only while the code the tools are built
// from is unchanged (the build itself runs in a child process, which go
// test does not see).
func touchSources() {
	root := Root()
	filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if e.IsDir() {
			if n := e.Name(); p != root && (n == "bin" || n == "testdata" || n[0] == '.') {
				return filepath.SkipDir
			}
			return nil
		}
		if n := e.Name(); filepath.Ext(n) == ".go" || n == "go.mod" || n == "go.sum" {
			os.Stat(p)
		}
		return nil
	})
}

// Bin returns the path of one built tool.
func Bin(t testing.TB, tool string) string {
	t.Helper()
	return filepath.Join(Tools(t), tool)
}

// LogPrefix matches the time and level that start each line of a tool's
// log in the default text form ("2025-06-01T12:00:00.123Z ERROR  "), for
// patterns anchored at the start of a line: `^` + LogPrefix + `mgmt-apply: `.
const LogPrefix = `\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d) (DEBUG|INFO|NOTICE|WARN|ERROR) +`

// Result is what a finished tool run left behind.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs a built tool with args and stdin to completion.
func Run(t testing.TB, stdin string, tool string, args ...string) Result {
	t.Helper()
	return RunWith(t, nil, stdin, tool, args...)
}

// RunWith is Run with the command handed to prepare (when not nil) before
// it starts: to set its environment or its user, say.
func RunWith(t testing.TB, prepare func(*exec.Cmd), stdin string, tool string, args ...string) Result {
	t.Helper()
	cmd := exec.Command(Bin(t, tool), args...)
	if prepare != nil {
		prepare(cmd)
	}
	cmd.Stdin = bytes.NewBufferString(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running %s: %v", tool, err)
		}
		code = ee.ExitCode()
	}
	return Result{Stdout: out.String(), Stderr: errb.String(), Code: code}
}

// SyncBuffer is a bytes.Buffer safe for concurrent writers and readers,
// for a running process's output.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Need checks that a part a test needs is there (ok): when it is not, the
// test fails in CI (CI=true), where every part must be installed, and is
// skipped elsewhere, saying what is missing.
func Need(t testing.TB, ok bool, what string) {
	t.Helper()
	if ok {
		return
	}
	testneed.Missing(t, "missing: %s", what)
}
