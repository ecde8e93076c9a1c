package puppet

import (
	"encoding/json"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
)

// translateOne translates a catalog holding one resource of type typ and
// returns its graph resource.
func translateOne(t *testing.T, typ, title string, params map[string]any) *graph.Resource {
	t.Helper()
	c := &catalog.Catalog{Name: "n", Resources: []*catalog.Resource{
		{Type: catalog.CapitalizeType(typ), Title: title, Kind: catalog.KindCompilable, Params: params},
	}}
	doc, _, err := Translate(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Resources {
		if r.Kind != "noop" {
			return r
		}
	}
	t.Fatal("no resource")
	return nil
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestExecForms checks the exact translation of Puppet's exec forms: a
// line runs in /bin/sh, an argv array runs without a shell (or, with a
// relative program and a path, with every word quoted), and onlyif/unless
// lists of lines and argv arrays become one subshell condition each.
func TestExecForms(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params map[string]any
		want   map[string]any // expected output parameters (subset)
		absent []string       // parameters that must not be set
		pippet bool
	}{
		{"line", map[string]any{"command": "/bin/echo a b"},
			map[string]any{"cmd": "/bin/echo a b", "shell": "/bin/sh", "unsetenv": []any{"HOME", "USER", "LOGNAME"}}, []string{"args"}, false},
		{"environment sets HOME again", map[string]any{"command": "/bin/true", "environment": []any{"HOME=/srv"}},
			map[string]any{"env": map[string]any{"HOME": "/srv"}, "unsetenv": []any{"HOME", "USER", "LOGNAME"}}, nil, false},
		{"argv", map[string]any{"command": []any{"/bin/mkdir", "-p", "/tmp/a dir"}},
			map[string]any{"cmd": "/bin/mkdir", "args": []any{"-p", "/tmp/a dir"}}, []string{"shell"}, false},
		{"argv one word with a space", map[string]any{"command": []any{"/opt/my prog"}},
			map[string]any{"cmd": "'/opt/my prog'", "shell": "/bin/sh"}, nil, false},
		{"argv relative with path", map[string]any{"command": []any{"mkdir", "-p", "it's"}, "path": []any{"/bin", "/usr/bin"}},
			map[string]any{"cmd": `'mkdir' '-p' 'it'\''s'`, "shell": "/bin/sh", "env": map[string]any{"PATH": "/bin:/usr/bin"}}, nil, false},
		{"argv relative without path", map[string]any{"command": []any{"mkdir", "x"}}, nil, nil, true},
		{"line relative without path", map[string]any{"command": "mkdir x"}, nil, nil, true},
		{"nested onlyif", map[string]any{"command": "/bin/true", "onlyif": []any{[]any{"/usr/bin/test", "-e", "/f g"}}},
			map[string]any{"ifcmd": `('/usr/bin/test' '-e' '/f g')`, "ifshell": "/bin/sh"}, nil, false},
		{"onlyif and unless lists", map[string]any{"command": "/bin/true",
			"onlyif": []any{"/bin/a # comment", []any{"/bin/b", "x"}}, "unless": "/bin/c; exit 1"},
			map[string]any{"ifcmd": "(\n/bin/a # comment\n) && ('/bin/b' 'x') && ! (\n/bin/c; exit 1\n)"}, nil, false},
		{"environment overrides path", map[string]any{"command": "/bin/true", "path": "/bin:/sbin", "environment": []any{"PATH=/x", "A=b=c"}},
			map[string]any{"env": map[string]any{"PATH": "/x", "A": "b=c"}}, nil, false},
		{"returns other codes", map[string]any{"command": "/bin/true", "returns": []any{int64(0), int64(2)}}, nil, nil, true},
		{"returns zero", map[string]any{"command": "/bin/true", "returns": []any{int64(0)}}, map[string]any{"cmd": "/bin/true"}, nil, false},
		{"user and group", map[string]any{"command": "/bin/true", "user": "nobody", "group": "nogroup"},
			map[string]any{"user": "nobody", "group": "nogroup", "watchinterval": int64(1800)}, []string{"watchcmd", "watchshell"}, false},
		{"refreshonly has no interval", map[string]any{"command": "/bin/true", "refreshonly": true},
			map[string]any{"refreshonly": true}, []string{"watchinterval"}, false},
		{"shell provider with argv", map[string]any{"command": []any{"/bin/true"}, "provider": "shell"}, nil, nil, true},
		{"umask", map[string]any{"command": "/bin/true", "umask": "077"}, nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := translateOne(t, "exec", "e", tc.params)
			if tc.pippet {
				if r.Kind != "pippet" {
					t.Fatalf("want a pippet fallback, got %s %s", r.Kind, asJSON(r.Params))
				}
				var p map[string]any
				json.Unmarshal([]byte(r.Params["params"].(string)), &p)
				if asJSON(p["command"]) != asJSON(tc.params["command"]) {
					t.Errorf("pippet command %s, want %s", asJSON(p["command"]), asJSON(tc.params["command"]))
				}
				return
			}
			if r.Kind != "exec" {
				t.Fatalf("want an exec, got %s %s", r.Kind, asJSON(r.Params))
			}
			for k, v := range tc.want {
				if asJSON(r.Params[k]) != asJSON(v) {
					t.Errorf("%s = %s, want %s", k, asJSON(r.Params[k]), asJSON(v))
				}
			}
			for _, k := range tc.absent {
				if _, ok := r.Params[k]; ok {
					t.Errorf("%s is set: %s", k, asJSON(r.Params[k]))
				}
			}
		})
	}
}
