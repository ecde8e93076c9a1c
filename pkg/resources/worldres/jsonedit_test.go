package worldres

import (
	"context"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/resources"
	"github.com/mgmtpipe/mgmt/pkg/world/worldtest"
)

// TestJSONEditWorldKey runs the json:edit kind (of package resources) on a
// string key of a real world: a missing key is an empty object, the key's
// value is kept when only its formatting differs, and the Watch sees
// another writer.
func TestJSONEditWorldKey(t *testing.T) {
	ctx := context.Background()
	c := worldtest.Connect(t, "h1")
	j := &resources.JSONEditRes{Store: "etcd:///cfg/app", Edits: []string{`.a.b = 1`, `del(.old)`}}
	j.SetKind("json:edit")
	j.SetName("cfg")
	if err := j.Validate(); err != nil {
		t.Fatal(err)
	}
	h, init := newInit(c)
	if err := j.Init(init); err != nil {
		t.Fatal(err)
	}
	checkApply(t, j, false, false)
	if _, ok, _ := c.StrGet(ctx, "cfg/app"); ok {
		t.Fatal("apply=false set the key")
	}
	checkApply(t, j, true, false)
	if v, _, _ := c.StrGet(ctx, "cfg/app"); v != "{\n\t\"a\": {\n\t\t\"b\": 1\n\t}\n}\n" {
		t.Fatalf("stored %q", v)
	}
	checkApply(t, j, true, true)
	c.StrSet(ctx, "cfg/app", `{"a":{"b":1}}`)
	checkApply(t, j, true, true) // formatting alone
	if v, _, _ := c.StrGet(ctx, "cfg/app"); v != `{"a":{"b":1}}` {
		t.Fatalf("formatting alone rewrote the key: %q", v)
	}

	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- j.Watch(wctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Watch: %v", err)
		}
	}()
	recv(t, h.running, "Running")
	c.StrSet(ctx, "cfg/app", `{"old": true, "a": {"b": 2}}`)
	recv(t, h.events, "event after another writer")
	checkApply(t, j, true, false)
	if v, _, _ := c.StrGet(ctx, "cfg/app"); v != "{\n\t\"a\": {\n\t\t\"b\": 1\n\t}\n}\n" {
		t.Fatalf("repaired to %q", v)
	}
}
