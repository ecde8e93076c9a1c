package pippet

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/engine"
)

func needPuppet(t *testing.T) {
	t.Helper()
	testneed.Puppet(t)
}

func newRes(t *testing.T, typ, title string, params map[string]any, refresh *bool) *PippetRes {
	t.Helper()
	b, _ := json.Marshal(params)
	return initRes(t, &PippetRes{Type: typ, Title: title, Params: string(b)}, refresh)
}

func initRes(t *testing.T, r *PippetRes, refresh *bool) *PippetRes {
	t.Helper()
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	init := &engine.Init{Env: &engine.Env{}, Hooks: &engine.Funcs{LogfFunc: t.Logf,
		RefreshFunc: func() bool { return refresh != nil && *refresh }}}
	if err := r.Init(init); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Cleanup() })
	return r
}

func checkApply(t *testing.T, r *PippetRes, apply bool) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ok, err := r.CheckApply(ctx, apply)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestFileThroughPuppet runs a file resource through the Puppet worker:
// the noop check sees it missing without creating it, the apply creates
// it, and the next check finds it right.
func TestFileThroughPuppet(t *testing.T) {
	needPuppet(t)
	p := filepath.Join(t.TempDir(), "f")
	r := newRes(t, "file", p, map[string]any{"ensure": "file", "content": "pippet\n"}, nil)
	if checkApply(t, r, false) {
		t.Fatal("check: a missing file was reported in sync")
	}
	if _, err := os.Stat(p); err == nil {
		t.Fatal("check (noop) created the file")
	}
	if checkApply(t, r, true) {
		t.Fatal("apply reported nothing changed")
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "pippet\n" {
		t.Fatalf("file after apply: %q, %v", b, err)
	}
	if !checkApply(t, r, false) {
		t.Fatal("check after apply: not in sync")
	}
	// a second resource shares the warm worker
	p2 := filepath.Join(t.TempDir(), "g")
	r2 := newRes(t, "file", p2, map[string]any{"ensure": "directory"}, nil)
	if r2.w != r.w {
		t.Fatal("second resource started another worker")
	}
	checkApply(t, r2, true)
	if st, err := os.Stat(p2); err != nil || !st.IsDir() {
		t.Fatalf("directory not created: %v", err)
	}
}

// TestRefreshOnlyExec checks that a refresh reaches Puppet's refresh: an
// exec with refreshonly runs only when notified.
func TestRefreshOnlyExec(t *testing.T) {
	needPuppet(t)
	p := filepath.Join(t.TempDir(), "ran")
	refresh := false
	r := newRes(t, "exec", "touch", map[string]any{"command": "/usr/bin/touch " + p, "refreshonly": true}, &refresh)
	checkApply(t, r, true)
	if _, err := os.Stat(p); err == nil {
		t.Fatal("refreshonly exec ran without a refresh")
	}
	refresh = true
	checkApply(t, r, true)
	if _, err := os.Stat(p); err != nil {
		t.Fatal("refreshonly exec did not run on refresh")
	}
}

func TestValidate(t *testing.T) {
	for _, r := range []*PippetRes{
		{Type: "", Title: "x", Params: "{}"},
		{Type: "host", Title: "", Params: "{}"},
		{Type: "host", Title: "x", Params: "[1]"},
	} {
		if r.Validate() == nil {
			t.Errorf("%+v: Validate accepted it", r)
		}
	}
	if err := (&PippetRes{Type: "host", Title: "x", Params: ""}).Validate(); err != nil {
		t.Errorf("empty params: %v", err)
	}
}

func TestBadResourceIsAnError(t *testing.T) {
	needPuppet(t)
	r := newRes(t, "nosuchtype", "x", nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := r.CheckApply(ctx, false); err == nil {
		t.Fatal("an unknown Puppet type did not fail")
	}
}

// TestInterpreter: the worker runs in the resource's interpreter, looked
// up in PATH; one that is not there is an error naming what is missing,
// and resources of different interpreters never share a worker.
func TestInterpreter(t *testing.T) {
	r := &PippetRes{Type: "notify", Title: "x", Params: "{}", ruby: "mgmt-no-such-ruby"}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	err := r.Init(&engine.Init{Env: &engine.Env{}, Hooks: &engine.Funcs{LogfFunc: t.Logf}})
	if err == nil || !strings.Contains(err.Error(), "pippet needs Puppet") || !strings.Contains(err.Error(), "mgmt-no-such-ruby") {
		t.Fatalf("got %v, want an error naming the missing interpreter", err)
	}
	if a, b := (&PippetRes{}).setup(), r.setup(); a == b || a.Ruby != "ruby" {
		t.Fatalf("setups %+v and %+v", a, b)
	}
}
