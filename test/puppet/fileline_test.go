package puppet

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// TestFileLineAgainstPuppet applies stdlib's file_line two ways on copies
// of the same files: natively, as the line resources puppet-graph
// translates it to (every case must translate), and by real Puppet
// through pippet resources. The files must end up byte for byte the same.
func TestFileLineAgainstPuppet(t *testing.T) {
	testneed.Puppet(t)
	testneed.Path(t, "/usr/share/puppet/modules/stdlib", "puppet-module-puppetlabs-stdlib")
	dir := t.TempDir()
	cases := []struct {
		name, before string
		params       map[string]any // file_line's parameters but path
	}{
		{"append", "a=1\n", pl("present", "port=80")},
		{"append after a last line without a newline", "a=1\nb=2", pl("present", "port=80")},
		{"already there", "a=1\nport=80\nb=2\n", pl("present", "port=80")},
		{"spaces count", "a=1\n port=80\n", pl("present", "port=80")},
		{"remove every copy", "port=80\na=1\nport=80\nb\n", pl("absent", "port=80")},
		{"remove nothing", "a=1\n", pl("absent", "port=80")},
		{"remove the last line without a newline", "a=1\nport=80", pl("absent", "port=80")},
		{"empty file", "", pl("present", "x")},
		{"CR LF line there", "a=1\r\nport=80\r\n", pl("present", "port=80")},
		{"CR LF last line there", "a=1\r\nport=80\r", pl("present", "port=80")},
		{"CR LF line removed", "port=80\r\na=1\r\n", pl("absent", "port=80")},
		{"match with a CR LF line there", "port=81\r\nport=80\r\n", pl("present", "port=81", "match", "^port=")},
		{"match replaces a CR LF line", "a\r\nport=80\r\n", pl("present", "port=81", "match", "^port=")},
		{"match replaces", "a=1\nport=80\nb=2\n", pl("present", "port=81", "match", "^port=")},
		{"match on a last line without a newline", "a=1\nport=80", pl("present", "port=81", "match", "^port=")},
		{"match elsewhere adds the final newline", "port=80\nb=2", pl("present", "port=81", "match", "^port=")},
		{"match finds nothing", "a=1", pl("present", "port=81", "match", "^port=")},
		{"match with the line there", "port=81\nport=80\n", pl("present", "port=81", "match", "^port=")},
		{"match with spaces", "a\n  PermitRootLogin yes\n", pl("present", "PermitRootLogin no", "match", `^\s*PermitRootLogin\s+\S`)},
		{"match multiple", "port=1\nx\nport=2\n", pl("present", "port=3", "match", "^port=", "multiple", true)},
		{"replace false keeps a match", "port=1\n", pl("present", "port=3", "match", "^port=", "replace", false)},
		{"replace false adds without a match", "a\n", pl("present", "port=3", "match", "^port=", "replace", false)},
		{"append_on_no_match false", "a\n", pl("present", "port=3", "match", "^port=", "append_on_no_match", false)},
		{"append_on_no_match false, a match", "port=1\n", pl("present", "port=3", "match", "^port=", "append_on_no_match", false)},
		{"all matches not matching the line", "port=3\nport=1\n",
			pl("present", "port=3", "match", "^port=", "multiple", true, "replace_all_matches_not_matching_line", true)},
		{"match and after", "[a]\nx\n[a]\n", pl("present", "port=3", "match", "^port=", "after", `^\[a\]$`)},
		{"match and after, a match", "[a]\nport=1\n", pl("present", "port=3", "match", "^port=", "after", `^\[a\]$`)},
		{"after", "[main]\nx=1\n", pl("present", "port=3", "after", `^\[main\]`)},
		{"after on a last line without a newline", "x\n[main]", pl("present", "port=3", "after", `^\[main\]`)},
		{"after finds nothing", "x", pl("present", "port=3", "after", `^\[main\]`)},
		{"after each", "[m]\nx\n[m]\n", pl("present", "p", "after", `^\[m\]`, "multiple", true)},
		{"after, the line there", "[m]\n[m]\np\n", pl("present", "p", "after", `^\[m\]`)},
		{"absent by match", "a\nport=1\nb", pl("absent", nil, "match", "^port=", "match_for_absence", true)},
		{"absent by match, the last line", "a\nport=1", pl("absent", nil, "match", "^port=", "match_for_absence", true)},
		{"absent by match, multiple", "port=1\nx\nport=2\n", pl("absent", "ignored", "match", "^port=", "match_for_absence", true, "multiple", true)},
		{"absent by match, none", "x\nport\n", pl("absent", "port", "match", "^port=", "match_for_absence", true)},
		{"absent ignores match otherwise", "port=80\nport=1\n", pl("absent", "port=80", "match", "^port=")},
	}
	var pp strings.Builder
	var viaPuppet []*graph.Resource
	for i, c := range cases {
		for _, side := range []string{"native", "puppet"} {
			f := filepath.Join(dir, fmt.Sprintf("%s-%d", side, i))
			if err := os.WriteFile(f, []byte(c.before), 0o644); err != nil {
				t.Fatal(err)
			}
			params := map[string]any{"path": f}
			maps.Copy(params, c.params)
			if side == "native" {
				fmt.Fprintf(&pp, "file_line { %s:", puppetString(f))
				for _, k := range slices.Sorted(maps.Keys(params)) {
					v := params[k]
					if s, ok := v.(string); ok && k != "ensure" {
						v = puppetString(s)
					}
					fmt.Fprintf(&pp, " %s => %v,", k, v)
				}
				pp.WriteString(" }\n")
				continue
			}
			js, _ := json.Marshal(params)
			viaPuppet = append(viaPuppet, &graph.Resource{Kind: "pippet", Name: "File_line[" + f + "]", Params: map[string]any{
				"type": "file_line", "title": f, "params": string(js), "modulepath": "/usr/share/puppet/modules"}})
		}
	}
	doc := translateNative(t, dir, pp.String(), "line")
	doc.Resources = append(doc.Resources, viaPuppet...)
	applyGraph(t, doc)
	for i, c := range cases {
		got, err1 := os.ReadFile(filepath.Join(dir, fmt.Sprintf("native-%d", i)))
		want, err2 := os.ReadFile(filepath.Join(dir, fmt.Sprintf("puppet-%d", i)))
		if err1 != nil || err2 != nil || string(got) != string(want) {
			t.Errorf("%s: native %q (%v), Puppet %q (%v)", c.name, got, err1, want, err2)
		}
	}
}

// pl returns file_line's parameters: ensure, line (none when nil) and
// then pairs of a name and a value.
func pl(ensure string, line any, kv ...any) map[string]any {
	m := map[string]any{"ensure": ensure}
	if line != nil {
		m["line"] = line
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// puppetString quotes s as a single-quoted Puppet string.
func puppetString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
