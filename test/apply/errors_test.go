package apply

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestManyErrorsThenGoodGraph: a graph of 100,000 bad edges is reported in
// 100 lines and a count, and the good graph after it on stdin is applied.
func TestManyErrorsThenGoodGraph(t *testing.T) {
	d := t.TempDir()
	src := file(d+"/src", P{"content": "x"})
	var bad []edge
	for i := range 100000 {
		bad = append(bad, e("file", d+"/src", "file", fmt.Sprintf("%s/missing/%d", d, i)))
	}
	p := startApply(t, "--tmp-prefix")
	p.Write(gdoc(1, []res{src}, bad...))
	p.Write(gdoc(2, []res{file(d+"/good", P{"content": "applied\n"})}))
	p.WaitLines(`file\[.*/good\]: changed`, 1)
	if n := p.Count(`runtime error: edge file\[.*/src\] -> file\[.*/missing/\d+\]: no resource`); n != 100 {
		t.Fatalf("%d edge errors logged, want 100", n)
	}
	if n := p.Count(`^` + testutil.LogPrefix + `mgmt-apply: \.\.\. and 99900 more errors \(no graph yet\)$`); n != 1 {
		t.Fatalf("no count of the other errors:\n%.3000s", p.Log())
	}
	if got := readFile(t, d+"/good"); got != "applied\n" {
		t.Fatalf("good file holds %q", got)
	}
	if _, err := os.Stat(d + "/src"); err == nil || strings.Contains(p.Log(), "src]: changed") {
		t.Fatal("a resource of the bad graph was applied")
	}
}

// TestUnknownKindSuggested: a resource of an unknown kind is refused with
// its position and the closest kind, nothing of its graph is applied, and
// the next good graph is.
func TestUnknownKindSuggested(t *testing.T) {
	d := t.TempDir()
	typo := file(d+"/typo", P{"content": "x"})
	typo.Kind = "fiel"
	p := startApply(t, "--tmp-prefix")
	p.Write(gdoc(1, []res{file(d+"/other", nil), typo}))
	p.Write(gdoc(2, []res{file(d+"/good", P{"content": "applied\n"})}))
	p.WaitLines(`file\[.*/good\]: changed`, 1)
	if n := p.Count(`mgmt-apply: -:1:\d+: runtime error: fiel\[.*/typo\]: unknown resource kind "fiel" \(did you mean "file"\?\)`); n != 1 {
		t.Fatalf("the unknown kind was not reported with its position and a suggestion:\n%.3000s", p.Log())
	}
	if _, err := os.Stat(d + "/other"); err == nil {
		t.Fatal("a resource of the bad graph was applied")
	}
}
