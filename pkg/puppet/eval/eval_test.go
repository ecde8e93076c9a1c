package eval

import (
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
)

func compile(t *testing.T, src string) (*catalog.Catalog, error) {
	t.Helper()
	return Compile("x.pp", src, Options{Certname: "node1", Facts: map[string]any{"fqdn": "node1"}})
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`file { "/a": } file { "/a": }`, "x.pp:1:23: Duplicate declaration: File[/a] is already declared at x.pp:1:8"},
		{`include nosuch`, "x.pp:1:1: Could not find class ::nosuch"},
		{`$x = 1 $x = 2`, "x.pp:1:8: cannot reassign variable '$x'"},
		{`class a($p) {} include a`, "expects a value for parameter 'p'"},
		{`define d() {} d { "x": bogus => 1 }`, "has no parameter named 'bogus'"},
		{`$x = "a" ? { "b" => 1 }`, "x.pp:1:10: No matching entry for selector parameter with value 'a'"},
		{`node "other" {}`, "Could not find node statement with name 'default' or 'node1'"},
		{`notice(foo())`, "x.pp:1:8: Unknown function: 'foo'"},
		{`$x = String notice("${x}")`, "x.pp:1:23: unsupported by the native engine: interpolating a Type (compile with real Puppet: --engine puppet)"},
		{`file { "/a": before => File["/b"] }`, "Could not find resource 'File[/b]'"},
		{`File["/a"] -> File["/b"]`, "x.pp:1:15: Could not find resource 'File[/a]' for relationship"},
		{`$x = 1 / 0`, "x.pp:1:8: division by 0"},
		{`notice(template("nomod/x.erb"))`, "Could not find template 'nomod/x.erb'"},
		{`class { "a": } class a {} class { "a": }`, "Duplicate declaration: Class[A] is already declared"},
		{`notice(inline_template("<%= foo %>"))`, "unsupported by the native engine: Ruby in a template: the method foo"},
		{`define d() { d { "${title}x": } } d { "a": }`, "endless recursion?"},
		// the template's own line and column, past multi-line comments, tags and text of any length
		{`notice(inline_template("a\nbb <%= 1 %> <%# c\nd %>\n <%- z = 1 -%>\n  <% if true %>x<% end; x = \$y %>"))`,
			"inline_template:5:29: unsupported by the native engine: Ruby in a template: global variables"},
		{`notice(inline_template("<%= [1].map { |i| i } %> <%= \$x %>"))`, "inline_template:1:30: unsupported by the native engine: Ruby in a template: global variables"},
		{`notice(inline_template("<%= %W(a b) %>"))`, "inline_template:1:5: unsupported by the native engine: Ruby in a template: %-literals other than %w"},
		{`notice(inline_template("<%= %w(a\\ b) %>"))`, "a backslash in a %w literal"},
		{`notice(inline_template("<%= %w<a b %>"))`, "an unterminated %w literal"},
		{`notice(inline_epp('<% if $x { %>'))`, "inline_epp:1:12: syntax error: unexpected end of file"},
		// numbers Puppet does not read
		{`$x = 1_000`, `x.pp:1:6: bad number "1_000"`},
		{`$x = 0b101`, `x.pp:1:6: bad number "0b101"`},
		{`$x = 0o17`, `x.pp:1:6: bad number "0o17"`},
		{`$x = 1e+3`, `x.pp:1:6: bad number "1e"`},
		{`$x = 09`, `x.pp:1:6: bad number "09"`},
		{`notice("${1.5}")`, `x.pp:1:11: illegal numeric variable name "1.5"`},
		// the top scope's variables are read, never assigned or declared, with ::
		{`$::x = 1`, "x.pp:1:1: cannot assign to a qualified variable $::x"},
		{`class c($::p) {}`, "x.pp:1:9: syntax error: a parameter name cannot be qualified: $::p"},
	} {
		_, err := compile(t, tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.src, err, tc.want)
		}
	}
}

func find(c *catalog.Catalog, ref string) *catalog.Resource {
	for _, r := range c.Resources {
		if r.Ref() == ref {
			return r
		}
	}
	return nil
}

func TestValues(t *testing.T) {
	c, err := compile(t, `
$h = { "a" => [1, 2], "b" => { "c" => true } }
$s = "${h['a'][1]}-${h['b']['c']}-${facts['fqdn']}"
notify { "n": message => $s }
file { "/f": mode => 0644, content => inline_template("<% @h['a'].each do |i| -%>[<%= i %>]<% end -%><%= @s %>") }
file { "/g": content => inline_epp('<%- | $x = 3 | -%><% if $x > 2 { %>big<% } else { %>small<% } %>') }
`)
	if err != nil {
		t.Fatal(err)
	}
	if got := find(c, "Notify[n]").Params["message"]; got != "2-true-node1" {
		t.Errorf("message = %v", got)
	}
	f := find(c, "File[/f]")
	if f.Params["mode"] != int64(420) || f.Params["content"] != "[1][2]2-true-node1" {
		t.Errorf("File[/f] params = %v", f.Params)
	}
	if got := find(c, "File[/g]").Params["content"]; got != "big" {
		t.Errorf("epp = %q", got)
	}
}

