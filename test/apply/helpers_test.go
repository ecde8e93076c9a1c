// Package apply holds the end-to-end tests of mgmt-apply: they run the
// built binary on real graphs of files and commands and look at the system.
package apply

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

type P = map[string]any

type res struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Params P      `json:"params,omitempty"`
	Meta   P      `json:"meta,omitempty"`
}

type ref struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

type edge struct {
	From   ref    `json:"from"`
	To     ref    `json:"to"`
	Notify bool   `json:"notify,omitempty"`
	Send   string `json:"send,omitempty"`
	Recv   string `json:"recv,omitempty"`
}

// gdoc returns one graph document line.
func gdoc(seq int, rs []res, es ...edge) string {
	b, err := json.Marshal(map[string]any{"mgmt": "graph/v1", "graph": "test", "seq": seq, "resources": rs, "edges": es})
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

func file(path string, params P) res {
	if params == nil {
		params = P{}
	}
	if _, ok := params["state"]; !ok {
		params["state"] = "exists"
	}
	return res{Kind: "file", Name: path, Params: params}
}

func ex(name, cmd string, params P) res {
	if params == nil {
		params = P{}
	}
	params["cmd"] = cmd
	params["shell"] = "/bin/sh"
	return res{Kind: "exec", Name: name, Params: params}
}

func e(fk, fn, tk, tn string) edge { return edge{From: ref{fk, fn}, To: ref{tk, tn}} }

func startApply(t *testing.T, args ...string) *testutil.Proc {
	t.Helper()
	return testutil.Start(t, "mgmt-apply", args...)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
