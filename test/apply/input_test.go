package apply

import (
	"os"
	"regexp"
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
