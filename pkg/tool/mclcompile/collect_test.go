package mclcompile

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/world"
)

// TestCollectRefusalLog exports, on a private world, a file whose name
// holds a newline and whose path points elsewhere; mcl-compile collecting
// it must leave it out of the graph and log the refusal on one line,
// naming the exporter and the key, so the name cannot forge a log line.
func TestCollectRefusalLog(t *testing.T) {
	prefix := t.TempDir()
	w, err := world.Open(world.OpenConfig{Hostname: "evil", Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	name := "/srv/x\nmcl-compile: forged"
	err = w.ResExport(context.Background(), []*graph.Resource{{Kind: "file", Name: name,
		Params: map[string]any{"path": "/etc/x"}, Meta: &graph.Meta{Export: []string{"*"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	src := "collect file \"/srv/x\\nmcl-compile: forged\" {}\n"
	if code := Run(context.Background(), []string{"--prefix", prefix, "--hostname", "web", "--once", "-"}, strings.NewReader(src), &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if strings.Contains(out.String(), "/etc/x") {
		t.Errorf("the refused resource is in the graph: %s", out.String())
	}
	log := errs.String()
	if strings.Contains(log, "\nmcl-compile: forged") || !strings.Contains(log, `/srv/x\nmcl-compile: forged`) {
		t.Errorf("the name reached the log raw: %q", log)
	}
	if !strings.Contains(log, "exported by host evil (key /_mgmt/exports/evil/*/file//srv/x") || !strings.Contains(log, `parameter path "/etc/x" differs from the name`) {
		t.Errorf("the refusal does not name the exporter, key and parameter: %q", log)
	}
}
