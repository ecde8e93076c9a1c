package resources

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

func TestParseJSONEdit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		path []string
		del  bool
		val  string
	}{
		{`.a = 1`, []string{"a"}, false, `1`},
		{`.a.b="x"`, []string{"a", "b"}, false, `"x"`},
		{` .a["b c"].d = {"x": [1, 2]} `, []string{"a", "b c", "d"}, false, `{"x": [1, 2]}`},
		{`.["k"] = null`, []string{"k"}, false, `null`},
		{`.a.["b"] = true`, []string{"a", "b"}, false, `true`},
		{`.["\u00e9\"q"] = 1.50`, []string{"é\"q"}, false, `1.50`},
		{`del(.a.b)`, []string{"a", "b"}, true, ``},
		{`del( .["x"] )`, []string{"x"}, true, ``},
		{`._x9 = 1e400`, []string{"_x9"}, false, `1e400`},
	} {
		e, err := parseJSONEdit(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if !slices.Equal(e.path, tc.path) || e.del != tc.del || string(e.value) != tc.val {
			t.Errorf("%q: got path %q del %v value %s", tc.in, e.path, e.del, e.value)
		}
	}
	for in, want := range map[string]string{
		``:              "column 1: want a path",
		`a = 1`:         "column 1: want a path",
		`. = 1`:         "column 2: want a name",
		`.a. = 1`:       "column 4: want a name",
		`.1 = 1`:        "column 2: want a name",
		`.a = `:         "want a JSON value",
		`.a = 1 2`:      "exactly one JSON value",
		`.a = {`:        "bad JSON value",
		`.a 1`:          "want '='",
		`.[""] = 1`:     "empty key",
		`.["a] = 1`:     "unterminated",
		`.[a] = 1`:      "want a JSON string",
		`.["a" = 1`:     "want ']'",
		`del(.a`:        "want ')'",
		`del(.a) x`:     "after del",
		`.a[0] = 1`:     "want a JSON string",
		`.a | .b = 1`:   "want '='",
		`.["\x"] = 1`:   "bad JSON string",
		`delete(.a)`:    "want '('",
		`.a = "x"garb`:  "exactly one",
		"del(.a)\n.b=1": "after del",
	} {
		_, err := parseJSONEdit(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", in, err, want)
		}
	}
}

func newJSONEdit(t testing.TB, h *harness, store string, edits ...string) *JSONEditRes {
	t.Helper()
	return setup(t, h, "json:edit", store, &JSONEditRes{Edits: edits}).(*JSONEditRes)
}

func TestJSONEditFile(t *testing.T) {
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "conf.json")
	mustWrite(t, p, `{"keep": {"n": 10000000000000000000001, "f": 1.50}, "gone": 1, "x": {"y": 2}}`)
	j := newJSONEdit(t, h, "file://"+p, `.a.b["c d"] = [1, "<&>"]`, `del(.gone)`, `del(.x.nothing)`, `del(.missing.deep)`, `.x.y = {"z": null}`)
	checkApply(t, j, false, false)
	checkApply(t, j, true, false)
	want := "{\n\t\"a\": {\n\t\t\"b\": {\n\t\t\t\"c d\": [\n\t\t\t\t1,\n\t\t\t\t\"<&>\"\n\t\t\t]\n\t\t}\n\t},\n" +
		"\t\"keep\": {\n\t\t\"f\": 1.50,\n\t\t\"n\": 10000000000000000000001\n\t},\n\t\"x\": {\n\t\t\"y\": {\n\t\t\t\"z\": null\n\t\t}\n\t}\n}\n"
	if got := mustRead(t, p); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	checkApply(t, j, true, true)
}

// TestJSONEditFormattingAlone checks that a file whose value is already
// right is never rewritten, however it is formatted.
func TestJSONEditFormattingAlone(t *testing.T) {
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "conf.json")
	orig := "{ \"b\":1,\n  \"a\" : {\"c\":true} }"
	mustWrite(t, p, orig)
	fi, _ := os.Stat(p)
	j := newJSONEdit(t, h, p, `.a.c = true`, `.b = 1`)
	checkApply(t, j, true, true)
	fi2, _ := os.Stat(p)
	if mustRead(t, p) != orig || !os.SameFile(fi, fi2) {
		t.Fatal("a file with the right value was rewritten")
	}
}

