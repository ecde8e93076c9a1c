package puppet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
)

// testModulePath is a module path holding module m with files/motd and
// files/sub/x.
func testModulePath(t *testing.T) func() ([]string, error) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "m", "files", "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "m", "files", "motd"), []byte("hello from m\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "m", "files", "sub", "x"), []byte("x"), 0o644)
	os.Symlink("motd", filepath.Join(dir, "m", "files", "link"))
	return func() ([]string, error) { return []string{filepath.Join(dir, "none"), dir}, nil }
}

// translateConcat translates a concat_file with its fragments (title:
// params) and returns the concat_file's resource and the log.
func translateConcat(t *testing.T, params map[string]any, frags map[string]map[string]any) (*graph.Resource, string) {
	t.Helper()
	title := "/etc/c.conf"
	if params["path"] != nil {
		title = "title"
	}
	c := &catalog.Catalog{Name: "n", Resources: []*catalog.Resource{
		{Type: "Concat_file", Title: title, Kind: catalog.KindCompilable, Params: params},
	}}
	for _, title := range sortedKeys(frags) {
		c.Resources = append(c.Resources, &catalog.Resource{Type: "Concat_fragment", Title: title, Kind: catalog.KindCompilable, Params: frags[title]})
	}
	var log strings.Builder
	doc, _, err := Translate(c, Options{ModulePath: testModulePath(t), Log: func(l string) { log.WriteString(l + "\n") }})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Resources {
		if r.Kind == "file" || r.Kind == "pippet" && strings.HasPrefix(r.Name, "Concat_file[") {
			return r, log.String()
		}
	}
	t.Fatal("no concat_file resource")
	return nil, ""
}

