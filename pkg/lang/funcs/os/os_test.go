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

// fakeRoot returns an environment whose system files are read under a
// temporary directory holding files (path -> content).
func fakeRoot(t *testing.T, files map[string]string) *funcs.Env {
	t.Helper()
	dir := t.TempDir()
	for p, s := range files {
		write(t, filepath.Join(dir, p), s)
	}
	return &funcs.Env{Root: dir}
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

func call(t *testing.T, env *funcs.Env, name string, args ...values.Value) (values.Value, error) {
	t.Helper()
	f, ok := funcs.Lookup("os", name)
	if !ok {
		t.Fatalf("os.%s not registered", name)
	}
	return f.Impl(context.Background(), &funcs.Call{Type: f.Sigs[0], Args: args, Env: env})
}

func TestRelease(t *testing.T) {
	env := fakeRoot(t, map[string]string{"etc/os-release": "ID=fedora\nVARIANT_ID=server\nVERSION_ID=39\n"})
	v, err := call(t, env, "release")
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
		v, err := call(t, &funcs.Env{}, "parse_distro_uid", values.Str(in))
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
		if got := isVirtual(fakeRoot(t, tc.files)); got != tc.want {
			t.Errorf("case %d: got %v, want %v", i, got, tc.want)
		}
	}
}

func TestUsers(t *testing.T) {
	v, err := call(t, &funcs.Env{}, "home", values.Str("root"))
	if err != nil || v != values.Str("/root") {
		t.Errorf("home(root) = %v, %v", v, err)
	}
	v, err = call(t, &funcs.Env{}, "uid", values.Str("root"))
	if err != nil || v != values.Str("0") {
		t.Errorf("uid(root) = %v, %v", v, err)
	}
	for _, name := range []string{"home", "uid"} {
		if _, err := call(t, &funcs.Env{}, name, values.Str("no-such-user-x1")); !funcs.IsCatchable(err) {
			t.Errorf("%s of an unknown user: got %v, want a catchable error", name, err)
		}
	}
}

// stream runs os.<name>(arg) in env and returns its emissions.
func stream(t *testing.T, env *funcs.Env, name string, arg string) <-chan values.Value {
	t.Helper()
	f, _ := funcs.Lookup("os", name)
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan values.Value, 100)
	done := make(chan error, 1)
	c := &funcs.Call{Type: f.Sigs[0], Args: []values.Value{values.Str(arg)}, Env: env}
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
	env := fakeRoot(t, map[string]string{"etc/passwd": "root:x:0:0:root:/root:/bin/sh\n"})
	dir := env.Root
	ch := stream(t, env, "user_exists", "alice")
	want(t, ch, values.Bool(false))
	write(t, filepath.Join(dir, "etc/passwd"), "root:x:0:0:root:/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n")
	want(t, ch, values.Bool(true))
	write(t, filepath.Join(dir, "etc/passwd"), "root:x:0:0:root:/root:/bin/sh\n")
	want(t, ch, values.Bool(false))
}

func TestModinfoLoaded(t *testing.T) {
	env := fakeRoot(t, map[string]string{"proc/modules": "ext4 1 0 - Live 0x0\n"})
	env.Poll = 5 * time.Millisecond
	ch := stream(t, env, "modinfo_loaded", "snd-hda")
	want(t, ch, values.Bool(false))
	write(t, filepath.Join(env.Root, "proc/modules"), "ext4 1 0 - Live 0x0\nsnd_hda 2 1 - Live 0x0\n")
	want(t, ch, values.Bool(true))
}

// TestRootIsTheHost: an environment with a Root reads that tree only; the
// user database of the machine running the test (which has root) is not
// consulted for it, while the zero environment is this host.
func TestRootIsTheHost(t *testing.T) {
	env := fakeRoot(t, map[string]string{"etc/passwd": "alice:x:1000:1000::/home/alice:/bin/sh\n"})
	want(t, stream(t, env, "user_exists", "root"), values.Bool(false))
	want(t, stream(t, &funcs.Env{}, "user_exists", "root"), values.Bool(true))
	if got := (&funcs.Env{}).HostPath("/etc/passwd"); got != "/etc/passwd" {
		t.Errorf("HostPath without a root: %q", got)
	}
	if got := env.HostPath("/etc/passwd"); got != filepath.Join(env.Root, "etc/passwd") {
		t.Errorf("HostPath under %s: %q", env.Root, got)
	}
}
