package puppet

import (
	"sort"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/puppet/eval"
)

// TestRefreshThroughContainers checks Puppet's refresh semantics: notifying
// a class refreshes its contents, a class notifies with every resource it
// contains, and a plain ordering arrow refreshes nothing.
func TestRefreshThroughContainers(t *testing.T) {
	src := `class c { exec { "/bin/a": } file { "/tmp/in": } } include c
file { "/tmp/a": } ~> Class["c"] ~> Service["x"]
service { "x": provider => systemd }
file { "/tmp/b": } -> Class["c"]
define d() { notify { "in ${title}": } }
d { "one": subscribe => File["/tmp/b"] }
`
	cat, err := eval.Compile("r.pp", src, eval.Options{Certname: "n"})
	if err != nil {
		t.Fatal(err)
	}
	doc, _, err := Translate(cat, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range doc.Edges {
		if e.Notify {
			got = append(got, e.From.String()+" -> "+e.To.String())
		}
	}
	sort.Strings(got)
	want := []string{
		"exec[/bin/a] -> svc[x]",
		"file[/tmp/a] -> exec[/bin/a]",
		"file[/tmp/a] -> file[/tmp/in]",
		"file[/tmp/b] -> msg[in one]",
		"file[/tmp/in] -> svc[x]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("notify edges:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
