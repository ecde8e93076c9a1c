package mgmtapply

import (
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/cli"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// TestLoadGateShutsOutTheReader: once the tool starts to stop, the input
// reader neither loads nor exports the documents it still reads, and ends.
func TestLoadGateShutsOutTheReader(t *testing.T) {
	g := &loadGate{}
	n := 0
	if !g.do(func() { n++ }) || n != 1 {
		t.Fatalf("an open gate: ran %d times", n)
	}
	g.close()
	if g.do(func() { n++ }) || n != 1 {
		t.Fatalf("a closed gate ran its function")
	}
	doc := `{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"noop","name":"a"}]}` + "\n"
	done := make(chan readResult, 1)
	readGraphs(graph.NewDecoder(strings.NewReader(doc+doc), "in"), "in", g, nil, nil, cli.NewLogger(name, &strings.Builder{}, cli.LogFlags{}), "", done)
	if r := <-done; r.anyValid {
		t.Fatal("the reader loaded a graph through a closed gate")
	}
}
