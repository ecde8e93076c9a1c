package puppet

import (
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
)

// FuzzTranslate feeds arbitrary catalogs (--catalog reads untrusted JSON)
// through the relationship graph and the translation: errors are fine,
// panics are not.
func FuzzTranslate(f *testing.F) {
	f.Add(`{"name":"n","resources":[{"type":"Stage","title":"main"},{"type":"Class","title":"main"},
		{"type":"File","title":"/a/b","parameters":{"ensure":"directory","owner":"u","before":["Exec[x]"]}},
		{"type":"Exec","title":"x","parameters":{"command":"/bin/true","unless":["/bin/false"],"tries":3}},
		{"type":"User","title":"u","parameters":{"gid":"g","groups":"a,b"}}],
		"edges":[{"source":"Stage[main]","target":"Class[main]"},{"source":"Class[main]","target":"File[/a/b]"}]}`)
	f.Add(`{"resources":[{"type":"Mount","title":"/m","parameters":{"options":"a=1,b","dump":"x"}},
		{"type":"Augeas","title":"a","parameters":{"changes":["set a b","rm c"],"incl":"/f"}}]}`)
	f.Fuzz(func(t *testing.T, src string) {
		c, err := catalog.Decode(strings.NewReader(src))
		if err != nil {
			return
		}
		Translate(c, Options{})
	})
}
