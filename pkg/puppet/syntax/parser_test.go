package syntax

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseExamples(t *testing.T) {
	files, _ := filepath.Glob("../testdata/examples/*.pp")
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(f, string(src)); err != nil {
			t.Errorf("%v", err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`file { "/x": ensure => }`, `x.pp:1:24: syntax error: unexpected "}"`},
		{"$x = @(\"END\"/t)\nx\nEND\n", "x.pp:1:6: unsupported by the native engine: heredoc escape flags (compile with real Puppet: --engine puppet)"},
		{"$x = @(END)\nx\n", "x.pp:1:6: syntax error: heredoc has no end line 'END'"},
		{`file { "/x": ensure => file`, `x.pp:1:28: syntax error: expected "}", got end of file`},
		{`"abc`, `x.pp:1:1: unterminated string`},
		{`class foo { `, `x.pp:1:13: syntax error: unexpected end of file, expected "}"`},
		{`notice("${x")`, `x.pp:1:8: unterminated string`},
		// the lexer's error comes first even when the parser fails
		// before it reaches it, and even with a long valid part between
		{"file { =>\n" + strings.Repeat("notify { 'a': }\n", 20000) + "\"abc", `x.pp:20002:1: unterminated string`},
		// positions deep in a large file: the parser's and the lexer's
		// errors, each after many batches of tokens
		{strings.Repeat("notify { 'a': }\n", 20000) + "file { '/x': ensure => }", `x.pp:20001:24: syntax error: unexpected "}"`},
		{strings.Repeat("notify { 'a': }\n", 20000) + "notify { 'b': message => 'x' }\n$x = ^", "x.pp:20002:6: unexpected character '^'"},
		{strings.Repeat("notify { 'a': }\n", 20000) + "$x = \"${y\"\n", `x.pp:20001:6: unterminated string`},
	} {
		_, err := Parse("x.pp", tc.src)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %s", tc.src, err, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`file { "/x": ensure => file }`, `class a($b = 1) { notify { "${b}": } }`,
		`$x = $y ? { /a/ => 1, default => 2 }`, `case $x { "a", "b": {} default: {} }`,
		"$a = @(X) + @(\"Y\")\n a\n | X\nb ${c}\n-Y\n", `[1].each |$x| { notice($x) }`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		Parse("fuzz.pp", src) // must not panic
	})
}

// FuzzParseDepth repeats an opening construct up to 20,000 times: the
// parser ends with an error past its limits, never with a stack overflow
// (TestNativeDeepInput in test/puppet checks the errors).
func FuzzParseDepth(f *testing.F) {
	for _, s := range []string{"[", "(", "{a => ", "if true { ", "1 + ", "notify { 'a': } -> ", "-", "!", "$y ? { default => "} {
		f.Add(s, uint16(5000))
	}
	f.Fuzz(func(t *testing.T, open string, n uint16) {
		if open == "" || len(open) > 32 {
			return
		}
		src := "$x = " + strings.Repeat(open, int(n)%20000) + "1"
		Parse("fuzz.pp", src) // must not panic or overflow the stack
	})
}