func TestJSONEditKeepsModeAndOwner(t *testing.T) {
	testutil.NeedRoot(t)
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "conf.json")
	mustWrite(t, p, `{}`)
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o604); err != nil {
		t.Fatal(err)
	}
	j := newJSONEdit(t, h, p, `.a = 1`)
	checkApply(t, j, true, false)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if perm, uid, gid := statBits(fi); perm != 0o604 || uid != 65534 || gid != 65534 {
		t.Fatalf("mode %04o owner %d:%d", perm, uid, gid)
	}
}

func TestJSONEditErrors(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]string{
		`[1]`:         "holds an array, not a JSON object",
		`null`:        "holds null",
		`{} {}`:       "data after",
		``:            "empty",
		`{"a": 1`:     "not valid JSON",
		`{"a": 5}`:    ".a is a number, not an object",
		`{"a": "s"} `: ".a is a string",
	} {
		h := newHarness(t)
		p := filepath.Join(dir, "f.json")
		mustWrite(t, p, content)
		j := newJSONEdit(t, h, p, `.a.b = 1`)
		if _, err := j.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", content, err, want)
		}
		if got := mustRead(t, p); got != content {
			t.Errorf("%q: the file changed to %q", content, got)
		}
	}
	h := newHarness(t)
	j := newJSONEdit(t, h, filepath.Join(dir, "missing.json"), `.a = 1`)
	if _, err := j.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing file: got %v", err)
	}
}

func TestJSONEditValidate(t *testing.T) {
	for store, want := range map[string]string{
		"rel.json":                "want an absolute path",
		"file://host/x.json":      "no host",
		"file:///x.json?q=1":      "no host, query",
		"etcd:///":                "names no key",
		"etcd://h/k":              "no host",
		"http:///x":               "want an absolute path",
		"/dir/":                   "names a directory",
		"file:///a/../b.json":     "not clean",
		"etcd:///k#frag":          "fragment",
		"mailto:someone@example":  "want file",
		"/ok.json\x00":            "",
		"etcd:///ok/key":          "",
		"file:///ok/file.json":    "",
		"/also/ok.json":           "",
		"etcd:///with%20space/ok": "",
	} {
		j := &JSONEditRes{Store: store, Edits: []string{".a = 1"}}
		err := j.Validate()
		if want == "" {
			continue // only checked not to panic
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", store, err, want)
		}
	}
	if err := (&JSONEditRes{Store: "/x.json"}).Validate(); err == nil || !strings.Contains(err.Error(), "edits is empty") {
		t.Errorf("no edits: %v", err)
	}
	if err := (&JSONEditRes{Store: "/x.json", Edits: []string{".a = 1", "oops"}}).Validate(); err == nil || !strings.Contains(err.Error(), `edits[1] "oops"`) {
		t.Errorf("bad edit: %v", err)
	}
	j := &JSONEditRes{Store: "etcd:///a/b", Edits: []string{".a = 1"}}
	if err := j.Validate(); err != nil || j.key != "a/b" {
		t.Fatalf("etcd store: key %q, %v", j.key, err)
	}
	h := newHarness(t)
	if err := j.Init(h.init()); err == nil || !strings.Contains(err.Error(), "needs the world") {
		t.Fatalf("etcd store without a world: %v", err)
	}
}

func TestJSONEditWatch(t *testing.T) {
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "conf.json")
	mustWrite(t, p, `{}`)
	j := newJSONEdit(t, h, p, `.a = 1`)
	startWatch(t, h, j)
	checkApply(t, j, true, false)
	expectEvent(t, h, "edit", func() { mustWrite(t, p, `{"a": 2}`) })
	checkApply(t, j, true, false)
}
