package puppet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
)

// TestFileForms checks file translations that must stay exact: an absent
// file manages nothing else, content implies a file, and what our kind
// cannot express goes to pippet.
func TestFileForms(t *testing.T) {
	checkForms(t, "file", "/f", []formCase{
		{"absent drops the rest", map[string]any{"ensure": "absent", "content": "x", "mode": "0600", "owner": "root"},
			`{"links":"keep","path":"/f","state":"absent"}`},
		{"absent with force", map[string]any{"ensure": "absent", "force": true}, `{"force":true,"path":"/f","state":"absent"}`},
		{"content implies a file", map[string]any{"content": "x"}, `{"content":"x","links":"replace","path":"/f","state":"exists"}`},
		// Puppet's links => manage: a link at the path is replaced by a
		// file or directory, and left by ensure => present or no ensure.
		{"present keeps a link", map[string]any{"ensure": "present", "content": "x"}, `{"content":"x","links":"keep","path":"/f","state":"exists"}`},
		{"no ensure keeps a link", map[string]any{"owner": "root", "mode": "0600"}, `{"links":"keep","mode":"0600","owner":"root","path":"/f"}`},
		{"links manage said", map[string]any{"ensure": "file", "links": "manage"}, `{"links":"replace","path":"/f","state":"exists"}`},
		{"links follow", map[string]any{"ensure": "file", "links": "follow"}, ""},
		{"directory", map[string]any{"ensure": "directory", "mode": "0755"}, `{"force":true,"links":"replace","mode":"0755","path":"/f/","state":"exists"}`},
		// Puppet gives a directory search wherever a numeric mode gives
		// read; a symbolic mode is applied as written.
		{"directory with a mode without search", map[string]any{"ensure": "directory", "mode": "2640"}, `{"force":true,"links":"replace","mode":"2750","path":"/f/","state":"exists"}`},
		{"directory with a symbolic mode", map[string]any{"ensure": "directory", "mode": "u=rw,go=r"}, `{"force":true,"links":"replace","mode":"u-x+rw,go-wx+r","path":"/f/","state":"exists"}`},
		{"file with a mode without search", map[string]any{"ensure": "file", "mode": "0644"}, `{"links":"replace","mode":"0644","path":"/f","state":"exists"}`},
		// With recurse the file kind gives the directories search (the
		// mode stays as written, for the files).
		{"local directory source with recurse", map[string]any{"ensure": "directory", "source": "file:///srv//skel/", "recurse": true, "mode": "0644"},
			`{"force":true,"links":"replace","mode":"0644","path":"/f/","recurse":true,"source":"/srv/skel/","state":"exists"}`},
		{"directory source without recurse", map[string]any{"ensure": "directory", "source": "/srv/skel"}, ""},
		{"source without a mode", map[string]any{"ensure": "file", "source": "/etc/hostname"}, ""},
		{"puppet source without Puppet's settings", map[string]any{"ensure": "file", "source": "puppet:///modules/m/f", "mode": "0644"}, ""},
		{"numeric mode", map[string]any{"ensure": "file", "mode": int64(420)}, ""},
		{"backup to a bucket", map[string]any{"ensure": "file", "backup": "main"}, ""},
		{"replace false", map[string]any{"ensure": "file", "content": "x", "replace": false, "mode": "0644"},
			`{"content":"x","mode":"0644","path":"/f","replace":false,"state":"exists"}`},
		{"replace true", map[string]any{"ensure": "file", "replace": true}, `{"links":"replace","path":"/f","state":"exists"}`},
		{"replace false on a directory", map[string]any{"ensure": "directory", "replace": false}, ""},
		{"replace false on a link", map[string]any{"ensure": "link", "target": "/t", "replace": false}, ""},
		{"replace false when absent: Puppet removes nothing", map[string]any{"ensure": "absent", "replace": false}, ""},
		{"SELinux parts and no defaults", map[string]any{"ensure": "file", "seltype": "etc_t", "seluser": "system_u", "selrole": "object_r", "selrange": "s0", "selinux_ignore_defaults": true},
			`{"links":"replace","path":"/f","selrange":"s0","selrole":"object_r","seltype":"etc_t","seluser":"system_u","state":"exists"}`},
		{"selinux_ignore_defaults of another value", map[string]any{"ensure": "file", "selinux_ignore_defaults": "maybe"}, ""},
		{"validate_cmd", map[string]any{"ensure": "file", "validate_cmd": "/bin/true %"}, `{"links":"replace","path":"/f","state":"exists","validate_cmd":"/bin/true %"}`},
		// without force Puppet's purge keeps the directories
		{"purge with force", map[string]any{"ensure": "directory", "recurse": true, "purge": true, "force": true},
			`{"force":true,"links":"replace","path":"/f/","purge":true,"recurse":true,"state":"exists"}`},
		{"force on a file", map[string]any{"ensure": "file", "force": true}, `{"force":true,"links":"replace","path":"/f","state":"exists"}`},
		{"purge", map[string]any{"ensure": "directory", "recurse": true, "purge": true},
			`{"force":true,"links":"replace","path":"/f/","purge":true,"purge_dirs":false,"recurse":true,"state":"exists"}`},
		{"purge without recurse does nothing", map[string]any{"ensure": "directory", "purge": true}, `{"force":true,"links":"replace","path":"/f/","state":"exists"}`},
		{"purge of a path that may not be a directory", map[string]any{"recurse": true, "purge": true}, ""},
		{"link", map[string]any{"ensure": "link", "target": "../t", "mode": "0644", "owner": "root"},
			`{"links":"replace","owner":"root","path":"/f","source":"../t","state":"exists","symlink":true}`},
		{"link by target", map[string]any{"ensure": "/etc/t"}, `{"links":"replace","path":"/f","source":"/etc/t","state":"exists","symlink":true}`},
		{"link with content", map[string]any{"ensure": "link", "target": "/t", "content": "x"}, ""},
		{"deferred content", map[string]any{"ensure": "file", "content": map[string]any{"__ptype": "Deferred", "name": "f"}}, ""},
		{"show_diff false", map[string]any{"ensure": "file", "content": "x", "show_diff": false},
			`{"content":"x","links":"replace","path":"/f","show_diff":false,"state":"exists"}`},
		{"show_diff true", map[string]any{"ensure": "file", "content": "x", "show_diff": true}, `{"content":"x","links":"replace","path":"/f","state":"exists"}`},
		{"show_diff of another type", map[string]any{"ensure": "file", "show_diff": "maybe"}, ""},
	})
}

