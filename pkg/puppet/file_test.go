package puppet

import (
	"testing"
)

// TestFileForms checks file translations that must stay exact: an absent
// file manages nothing else, content implies a file, and what our kind
// cannot express goes to pippet.
func TestFileForms(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params map[string]any
		want   string // JSON of the output parameters; "" for a pippet fallback
	}{
		{"absent drops the rest", map[string]any{"ensure": "absent", "content": "x", "mode": "0600", "owner": "root"},
			`{"path":"/f","state":"absent"}`},
		{"content implies a file", map[string]any{"content": "x"}, `{"content":"x","path":"/f","state":"exists"}`},
		{"directory", map[string]any{"ensure": "directory", "mode": "0755"}, `{"mode":"0755","path":"/f/","state":"exists"}`},
		{"local directory source with recurse", map[string]any{"ensure": "directory", "source": "file:///srv//skel/", "recurse": true, "mode": "0644"},
			`{"mode":"0644","path":"/f/","recurse":true,"source":"/srv/skel/","state":"exists"}`},
		{"directory source without recurse", map[string]any{"ensure": "directory", "source": "/srv/skel"}, ""},
		{"source without a mode", map[string]any{"ensure": "file", "source": "/etc/hostname"}, ""},
		{"puppet source", map[string]any{"ensure": "file", "source": "puppet:///modules/m/f", "mode": "0644"}, ""},
		{"numeric mode", map[string]any{"ensure": "file", "mode": int64(420)}, ""},
		{"backup to a bucket", map[string]any{"ensure": "file", "backup": "main"}, ""},
		{"replace false", map[string]any{"ensure": "file", "replace": false}, ""},
		{"validate_cmd", map[string]any{"ensure": "file", "validate_cmd": "/bin/true %"}, ""},
		{"purge", map[string]any{"ensure": "directory", "recurse": true, "purge": true},
			`{"path":"/f/","purge":true,"recurse":true,"state":"exists"}`},
		{"purge without recurse does nothing", map[string]any{"ensure": "directory", "purge": true}, `{"path":"/f/","state":"exists"}`},
		{"purge of a path that may not be a directory", map[string]any{"recurse": true, "purge": true}, ""},
		{"link", map[string]any{"ensure": "link", "target": "../t", "mode": "0644", "owner": "root"},
			`{"owner":"root","path":"/f","source":"../t","state":"exists","symlink":true}`},
		{"link by target", map[string]any{"ensure": "/etc/t"}, `{"path":"/f","source":"/etc/t","state":"exists","symlink":true}`},
		{"link with content", map[string]any{"ensure": "link", "target": "/t", "content": "x"}, ""},
		{"deferred content", map[string]any{"ensure": "file", "content": map[string]any{"__ptype": "Deferred", "name": "f"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := translateOne(t, "file", "/f", tc.params)
			if tc.want == "" {
				if r.Kind != "pippet" {
					t.Fatalf("want a pippet fallback, got %s %s", r.Kind, asJSON(r.Params))
				}
				return
			}
			if r.Kind != "file" || asJSON(r.Params) != tc.want {
				t.Errorf("got %s %s, want file %s", r.Kind, asJSON(r.Params), tc.want)
			}
		})
	}
}
