package os

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// fakeRoot makes the package read its system files under a temporary
// directory holding files (path -> content).
func fakeRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, s := range files {
		write(t, filepath.Join(dir, p), s)
	}
	old := root
	root = dir
	t.Cleanup(func() { root = old })
	return dir
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}

func call(t *testing.T, name string, args ...values.Value) (values.Value, error) {
	t.Helper()
	f, ok := funcs.Lookup("os", name)
	if !ok {
		t.Fatalf("os.%s not registered", name)
	}
	return f.Impl(context.Background(), &funcs.Call{Type: f.Sigs[0], Args: args, Env: &funcs.Env{}})
}

func TestRelease(t *testing.T) {
	fakeRoot(t, map[string]string{"etc/os-release": "ID=fedora\nVARIANT_ID=server\nVERSION_ID=39\n"})
	v, err := call(t, "release")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.String(), `struct{id => "fedora", variant_id => "server", version_id => "39"}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestParseDistroUID(t *testing.T) {
	tests := map[string]string{
		"fedora39-x86_64":    `struct{distro => "fedora", version => "39", arch => "x86_64"}`,
		"debian-12-aarch64":  `struct{distro => "debian", version => "12", arch => "aarch64"}`,
		"ubuntu22.04-x86_64": `struct{distro => "ubuntu", version => "22.04", arch => "x86_64"}`,
		"fedora-x86_64":      "",
		"39-x86_64":          "",
		"":                   "",
		"a-b-c-d":            "",
		"Fedora39-x86_64":    "",
	}
	for in, want := range tests {
		v, err := call(t, "parse_distro_uid", values.Str(in))
		if want == "" {
			if !funcs.IsCatchable(err) {
				t.Errorf("%q: got %v, %v; want a catchable error", in, v, err)
			}
			continue
		}
		if err != nil || v.String() != want {
			t.Errorf("%q: got %v, %v; want %s", in, v, err, want)
		}
	}
}

func TestIsVirtual(t *testing.T) {
	tests := []struct {
		files map[string]string
		want  bool
	}{
		{map[string]string{"proc/cpuinfo": "processor\t: 0\nflags\t\t: fpu vme hypervisor sse\n"}, true},
		{map[string]string{"proc/cpuinfo": "flags\t\t: fpu vme sse\n", "sys/class/dmi/id/sys_vendor": "QEMU\n"}, true},
		{map[string]string{"proc/cpuinfo": "flags\t\t: fpu vme sse\n", "sys/class/dmi/id/sys_vendor": "Dell Inc.\n"}, false},
		{map[string]string{}, false},
	}
	for i, tc := range tests {
		fakeRoot(t, tc.files)
		if got := IsVirtual(); got != tc.want {
			t.Errorf("case %d: got %v, want %v", i, got, tc.want)
		}
	}
}

func TestUsers(t *testing.T) {
	v, err := call(t, "home", values.Str("root"))
	if err != nil || v != values.Str("/root") {
		t.Errorf("home(root) = %v, %v", v, err)
	}
	v, err = call(t, "uid", values.Str("root"))
	if err != nil || v != values.Str("0") {
		t.Errorf("uid(root) = %v, %v", v, err)
	}
	for _, name := range []string{"home", "uid"} {
		if _, err := call(t, name, values.Str("no-such-user-x1")); !funcs.IsCatchable(err) {
			t.Errorf("%s of an unknown user: got %v, want a catchable error", name, err)
		}
	}
}

// stream runs os.<name>(arg) and returns its emissions.
func stream(t *testing.T, name string, arg string) <-chan values.Value {
	t.Helper()
	f, _ := funcs.Lookup("os", name)
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan values.Value, 100)
	done := make(chan error, 1)
	c := &funcs.Call{Type: f.Sigs[0], Args: []values.Value{values.Str(arg)}, Env: &funcs.Env{}}
	go func() { done <- f.Stream(ctx, c, func(v values.Value) { ch <- v }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return ch
}

func want(t *testing.T, ch <-chan values.Value, w values.Value) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case v := <-ch:
			if values.Equal(v, w) {
				return
			}
		case <-deadline:
			t.Fatalf("timed out waiting for %s", w)
		}
	}
}

func TestUserExists(t *testing.T) {
	dir := fakeRoot(t, map[string]string{"etc/passwd": "root:x:0:0:root:/root:/bin/sh\n"})
	ch := stream(t, "user_exists", "alice")
	want(t, ch, values.Bool(false))
	write(t, filepath.Join(dir, "etc/passwd"), "root:x:0:0:root:/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n")
	want(t, ch, values.Bool(true))
	write(t, filepath.Join(dir, "etc/passwd"), "root:x:0:0:root:/root:/bin/sh\n")
	want(t, ch, values.Bool(false))
}

func TestModinfoLoaded(t *testing.T) {
	dir := fakeRoot(t, map[string]string{"proc/modules": "ext4 1 0 - Live 0x0\n"})
	old := pollModules
	pollModules = 5 * time.Millisecond
	t.Cleanup(func() { pollModules = old })
	ch := stream(t, "modinfo_loaded", "snd-hda")
	want(t, ch, values.Bool(false))
	write(t, filepath.Join(dir, "proc/modules"), "ext4 1 0 - Live 0x0\nsnd_hda 2 1 - Live 0x0\n")
	want(t, ch, values.Bool(true))
}