func frag(order any, content string, kv ...any) map[string]any {
	m := map[string]any{"target": "/etc/c.conf", "content": content}
	if order != nil {
		m["order"] = order
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// TestConcatForms checks the assembly of a concat_file's content and
// what falls back.
func TestConcatForms(t *testing.T) {
	define := map[string]any{"tag": "_etc_c.conf", "path": "/etc/c.conf", "mode": "0644", "backup": "puppet",
		"show_diff": true, "replace": true, "order": "alpha", "ensure_newline": false, "format": "plain", "force": false}
	with := func(kv ...any) map[string]any {
		m := map[string]any{}
		for k, v := range define {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(m, kv[i].(string))
			} else {
				m[kv[i].(string)] = kv[i+1]
			}
		}
		return m
	}
	for _, tc := range []struct {
		name    string
		params  map[string]any
		frags   map[string]map[string]any
		content string // "" with fallback set: pippet
		state   string
		why     string // a part of the fallback reason
	}{
		{name: "alpha order", params: define, frags: map[string]map[string]any{
			"b": frag("10", "B"), "a": frag("10", "A"), "z": frag("9", "Z"), "one": frag("010", "1")}, content: "1ABZ"},
		{name: "numeric order", params: with("order", "numeric"), frags: map[string]map[string]any{
			"b": frag("10", "B"), "a": frag(int64(10), "A"), "z": frag("9", "Z"), "one": frag("011", "1")}, content: "ZAB1"},
		{name: "default order is numeric", params: with("order", nil), frags: map[string]map[string]any{
			"x": frag("100", "X"), "y": frag(nil, "Y")}, content: "YX"},
		{name: "alpha splits at the first two underscores", params: define, frags: map[string]map[string]any{
			"n": frag("1_", "A"), "x": frag("1", "B")}, content: "AB"},
		{name: "numeric names", params: with("order", "numeric"), frags: map[string]map[string]any{
			"10": frag("1", "A"), "9": frag("1", "B")}, content: "BA"},
		{name: "ensure_newline", params: with("ensure_newline", true), frags: map[string]map[string]any{
			"a": frag("1", "a"), "b": frag("2", "b\n"), "c": frag("3", "")}, content: "a\nb\n\n"},
		{name: "by tag", params: define, frags: map[string]map[string]any{
			"a": {"target": "other", "tag": "_etc_c.conf", "content": "T"}, "b": {"target": "other", "content": "no"}}, content: "T"},
		{name: "no fragments", params: define, content: ""},
		{name: "puppet source", params: define, frags: map[string]map[string]any{
			"a": {"target": "/etc/c.conf", "source": "puppet:///modules/m/motd"}, "b": frag("99", "end")}, content: "hello from m\nend"},
		{name: "first source found", params: define, frags: map[string]map[string]any{
			"a": {"target": "/etc/c.conf", "source": []any{"puppet:///modules/m/none", "puppet:///modules/m/sub/x"}}}, content: "x"},
		{name: "absent", params: map[string]any{"ensure": "absent", "tag": "t", "path": "/etc/c.conf", "backup": "puppet"}, state: "absent"},
		{name: "a title that is not the path", params: with("path", "/etc/c.conf"), frags: map[string]map[string]any{
			"a": {"target": "/etc/c.conf", "content": "P"}, "b": {"target": "title", "content": "T"}}, content: "PT"},
		{name: "mixed numeric and string orders", params: with("order", "numeric"), frags: map[string]map[string]any{
			"a": frag("1", "A"), "b": frag("x", "B")}, why: "mix numbers and strings"},
		{name: "equal keys, different content", params: with("order", "numeric"), frags: map[string]map[string]any{
			"5": frag("1", "A"), "05": frag("01", "B")}, why: "sort equal"},
		{name: "json format", params: with("format", "json"), why: "format"},
		{name: "missing source", params: define, frags: map[string]map[string]any{
			"a": {"target": "/etc/c.conf", "source": "puppet:///modules/m/none"}}, why: "none of"},
		{name: "local source", params: define, frags: map[string]map[string]any{
			"a": {"target": "/etc/c.conf", "source": "/etc/hostname"}}, why: "only puppet:///modules"},
		{name: "a source with ..", params: define, frags: map[string]map[string]any{
			"a": {"target": "/etc/c.conf", "source": "puppet:///modules/m/../m/motd"}}, why: ".."},
		{name: "deferred content", params: define, frags: map[string]map[string]any{
			"a": {"target": "/etc/c.conf", "content": map[string]any{"__ptype": "Deferred"}}}, why: "only Puppet can resolve"},
		{name: "replace false", params: with("replace", false), content: ""},
		{name: "replace false when absent: Puppet removes nothing", params: map[string]any{"ensure": "absent", "path": "/etc/c.conf", "backup": "puppet", "replace": false}, why: "replace"},
		{name: "another bucket", params: with("backup", "main"), why: "backup"},
		{name: "a suffix backup", params: with("backup", ".bak"), why: "backup"},
		{name: "seltype", params: with("seltype", "etc_t"), content: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, log := translateConcat(t, tc.params, tc.frags)
			if tc.why != "" {
				if r.Kind != "pippet" || !strings.Contains(log, tc.why) {
					t.Fatalf("want pippet for %q, got %s %s, log %q", tc.why, r.Kind, asJSON(r.Params), log)
				}
				return
			}
			if r.Kind != "file" {
				t.Fatalf("got %s, log %q", r.Kind, log)
			}
			state := tc.state
			if state == "" {
				state = "exists"
			}
			if r.Name != "/etc/c.conf" || r.Params["state"] != state || r.Params["backup"] != "puppet" {
				t.Errorf("got %s %s", r.Name, asJSON(r.Params))
			}
			if c, _ := r.Params["content"].(string); state == "exists" && c != tc.content {
				t.Errorf("content %q, want %q", c, tc.content)
			}
			// the generated file's ensure => file replaces a link
			// at the path (Puppet's links => manage)
			links := "replace"
			switch {
			case state == "absent":
				links = "keep" // a directory there stays, without force
			case r.Params["replace"] == false:
				links = ""
			}
			if l, _ := r.Params["links"].(string); l != links {
				t.Errorf("links %q, want %q", l, links)
			}
		})
	}
}

// TestConcatSharedFragment: a fragment two concat_files collect falls
// back (ensure_newline changes it in place for both, in Puppet's order).
func TestConcatSharedFragment(t *testing.T) {
	c := &catalog.Catalog{Name: "n", Resources: []*catalog.Resource{
		{Type: "Concat_file", Title: "/a", Kind: catalog.KindCompilable, Params: map[string]any{"tag": "t"}},
		{Type: "Concat_file", Title: "/b", Kind: catalog.KindCompilable, Params: map[string]any{"tag": "t"}},
		{Type: "Concat_fragment", Title: "f", Kind: catalog.KindCompilable, Params: map[string]any{"target": "x", "tag": "t", "content": "c"}},
	}}
	doc, st, err := Translate(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Native != 1 || len(doc.Resources) != 3 { // the fragment's noop
		t.Errorf("native %d, resources %d, reasons %v", st.Native, len(doc.Resources), st.Reasons)
	}
}

// TestFilePuppetSource: a file's puppet:///modules source becomes its
// content, read from the module path.
func TestFilePuppetSource(t *testing.T) {
	for _, tc := range []struct {
		name   string
		source any
		want   string // content; "" for pippet
	}{
		{"module file", "puppet:///modules/m/motd", "hello from m\n"},
		{"first that exists", []any{"puppet:///modules/m/nope", "puppet:///modules/m/sub/x"}, "x"},
		{"missing", "puppet:///modules/m/nope", ""},
		{"another server", "puppet://srv/modules/m/motd", ""},
		{"another mount", "puppet:///files/motd", ""},
		{"a directory", "puppet:///modules/m/sub", ""},
		{"escapes", "puppet:///modules/m/mo%74d", ""},
		{"a link", "puppet:///modules/m/link", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &catalog.Catalog{Name: "n", Resources: []*catalog.Resource{
				{Type: "File", Title: "/f", Kind: catalog.KindCompilable, Params: map[string]any{"ensure": "file", "source": tc.source}},
			}}
			doc, _, err := Translate(c, Options{ModulePath: testModulePath(t)})
			if err != nil {
				t.Fatal(err)
			}
			r := doc.Resources[0]
			if tc.want == "" {
				if r.Kind != "pippet" {
					t.Fatalf("got %s %s, want pippet", r.Kind, asJSON(r.Params))
				}
				return
			}
			if r.Kind != "file" || r.Params["content"] != tc.want || r.Params["source"] != nil {
				t.Errorf("got %s %s", r.Kind, asJSON(r.Params))
			}
		})
	}
}

