// Package testneed lets a test say what it needs from the machine (a
// command, a Debian package, a directory). Locally a missing part skips
// the test with the reason; in CI (CI=true in the environment) it fails
// the test, so that a missing install never passes silently.
package testneed

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// Missing skips t with the reason, or fails it in CI.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("needed in CI: %s", msg)
	}
	t.Skip(msg)
}

// Command returns the path of command name, which Debian package pkg
// provides.
func Command(t testing.TB, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, "%s is not installed (apt-get install %s)", name, pkg)
	}
	return p
}

// Puppet requires Debian's Puppet (puppet and its ruby).
func Puppet(t testing.TB) {
	t.Helper()
	Command(t, "puppet", "puppet")
	Command(t, "ruby", "puppet")
}

// Path requires a file or directory, which Debian package pkg provides.
func Path(t testing.TB, path, pkg string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		Missing(t, "%s is missing (apt-get install %s)", path, pkg)
	}
}
