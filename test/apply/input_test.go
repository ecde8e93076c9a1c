package apply

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestInputNeverRewritten feeds names that cannot be taken as they are:
// bytes that are not UTF-8 and NUL bytes are positioned errors (exit 1,
// nothing created under another name), and no control character from a
// name reaches stderr raw.
func TestInputNeverRewritten(t *testing.T) {
	d := t.TempDir()
	for _, tc := range []struct{ what, doc, want string }{
		{"invalid UTF-8", `{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"file","name":"` + d + "/a\xff\xfeb" + `","params":{"state":"exists"}}]}`,
			`^` + testutil.LogPrefix + `mgmt-apply: -:1:\d+: invalid UTF-8 byte 0xff in string literal`},
		{"lone surrogate", `{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"file","name":"` + d + `/a\udc00","params":{"state":"exists"}}]}`,
			`^` + testutil.LogPrefix + `mgmt-apply: -:1:\d+: invalid \\u escape in string literal: lone surrogate \\udc00`},
		{"NUL", `{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"file","name":"` + d + `/a\u0000b\n\u001b[31mforged","params":{"state":"exists"}}]}`,
			`^` + testutil.LogPrefix + `mgmt-apply: -:1:53: runtime error: file\[.*/a\\x00b\\n\\x1b\[31mforged\]: invalid: path ".*/a\\x00b\\n\\x1b\[31mforged" holds a NUL byte`},
	} {
		r := testutil.Run(t, tc.doc+"\n", "mgmt-apply", "--tmp-prefix", "--converged-timeout", "0")
		if r.Code != 1 {
			t.Errorf("%s: exit %d, want 1:\n%s", tc.what, r.Code, r.Stderr)
		}
		first, _, _ := strings.Cut(r.Stderr, "\n")
		if !regexp.MustCompile(tc.want).MatchString(first) {
			t.Errorf("%s: first line %q does not match %s", tc.what, first, tc.want)
		}
		if strings.ContainsAny(r.Stderr, "\x00\x1b\r") {
			t.Errorf("%s: a raw control character reached stderr: %q", tc.what, r.Stderr)
		}
		if ents, _ := os.ReadDir(d); len(ents) > 0 {
			t.Fatalf("%s: %s was created", tc.what, ents[0].Name())
		}
	}
	// A name logged while the graph runs is escaped the same way.
	name := "n\x00\x1b[31m"
	doc := gdoc(1, []res{ex(name, "exit 3", nil)})
	r := testutil.Run(t, doc, "mgmt-apply", "--tmp-prefix", "--converged-timeout", "0")
	if strings.ContainsAny(r.Stderr, "\x00\x1b") || !strings.Contains(r.Stderr, `exec[n\x00\x1b[31m]: error`) {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Stderr)
	}
}

// TestInputDocumentTooLarge: a producer that starts a document and writes
// without end costs mgmt-apply at most --max-document-mib of memory; the
// document is reported once that much of it is read, the last good graph
// stays enforced while the rest streams by, and the next document is
// applied.
func TestInputDocumentTooLarge(t *testing.T) {
	f := filepath.Join(t.TempDir(), "f")
	p := testutil.Start(t, "mgmt-apply", "--tmp-prefix", "--max-document-mib", "1")
	p.Write(gdoc(1, []res{file(f, P{"content": "one\n"})}))
	p.WaitLog("converged", 0)

	p.Write(`{"mgmt":"graph/v1","graph":"g","seq":2,"resources":[{"kind":"file","name":"` + f + `","params":{"content":"`)
	chunk := strings.Repeat("x", 1<<20)
	for range 8 {
		p.Write(chunk)
	}
	p.WaitLog("-:2:1: document larger than 1 MiB (--max-document-mib): skipped to its end", 0)
	for range 56 { // 64 MiB in all
		p.Write(chunk)
	}
	// Still enforcing graph 1.
	os.WriteFile(f, []byte("drift\n"), 0o644)
	p.Until("the drift repaired", func() bool { b, _ := os.ReadFile(f); return string(b) == "one\n" })

	p.Write("\"}}]}\n" + gdoc(3, []res{file(f, P{"content": "three\n"})}))
	p.Until("graph 3 applied", func() bool { b, _ := os.ReadFile(f); return string(b) == "three\n" })
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Pid()))
	if err != nil {
		t.Fatal(err)
	}
	var hwm int
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			hwm, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	t.Logf("peak RSS %d KiB", hwm)
	if hwm == 0 || hwm > 48<<10 {
		t.Errorf("peak RSS %d KiB after a document of 64 MiB with a limit of 1 MiB", hwm)
	}
	if c := p.Count("document larger than"); c != 1 {
		t.Errorf("the document was reported %d times:\n%s", c, p.Log())
	}
	p.Terminate()
}
