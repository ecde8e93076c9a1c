package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// doubling is a manifest of n lines, each making $aI twice the size of
// $aI-1 through step (a format with two %[1]d for I-1), then last.
func doubling(first, step string, n int, last string) string {
	var b strings.Builder
	b.WriteString("$a0 = " + first + "\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "$a%d = "+step+"\n", i, i-1)
	}
	b.WriteString(fmt.Sprintf(last, n-1) + "\n")
	return b.String()
}

// TestValueLimits: values that a few lines make exponentially larger
// than the manifest stop the compilation at the expression that makes
// them, with the limit named, where Puppet (and this engine before) took
// all of the host's memory. Shared elements ([$a, $a]) are small in
// memory but not as text or parameters.
func TestValueLimits(t *testing.T) {
	const str = "a string longer than 256 MiB: more than the native engine holds"
	const arr = "an array of more than 16777216 elements: more than the native engine holds"
	for _, tc := range []struct{ name, src, want string }{
		{"array +", doubling(`[1, 2]`, `$a%[2]d + $a%[2]d`, 60, `notice(size($a%d))`), "x.pp:25:13: " + arr},
		{"interpolation", doubling(`"ab"`, `"${a%[2]d}${a%[2]d}"`, 60, `notice($a%d)`), "x.pp:29:17: " + str},
		{"text of shared arrays", doubling(`["ab", "cd"]`, `[$a%[2]d, $a%[2]d]`, 60, `notice("${a%d}")`), "x.pp:61:11: " + str},
		{"String() of shared arrays", doubling(`["ab", "cd"]`, `[$a%[2]d, $a%[2]d]`, 60, `notice(String($a%d))`), str},
		{"join of shared arrays", doubling(`["ab", "cd"]`, `[$a%[2]d, $a%[2]d]`, 60, `notice(join($a%d, ""))`), "x.pp:61:8: " + arr},
		{"flatten of shared arrays", doubling(`["ab", "cd"]`, `[$a%[2]d, $a%[2]d]`, 60, `notice(size(flatten($a%d)))`), "x.pp:61:13: " + arr},
		{"parameter of shared arrays", doubling(`["ab", "cd"]`, `[$a%[2]d, $a%[2]d]`, 60, `file { "/x": tag => $a%d }`),
			"a parameter larger than 256 MiB in the graph: more than the native engine holds"},
		{"template output", `notice(inline_template("<% 3000.times do %><%= 'x' * 100000 %><% end %>"))`, str},
		{"ruby string doubling", `notice(inline_template("<% s = 'ab'; 40.times { s = s + s } %><%= s.size %>"))`, "inline_template:1:31: " + str},
		{"integer iteration", `$x = 100000000.map |$i| { $i }`, "x.pp:1:16: map() over 100000000 numbers: more than the native engine visits (16777216)"},
		{"sprintf width", `notice(sprintf("%2000000000s", "a"))`,
			"x.pp:1:8: unsupported by the native engine: sprintf with a width or precision above 1000000"},
		{"sprintf precision", `notice(sprintf("%.99999999999999999999f", 1.5))`, "above 1000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compile(t, tc.src)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v\nwant %s", err, tc.want)
			}
		})
	}
	// Under the limits, the same operations are done as before.
	cat, err := compile(t, doubling(`["ab", "cd"]`, `[$a%[2]d, $a%[2]d]`, 4, `file { "/x": tag => $a%d, content => "${a3}", }`)+
		`notice(sprintf("%5s|%-3d|%.2f", "a", 7, 1.5))`)
	if err != nil {
		t.Fatal(err)
	}
	if got := find(cat, "File[/x]").Params["content"]; got != "[[[[ab, cd], [ab, cd]], [[ab, cd], [ab, cd]]], [[[ab, cd], [ab, cd]], [[ab, cd], [ab, cd]]]]" {
		t.Errorf("content %q", got)
	}
}

// TestHieraAliasesShared: nine lines of YAML aliases of aliases (a
// billion strings if every alias were a copy) are read as Ruby reads them,
// each alias sharing its anchor's value; the value can be looked up and
// measured, and only its text is refused.
func TestHieraAliasesShared(t *testing.T) {
	dir := t.TempDir()
	var data strings.Builder
	data.WriteString(`m::a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "%{facts.fqdn}"]` + "\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&data, "m::a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 9), ", "))
	}
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	os.WriteFile(filepath.Join(dir, "hiera.yaml"), []byte("version: 5\nhierarchy:\n  - name: common\n    path: common.yaml\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "data", "common.yaml"), []byte(data.String()), 0o644)
	opts := Options{Certname: "node1", Facts: map[string]any{"fqdn": "node1"}, EnvironmentDir: dir}

	cat, err := Compile("x.pp", `$x = lookup("m::a9") notify { "n": message => "${size($x)} ${x[8][8][8][8][8][8][8][8][8][8]}" }`, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := find(cat, "Notify[n]").Params["message"]; got != "9 node1" {
		t.Errorf("message %q, want %q", got, "9 node1")
	}
	_, err = Compile("x.pp", `$x = lookup("m::a9") notify { "n": message => "${x}" }`, opts)
	if want := "x.pp:1:50: a string longer than 256 MiB"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
