package puppet

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestFileLineAgainstPuppet applies stdlib's file_line two ways on copies
// of the same files: natively, as the line resources puppet-graph
// translates it to, and by real Puppet through pippet resources. The files
// must end up byte for byte the same.
func TestFileLineAgainstPuppet(t *testing.T) {
	testneed.Puppet(t)
	testneed.Path(t, "/usr/share/puppet/modules/stdlib", "puppet-module-puppetlabs-stdlib")
	dir := t.TempDir()
	cases := []struct {
		name, before, ensure, line string
	}{
		{"append", "a=1\n", "present", "port=80"},
		{"append after a last line without a newline", "a=1\nb=2", "present", "port=80"},
		{"already there", "a=1\nport=80\nb=2\n", "present", "port=80"},
		{"spaces count", "a=1\n port=80\n", "present", "port=80"},
		{"remove every copy", "port=80\na=1\nport=80\nb\n", "absent", "port=80"},
		{"remove nothing", "a=1\n", "absent", "port=80"},
		{"empty file", "", "present", "x"},
	}
	var pp strings.Builder
	var viaPuppet []*graph.Resource
	for i, c := range cases {
		for _, side := range []string{"native", "puppet"} {
			f := filepath.Join(dir, fmt.Sprintf("%s-%d", side, i))
			if err := os.WriteFile(f, []byte(c.before), 0o644); err != nil {
				t.Fatal(err)
			}
			params := map[string]any{"path": f, "line": c.line, "ensure": c.ensure}
			if side == "native" {
				fmt.Fprintf(&pp, "file_line { %q: path => %q, line => %q, ensure => %s }\n", f, f, c.line, c.ensure)
				continue
			}
			js, _ := json.Marshal(params)
			viaPuppet = append(viaPuppet, &graph.Resource{Kind: "pippet", Name: "File_line[" + f + "]", Params: map[string]any{
				"type": "file_line", "title": f, "params": string(js), "modulepath": "/usr/share/puppet/modules"}})
		}
	}
	site := filepath.Join(dir, "site.pp")
	os.WriteFile(site, []byte(pp.String()), 0o644)
	p := testutil.Run(t, "", "puppet-graph", "--engine", "native", "--modulepath", "/usr/share/puppet/modules", site)
	if p.Code != 0 {
		t.Fatalf("puppet-graph: exit %d: %s", p.Code, p.Stderr)
	}
	docs, err := graph.ReadAll(strings.NewReader(p.Stdout), "puppet-graph")
	if err != nil || len(docs) != 1 {
		t.Fatalf("decoding the graph: %v", err)
	}
	doc := docs[0]
	for _, r := range doc.Resources {
		if r.Kind != "line" && r.Kind != "noop" {
			t.Errorf("%s[%s] is not translated to a line", r.Kind, r.Name)
		}
	}
	doc.Resources = append(doc.Resources, viaPuppet...)
	var in strings.Builder
	if err := graph.Encode(&in, doc, graph.JSON); err != nil {
		t.Fatal(err)
	}
	a := testutil.Run(t, in.String(), "mgmt-apply", "--converged-timeout", "1", "--tmp-prefix")
	if a.Code != 0 {
		t.Fatalf("mgmt-apply: exit %d: %s", a.Code, a.Stderr)
	}
	for i, c := range cases {
		got, err1 := os.ReadFile(filepath.Join(dir, fmt.Sprintf("native-%d", i)))
		want, err2 := os.ReadFile(filepath.Join(dir, fmt.Sprintf("puppet-%d", i)))
		if err1 != nil || err2 != nil || string(got) != string(want) {
			t.Errorf("%s: native %q (%v), Puppet %q (%v)", c.name, got, err1, want, err2)
		}
	}
}
