package puppet

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestHieraDataUnreadable: a Hiera data file that exists but cannot be
// read (a directory in its place, or a file its reader may not open) fails
// the lookup at the call, as Puppet's does; only a missing file is a level
// without data, whose lookup takes the default. The native engine used to
// take the default in every case, a catalog Puppet never makes.
func TestHieraDataUnreadable(t *testing.T) {
	dir := testutil.SharedTempDir(t)
	mod := filepath.Join(dir, "modules", "m")
	data := filepath.Join(mod, "data", "common.yaml")
	for _, p := range []string{filepath.Join(mod, "manifests"), filepath.Join(mod, "data")} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(mod, "hiera.yaml"), []byte("---\nversion: 5\nhierarchy:\n  - name: common\n    path: common.yaml\n"), 0o644)
	os.WriteFile(filepath.Join(mod, "manifests", "init.pp"), []byte(`class m { notify { lookup("m::x", undef, undef, "dflt"): } }`+"\n"), 0o644)
	site := filepath.Join(dir, "site.pp")
	os.WriteFile(site, []byte("include m\n"), 0o644)
	native := []string{"--engine", "native", "--modulepath", filepath.Join(dir, "modules"), "--manifest", site}
	at := filepath.Join(mod, "manifests", "init.pp") + ":1:20: Evaluation Error: Error while evaluating a Function Call, could not read " + data + ": "

	// Missing: the default.
	if r := testutil.Run(t, "", "puppet-graph", native...); r.Code != 0 || !strings.Contains(r.Stdout, `"name":"dflt"`) {
		t.Fatalf("no data file: exit %d, want notify[dflt]:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	// Read: its value.
	os.WriteFile(data, []byte("m::x: fromdata\n"), 0o644)
	if r := testutil.Run(t, "", "puppet-graph", native...); r.Code != 0 || !strings.Contains(r.Stdout, `"name":"fromdata"`) {
		t.Fatalf("data file: exit %d, want notify[fromdata]:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	// Unreadable by its reader: the tool run as another user.
	t.Run("unreadable", func(t *testing.T) {
		testutil.NeedRoot(t)
		os.Chmod(data, 0o600)
		tool := filepath.Join(dir, "puppet-graph")
		copyFile(t, testutil.Bin(t, "puppet-graph"), tool)
		if r := testutil.RunAsNobody(t, tool, native...); r.Code != 1 || !strings.Contains(r.Stderr, at+"permission denied") || strings.Contains(r.Stdout, "dflt") {
			t.Errorf("data file unreadable by uid %d: exit %d, want 1 and %q:\n%s%s", testutil.Nobody, r.Code, at+"permission denied", r.Stdout, r.Stderr)
		}
	})
	// A directory in its place.
	os.Remove(data)
	os.Mkdir(data, 0o755)
	if r := testutil.Run(t, "", "puppet-graph", native...); r.Code != 1 || !strings.Contains(r.Stderr, at+"is a directory") {
		t.Errorf("a directory as data file: exit %d, want 1 and %q:\n%s%s", r.Code, at+"is a directory", r.Stdout, r.Stderr)
	}
	// Puppet fails there too, at the same call.
	t.Run("puppet", func(t *testing.T) {
		testneed.Puppet(t)
		r := testutil.Run(t, "", "puppet-graph", "--engine", "puppet", "--modulepath", filepath.Join(dir, "modules"), "--manifest", site)
		if r.Code != 1 || !strings.Contains(r.Stderr, "Is a directory") || !strings.Contains(r.Stderr, filepath.Join(mod, "manifests", "init.pp")+":1:20: ") {
			t.Errorf("Puppet: exit %d, want 1 and its error at init.pp:1:20:\n%s", r.Code, r.Stderr)
		}
	})
}

// TestModuleManifestUnreadable: the class of a module is loaded from the
// first module directory that holds its file; one its reader may not open
// is an error at that file, where the native engine used to load the
// class of the same name from the next directory.
func TestModuleManifestUnreadable(t *testing.T) {
	testutil.NeedRoot(t)
	dir := testutil.SharedTempDir(t)
	first := filepath.Join(dir, "a", "m", "manifests", "init.pp")
	second := filepath.Join(dir, "b", "m", "manifests", "init.pp")
	for _, f := range []string{first, second} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(first, []byte("class m { notify { 'first': } }\n"), 0o600)
	os.WriteFile(second, []byte("class m { notify { 'second': } }\n"), 0o644)
	site := filepath.Join(dir, "site.pp")
	os.WriteFile(site, []byte("include m\n"), 0o644)
	tool := filepath.Join(dir, "puppet-graph")
	copyFile(t, testutil.Bin(t, "puppet-graph"), tool)
	r := testutil.RunAsNobody(t, tool, "--engine", "native", "--modulepath", filepath.Join(dir, "a")+":"+filepath.Join(dir, "b"), "--manifest", site)
	if want := first + ":1:1: could not read: permission denied"; r.Code != 1 || !strings.Contains(r.Stderr, want) || strings.Contains(r.Stdout, "second") {
		t.Errorf("exit %d, want 1 and %q:\n%s%s", r.Code, want, r.Stdout, r.Stderr)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
