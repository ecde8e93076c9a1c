package puppet

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
)

// rubyPatterns are file_line patterns as manifests write them, with the
// forms the translation refuses.
var rubyPatterns = []struct {
	src string
	ok  bool
}{
	{`^port=`, true},
	{`^export\ HTTP_PROXY\=`, true},
	{`^\s*PermitRootLogin\s+\S`, true},
	{`^#?\s*PermitRootLogin`, true},
	{`^[^#]*=`, true},
	{`^(foo|bar)\d{2,3}$`, true},
	{`a.*b`, true},
	{`^\w+ = "[a-z]*"$`, true},
	{`[\s]x`, true},
	{`(?:ab)+$`, true},
	{`^$`, true},
	{`é`, true},
	{`^\S+$`, true},
	{`\S\w`, true},
	{`^foo\s`, false},
	{`^foo\s*$`, false},
	{`[^#]*$`, false},
	{`\D$`, false},
	{`x\W`, false},
	{"a\n", false},
	{`foo\z`, false},
	{`foo\Z`, false},
	{`\bword\b`, false},
	{`\hx`, false},
	{`(?i)port`, false},
	{`(?<n>a)`, false},
	{`[[:alpha:]]`, false},
	{`[a&&b]`, false},
	{`a{,3}`, false},
	{`a{`, false},
	{`[]a]`, false},
	{`\p{L}`, false},
	{`(a`, false},
	{``, false},
}

// TestLineRegexpAgainstRuby matches each translated pattern with Go's
// regexp against lines without their newline, and the Ruby pattern with
// real Ruby against the same lines with and without a newline, as the
// provider reads them: the answers must be the same.
func TestLineRegexpAgainstRuby(t *testing.T) {
	ruby := testneed.Command(t, "ruby", "ruby")
	lines := []string{"", "port=80", " port=1", "PermitRootLogin", "PermitRootLogin yes", "  PermitRootLogin\tno", "#PermitRootLogin",
		"foo", "foo ", "foo\t", "foo\v", "foo\r", "a=b # c", "# a=b", "foo12", "bar123", "foo1234", "xab", "ab", "abab",
		"x = \"abc\"", "\vx", " x", "é", "export HTTP_PROXY=x", "word", "wordy", "\v", "\vx\v"}
	var srcs []string
	for _, p := range rubyPatterns {
		goSrc, err := lineRegexp(p.src)
		if (err == nil) != p.ok {
			t.Errorf("lineRegexp(%q) = %q, %v; want accepted %v", p.src, goSrc, err, p.ok)
		}
		if err == nil {
			srcs = append(srcs, p.src)
		}
	}
	in, _ := json.Marshal(map[string]any{"patterns": srcs, "lines": lines})
	script := `require "json"; d = JSON.parse(STDIN.read)
out = d["patterns"].map { |p| r = Regexp.new(p); d["lines"].map { |l| [!!r.match(l + "\n"), !!r.match(l)] } }
puts JSON.generate(out)`
	cmd := exec.CommandContext(t.Context(), ruby, "-e", script)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ruby: %v", err)
	}
	var got [][][2]bool
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(srcs) {
		t.Fatalf("ruby's answer %s: %v", out, err)
	}
	for i, src := range srcs {
		goSrc, _ := lineRegexp(src)
		re := regexp.MustCompile(goSrc)
		for j, l := range lines {
			g := re.MatchString(l)
			if g != got[i][j][0] || g != got[i][j][1] {
				t.Errorf("pattern %q (Go %q) on %q: Go %v, Ruby %v with the newline, %v without", src, goSrc, l, g, got[i][j][0], got[i][j][1])
			}
		}
	}
}
