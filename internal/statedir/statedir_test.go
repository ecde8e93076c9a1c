package statedir

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestForUser(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, c := range []struct {
		euid int
		env  map[string]string
		want string
	}{
		{0, map[string]string{"HOME": "/root", "XDG_STATE_HOME": "/x"}, "/var/lib/mgmt"},
		{1000, map[string]string{"HOME": "/home/a", "XDG_STATE_HOME": "/x/state"}, "/x/state/mgmt"},
		{1000, map[string]string{"HOME": "/home/a", "XDG_STATE_HOME": "relative"}, "/home/a/.local/state/mgmt"},
		{1000, map[string]string{"HOME": "/home/a"}, "/home/a/.local/state/mgmt"},
		{1000, map[string]string{"HOME": "/"}, ""},
		{1000, map[string]string{}, ""},
	} {
		got, err := forUser(c.euid, env(c.env))
		if got != c.want || (err != nil) != (c.want == "") {
			t.Errorf("uid %d %v: got %q, %v; want %q", c.euid, c.env, got, err, c.want)
		}
	}
}

func TestPrepare(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	d := filepath.Join(t.TempDir(), "a", "b")
	if err := Prepare(d); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{d, filepath.Dir(d)} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want mode 0700", p, fi.Mode(), err)
		}
	}
	if err := Prepare(d); err != nil {
		t.Errorf("preparing it again: %v", err)
	}
	if err := os.Chmod(d, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := Prepare(d); err == nil || !strings.Contains(err.Error(), "lets other users write it") {
		t.Errorf("a world-writable state directory: got %v", err)
	}
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o600)
	if err := Prepare(f); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file: got %v", err)
	}
	if os.Geteuid() == 0 {
		o := filepath.Join(t.TempDir(), "other")
		os.Mkdir(o, 0o700)
		if err := os.Chown(o, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := Prepare(o); err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
			t.Errorf("another user's directory: got %v", err)
		}
	}
}
