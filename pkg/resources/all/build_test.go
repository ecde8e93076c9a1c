package all_test

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	_ "github.com/mgmtpipe/mgmt/pkg/resources/all"
)

// buildBoth builds the document that doc returns (a fresh one each time:
// Build consumes its parameters) on one processor and then on two, and
// returns what each gave: the graph's document, or the error.
func buildBoth(t *testing.T, doc func() *graph.Document) (one, two string) {
	t.Helper()
	build := func(procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		g, err := engine.Build(doc(), engine.BuildOptions{Consume: true})
		if err != nil {
			return "error: " + err.Error()
		}
		var b bytes.Buffer
		if err := graph.Encode(&b, g.Document(), graph.JSON); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	return build(1), build(2)
}

// decode decodes one JSON graph document.
func decode(t *testing.T, s string) *graph.Document {
	t.Helper()
	doc, err := graph.NewDecoder(strings.NewReader(s), "in").Next()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestBuildParallelSame: a graph large enough to be made on two goroutines
// (engine.Build splits its resources between the processors) gives the same
// graph, and the same errors in the same order, as on one. Every kind is
// there, its resources in both halves, so that the race detector sees each
// kind's decoding and Validate run on two goroutines at once.
func TestBuildParallelSame(t *testing.T) {
	kinds := engine.RegisteredKinds()
	// Every kind with no parameters: most refuse that, in their own words.
	var b strings.Builder
	b.WriteString(`{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[`)
	n := 0
	for copy := range max(2, 2*512/len(kinds)+2) {
		for _, k := range kinds {
			if n > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"kind":%q,"name":"/tmp/build-%d","params":{}}`, k, copy)
			n++
		}
	}
	b.WriteString("]}\n")
	refused := b.String()
	one, two := buildBoth(t, func() *graph.Document { return decode(t, refused) })
	if !strings.HasPrefix(one, "error: ") {
		t.Fatalf("%d resources of every kind without parameters were all accepted", n)
	}
	if one != two {
		t.Errorf("kinds without parameters: on one processor:\n%s\non two:\n%s", one, two)
	}

	// Files and directories with automatic edges between them, execs,
	// users and groups with theirs, and an error in each half.
	b.Reset()
	b.WriteString(`{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[`)
	for d := range 10 {
		if d > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"kind":"file","name":"/srv/b/d%d/","params":{"state":"exists","mode":"0755"}}`, d)
	}
	for i := range 1000 {
		fmt.Fprintf(&b, `,{"kind":"file","name":"/srv/b/d%d/f%d","params":{"state":"exists","content":"file %d\n","mode":"0644"}}`, i%10, i, i)
		if i%50 == 0 {
			// other kinds whose automatic edges reach files, users,
			// groups and packages, in both halves
			fmt.Fprintf(&b, `,{"kind":"exec","name":"e%d","params":{"cmd":"/srv/b/d%d/f%d","cwd":"/srv/b/d%d","user":"u%d","group":"g%d","creates":"/srv/b/made%d"}}`, i, i%10, i, i%10, i, i, i)
			fmt.Fprintf(&b, `,{"kind":"user","name":"u%d","params":{"group":"g%d","groups":["g%d"]}}`, i, i, (i+50)%1000)
			fmt.Fprintf(&b, `,{"kind":"group","name":"g%d"}`, i)
			fmt.Fprintf(&b, `,{"kind":"file","name":"/srv/b/made%d","params":{"owner":"u%d"}}`, i, i)
		}
	}
	fine := b.String() + `],"edges":[{"from":{"kind":"file","name":"/srv/b/d0/f0"},"to":{"kind":"file","name":"/srv/b/d1/f1"},"notify":true}]}` + "\n"
	one, two = buildBoth(t, func() *graph.Document { return decode(t, fine) })
	if strings.HasPrefix(one, "error: ") {
		t.Fatal(one)
	}
	if one != two {
		t.Errorf("files: on one processor:\n%.2000s\non two:\n%.2000s", one, two)
	}
	bad := strings.Replace(strings.Replace(b.String(), `"mode":"0644"`, `"mode":"big"`, 1), `"file 999\n","mode":"0644"`, `"file 999\n","mode":"small"`, 1) + "]}\n"
	one, two = buildBoth(t, func() *graph.Document { return decode(t, bad) })
	if !strings.Contains(one, "big") || !strings.Contains(one, "small") || strings.Index(one, "big") > strings.Index(one, "small") {
		t.Errorf("files with two bad modes, on one processor: %s", one)
	}
	if one != two {
		t.Errorf("files with two bad modes: on one processor:\n%s\non two:\n%s", one, two)
	}
}