// A formCase is a resource's parameters and the JSON of the output
// parameters of its translation, "" for a pippet fallback.
type formCase struct {
	name   string
	params map[string]any
	want   string
}

// checkForms translates a resource of type typ titled title with each
// case's parameters and checks the result: a resource of the type's kind
// with the wanted parameters, or pippet.
func checkForms(t *testing.T, typ, title string, cases []formCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := translateOne(t, typ, title, tc.params)
			if tc.want == "" {
				if r.Kind != "pippet" {
					t.Fatalf("want a pippet fallback, got %s %s", r.Kind, asJSON(r.Params))
				}
				return
			}
			if r.Kind != mappings[typ].kind || asJSON(r.Params) != tc.want {
				t.Errorf("got %s %s, want %s %s", r.Kind, asJSON(r.Params), mappings[typ].kind, tc.want)
			}
		})
	}
}

// TestFileSensitive: a Sensitive content translates to a file with
// show_diff false; another Sensitive parameter still goes to pippet, and
// no message quotes a Sensitive value.
func TestFileSensitive(t *testing.T) {
	translate := func(params map[string]any, sensitive ...string) (*graph.Resource, string) {
		c := &catalog.Catalog{Name: "n", Resources: []*catalog.Resource{
			{Type: "File", Title: "/f", Kind: catalog.KindCompilable, Params: params, Sensitive: sensitive},
		}}
		var log strings.Builder
		doc, _, err := Translate(c, Options{Log: func(l string) { log.WriteString(l + "\n") }})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range doc.Resources {
			if r.Kind != "noop" {
				return r, log.String()
			}
		}
		t.Fatal("no resource")
		return nil, ""
	}
	r, _ := translate(map[string]any{"ensure": "file", "content": "s3cret"}, "content")
	if want := `{"content":"s3cret","links":"replace","path":"/f","show_diff":false,"state":"exists"}`; r.Kind != "file" || asJSON(r.Params) != want {
		t.Errorf("Sensitive content: got %s %s, want file %s", r.Kind, asJSON(r.Params), want)
	}
	r, _ = translate(map[string]any{"ensure": "file", "content": "x", "owner": "s3cret-owner"}, "owner")
	if r.Kind != "pippet" {
		t.Errorf("Sensitive owner: got %s, want pippet", r.Kind)
	}
	r, log := translate(map[string]any{"ensure": "file", "content": []any{"s3cret-list"}}, "content")
	if r.Kind != "pippet" || strings.Contains(log, "s3cret") || !strings.Contains(log, "content => (a Sensitive value)") {
		t.Errorf("Sensitive content of another type: got %s, log %q", r.Kind, log)
	}
}

// TestFileSourceLink: a local source that is a symbolic link goes to
// pippet (Puppet's links => manage copies the link itself); its target as
// source translates.
func TestFileSourceLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("target", link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		src, kind string
	}{{link, "pippet"}, {target, "file"}} {
		r := translateOne(t, "file", "/f", map[string]any{"ensure": "file", "source": tc.src, "mode": "0644"})
		if r.Kind != tc.kind {
			t.Errorf("source %s: got %s %s, want %s", tc.src, r.Kind, asJSON(r.Params), tc.kind)
		}
	}
}

// TestPuppetMode: Puppet's symbolic modes in the file kind's form, or
// refused where the two cannot agree (test/puppet compares the bits with
// puppet apply's).
func TestPuppetMode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"0644", "0644"}, {"644", "644"}, {"7", "7"},
		{"u=rw,go=r", "u-x+rw,go-wx+r"},
		{"=r", "-wx+r"}, {"o=", "o-rwx"}, {"u=rwx", "u+rwx"},
		{"u+r=w", "u+r-rx+w"}, {"go-w", "go-w"}, {"a+X", "a+X"}, {"g+X,o-r", "g+X,o-r"},
		// refused: Puppet differs from chmod(1) or fails
		{"u=rwX", ""}, {"a-X", ""}, {"a+x,go+X", ""}, {"u+s", ""}, {"+t", ""}, {"g=u", ""},
		{"u=rw, go=r", ""}, {"u=rw,", ""}, {"u", ""}, {"00644", "00644"}, {"0855", ""},
	} {
		got, ok := puppetMode(tc.in)
		if !ok {
			got = ""
		}
		if got != tc.want {
			t.Errorf("%q: got %q (%v), want %q", tc.in, got, ok, tc.want)
		}
	}
}