func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		`file { "/x": ensure => file }`,
		`class a($b = 1) { notify { "${b}": } } include a`,
		`$x = [1, 2] notify { "${x[0]}": } File["/a"] -> File["/b"]`,
		`case $facts['os']['family'] { /De/: { notice($0) } default: {} }`,
		`define d($v = 1) { file { "/d/${title}": } } d { ["a", "b"]: }`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		Compile("fuzz.pp", src, Options{Certname: "n"}) // must not panic
	})
}

// TestCollectByTag collects by tag across the main class, whose container
// is itself.
func TestCollectByTag(t *testing.T) {
	c, err := compile(t, `
file { "/x": }
@file { "/v": tag => "a" }
File <| tag == "a" |> { mode => "0600" }
`)
	if err != nil {
		t.Fatal(err)
	}
	if f := find(c, "File[/v]"); f == nil || f.Params["mode"] != "0600" {
		t.Errorf("File[/v] = %v", f)
	}
	if f := find(c, "File[/x]"); f == nil || f.Params["mode"] != nil {
		t.Errorf("File[/x] = %v", f)
	}
}

// TestTemplateRegexpMatch checks Regexp#match in ERB: nil when nothing
// matches (or the value is nil), a MatchData (its to_s the match) when
// something does.
func TestTemplateRegexpMatch(t *testing.T) {
	c, err := compile(t, `$x = "abc"
notify { "n": message => inline_template("<% if /^z/.match(@x) || /^y/.match(@nosuch) -%>y<% else -%>n<% end -%>") }`)
	if err != nil {
		t.Fatal(err)
	}
	if got := find(c, "Notify[n]").Params["message"]; got != "n" {
		t.Errorf("message = %v", got)
	}
	c, err = compile(t, `$x = "abc" notify { "n": message => inline_template("<%= /^a/.match(@x) %>") }`)
	if err != nil {
		t.Fatal(err)
	}
	if got := find(c, "Notify[n]").Params["message"]; got != "a" {
		t.Errorf("message = %v", got)
	}
}

// TestFilePathSpelling checks that File["/a/"] is File["/a"], as in
// Puppet: defined() finds it, a second declaration is a duplicate, and a
// reference through the other spelling is refused.
func TestFilePathSpelling(t *testing.T) {
	c, err := compile(t, `file { "/a": } if defined(File["/a/"]) { notify { "yes": } }`)
	if err != nil || find(c, "Notify[yes]") == nil {
		t.Errorf("defined(File[/a/]): %v", err)
	}
	for src, want := range map[string]string{
		`file { "/a": } file { "/a/": }`:                        `x.pp:1:23: Cannot alias File[/a/] to ["/a"]; resource ["File", "/a"] already declared`,
		`file { "/a": } notify { "n": require => File["/a/"] }`: "unsupported by the native engine: a reference to File[/a] as File[/a/]",
	} {
		if _, err := compile(t, src); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %s", src, err, want)
		}
	}
}

// TestTemplateWords checks %w literals in ERB: words split on white space,
// nested paired delimiters kept in a word, any other delimiter.
func TestTemplateWords(t *testing.T) {
	c, err := compile(t, `notify { "n": message => inline_template("<% %w(a  b\n(c) d).each do |w| -%>[<%= w %>]<% end -%><%= %w|x y|.join('+') %><%= %w[].size %>") }`)
	if err != nil {
		t.Fatal(err)
	}
	if got := find(c, "Notify[n]").Params["message"]; got != "[a][b][(c)][d]x+y0" {
		t.Errorf("message = %v", got)
	}
}

// TestTemplateSelfHolding checks Ruby arrays that hold themselves: inspect
// writes [...] for the inner one and == holds, as in Ruby; flatten and
// join, which Ruby refuses, are refused. None may exhaust the stack.
func TestTemplateSelfHolding(t *testing.T) {
	for _, tc := range []struct{ code, want string }{
		{"<% a = []; a << a -%><%= a.inspect %>", "[[...]]"},
		{"<% a = []; a << a -%><%= a %>", "[[...]]"},
		{"<% a = [1]; a << a -%><%= a == a %>", "true"},
	} {
		c, err := compile(t, `notify { "n": message => inline_template("`+tc.code+`") }`)
		if err != nil {
			t.Errorf("%s: %v", tc.code, err)
			continue
		}
		if got := find(c, "Notify[n]").Params["message"]; got != tc.want {
			t.Errorf("%s: got %v, want %s", tc.code, got, tc.want)
		}
	}
	for _, code := range []string{"<% a = []; a << a -%><%= a.flatten.size %>", "<% a = []; a << a -%><%= a.join(',') %>"} {
		_, err := compile(t, `notify { "n": message => inline_template("`+code+`") }`)
		if err == nil || !strings.Contains(err.Error(), "flattening an array that holds itself") {
			t.Errorf("%s: got %v, want a refusal", code, err)
		}
	}
}