// TestFileBackupAndValidate: backup => 'puppet' is the local bucket, other
// backups fall back; validate_cmd carries over.
func TestFileBackupAndValidate(t *testing.T) {
	tr := func(params map[string]any, extra ...*catalog.Resource) *graph.Resource {
		c := &catalog.Catalog{Name: "n", Resources: append([]*catalog.Resource{
			{Type: "File", Title: "/f", Kind: catalog.KindCompilable, Params: params}}, extra...)}
		doc, _, err := Translate(c, Options{ModulePath: testModulePath(t)})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range doc.Resources {
			if strings.Contains(r.Name, "/f") {
				return r
			}
		}
		t.Fatal("no file")
		return nil
	}
	r := tr(map[string]any{"ensure": "file", "content": "x", "backup": "puppet", "validate_cmd": "/usr/sbin/visudo -cf @", "validate_replacement": "@"})
	if want := `{"backup":"puppet","content":"x","links":"replace","path":"/f","state":"exists","validate_cmd":"/usr/sbin/visudo -cf @","validate_replacement":"@"}`; asJSON(r.Params) != want {
		t.Errorf("got %s %s, want %s", r.Kind, asJSON(r.Params), want)
	}
	// the compilation's puppet.conf goes with it: the applying host's
	// Puppet finds its clientbucketdir there
	c := &catalog.Catalog{Name: "n", Resources: []*catalog.Resource{
		{Type: "File", Title: "/f", Kind: catalog.KindCompilable, Params: map[string]any{"ensure": "file", "content": "x", "backup": "puppet"}}}}
	doc, _, err := Translate(c, Options{Puppet: PuppetEnv{Conf: "/etc/mine.conf"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"backup":"puppet","backup_puppetconf":"/etc/mine.conf","content":"x","links":"replace","path":"/f","state":"exists"}`; asJSON(doc.Resources[0].Params) != want {
		t.Errorf("got %s, want %s", asJSON(doc.Resources[0].Params), want)
	}
	for _, p := range []map[string]any{
		{"ensure": "file", "backup": "puppet", "force": true},
		{"ensure": "directory", "backup": "puppet"},
		{"ensure": "file", "backup": ".orig"},
		{"ensure": "file", "backup": "main"},
		{"ensure": "file", "validate_cmd": ""},
	} {
		if r := tr(p); r.Kind != "pippet" {
			t.Errorf("%v: got %s %s, want pippet", p, r.Kind, asJSON(r.Params))
		}
	}
	if r := tr(map[string]any{"ensure": "file", "backup": "puppet"}, &catalog.Resource{Type: "Filebucket", Title: "puppet", Kind: catalog.KindCompilable, Params: map[string]any{"path": false}}); r.Kind != "pippet" {
		t.Errorf("a declared bucket: got %s", r.Kind)
	}
	if r := tr(map[string]any{"source": "puppet:///modules/m/motd"}); asJSON(r.Params) != `{"content":"hello from m\n","links":"replace","path":"/f","state":"exists"}` {
		t.Errorf("a module source without ensure: got %s %s", r.Kind, asJSON(r.Params))
	}
	if r := tr(map[string]any{"ensure": "absent", "backup": "false", "validate_cmd": "x %"}); asJSON(r.Params) != `{"links":"keep","path":"/f","state":"absent"}` {
		t.Errorf("absent: got %s %s", r.Kind, asJSON(r.Params))
	}
}
