package world

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

func init() {
	// A kind with collect rules, as pkg/engine registers them for the
	// resource kinds (which this package does not import).
	graph.RegisterKind(&graph.KindSchema{Kind: "worldtestfile", Params: map[string]string{"path": "str", "source": "str", "content": "str"},
		Collect: graph.CollectRules{Name: []string{"path"}, Local: []string{"source"}}})
	graph.RegisterKind(&graph.KindSchema{Kind: "worldtestrefused", Collect: graph.CollectRules{Refused: true}})
}

// TestCollectRefuses writes exported values by hand, as a host with write
// access to the world could, and checks that the collecting host gets
// each bad one with Err set (naming the key), the good ones intact, and
// never a kind, name, export list or target other than the key's.
func TestCollectRefuses(t *testing.T) {
	ctx := context.Background()
	h1, h2 := client(t, "h1"), client(t, "h2")
	const k = "worldtestfile"
	// h1 exports a resource under each key, then overwrites the values.
	var rs []*graph.Resource
	for _, n := range []string{"/a", "/b", "/c", "/d", "/e", "/f", "/ok"} {
		rs = append(rs, &graph.Resource{Kind: k, Name: n, Meta: &graph.Meta{Export: []string{"*"}}})
	}
	rs = append(rs, &graph.Resource{Kind: k, Name: "/mine", Meta: &graph.Meta{Export: []string{"*", "h2"}}},
		&graph.Resource{Kind: "worldtestrefused", Name: "x", Meta: &graph.Meta{Export: []string{"*"}}})
	if err := h1.ResExport(ctx, rs); err != nil {
		t.Fatal(err)
	}
	all, err := h1.GetPrefix(ctx, h1.ns+"/")
	if err != nil {
		t.Fatal(err)
	}
	put := func(to, name, v string) {
		t.Helper()
		for key := range all {
			// the two host segments before the kind are h1 and to
			if strings.HasSuffix(key, "/"+k+"/"+name) && (strings.Contains(key, "/"+to+"/h1/") || strings.Contains(key, "/h1/"+to+"/")) {
				if err := h1.Put(ctx, key, v); err != nil {
					t.Fatal(err)
				}
				return
			}
		}
		t.Fatalf("no key exports %s to %s among %v", name, to, all)
	}
	put("*", "/a", `{"kind":"worldtestfile","name":"/elsewhere"}`)
	put("*", "/b", `{"kind":"exec","name":"/b","params":{"cmd":"id"}}`)
	put("*", "/c", `{"kind":`)
	put("*", "/d", `{"kind":"worldtestfile","name":"/d","params":{"path":"/etc/shadow"}}`)
	put("*", "/e", `{"name":"/e","params":{"source":"/etc/shadow"}}`)
	put("*", "/f", `{"name":"/f"} {"name":"/g"}`)
	put("*", "/ok", `{"kind":"worldtestfile","name":"/ok","params":{"path":"/ok","content":"x","source":""},"meta":{"export":["*"],"hidden":true,"noop":true}}`)
	// The copy addressed to h2 wins over the one to every host.
	put("*", "/mine", `{"params":{"content":"for all"}}`)
	put("h2", "/mine", `{"params":{"content":"for h2"}}`)
	got, err := h2.ResCollect(ctx, "")
	if err != nil {
		t.Fatalf("one bad value failed the whole collection: %v", err)
	}
	want := map[string]string{
		"/a":    `names "/elsewhere"`,
		"/b":    `names kind "exec"`,
		"/c":    "undecodable",
		"/d":    `path "/etc/shadow" differs from the name`,
		"/e":    "source",
		"/f":    "data after the resource",
		"/mine": "",
		"/ok":   "",
		"x":     "cannot be collected",
	}
	if len(got) != len(want) {
		t.Fatalf("collected %v, want one entry for each of %v", names(got), want)
	}
	for _, e := range got {
		w, ok := want[e.Res.Name]
		switch {
		case !ok:
			t.Errorf("unexpected entry %s", e.Res.Ref())
		case w == "" && e.Err != nil:
			t.Errorf("%s refused: %v", e.Key, e.Err)
		case w != "" && (e.Err == nil || !strings.Contains(e.Err.Error(), w)):
			t.Errorf("%s: error %v, want one containing %q", e.Key, e.Err, w)
		}
		if e.Key == "" || !strings.HasSuffix(e.Key, "/"+e.Res.Kind+"/"+e.Res.Name) || e.From != "h1" {
			t.Errorf("entry %s: key %q from %q", e.Res.Ref(), e.Key, e.From)
		}
		if e.Res.Kind != k && e.Res.Name != "x" {
			t.Errorf("entry %s has kind %q, not the key's", e.Key, e.Res.Kind)
		}
		switch e.Res.Name {
		case "/ok":
			if m := e.Res.Meta; m == nil || !m.Noop || len(m.Export) != 0 || m.Hidden {
				t.Errorf("collected meta %+v: want noop, no export, not hidden", m)
			}
		case "/mine":
			if e.To != "h2" || e.Res.Params["content"] != "for h2" {
				t.Errorf("collected the copy to %q: %v", e.To, e.Res.Params)
			}
		}
	}
}

// TestCollectWakesOnlyReceivers checks that a host's collection follows
// the exports incrementally: an export addressed to another host neither
// wakes it nor shows in its collection, one addressed to it (or to every
// host) does, a withdrawal does too, and every watcher of the client
// shares the cache.
func TestCollectWakesOnlyReceivers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h1, h2 := client(t, "h1"), client(t, "h2")
	ch := h2.ResWatch(ctx)
	wait(t, ch)
	res := func(name string, to ...string) *graph.Resource {
		return &graph.Resource{Kind: "file", Name: name, Meta: &graph.Meta{Export: to}}
	}
	if err := h1.ResExport(ctx, []*graph.Resource{res("/for-h3", "h3")}); err != nil {
		t.Fatal(err)
	}
	// The collection reflects every committed write, so the export to h3
	// has been seen, and any notification it caused is queued by now.
	if got, err := h2.ResCollect(ctx, ""); err != nil || len(got) != 0 {
		t.Fatalf("h2 collected %v, %v; want nothing", names(got), err)
	}
	select {
	case err := <-ch:
		t.Fatalf("an export to h3 woke h2's watch (%v)", err)
	default:
	}
	if err := h1.ResExport(ctx, []*graph.Resource{res("/for-h3", "h3"), res("/for-h2", "h2"), res("/for-all", "*")}); err != nil {
		t.Fatal(err)
	}
	wait(t, ch)
	if got, err := h2.ResCollect(ctx, "file"); err != nil || len(got) != 2 || got[0].Res.Name != "/for-all" || got[1].Res.Name != "/for-h2" {
		t.Fatalf("h2 collected %v, %v", names(got), err)
	}
	// A second watcher of the same client is told at once that the
	// exports are read.
	wctx, wcancel := context.WithCancel(ctx)
	second := h2.ResWatch(wctx)
	wait(t, second)
	wcancel()
	for range second { // closed once its context ends
	}
	if err := h1.ResExport(ctx, []*graph.Resource{res("/for-h3", "h3")}); err != nil {
		t.Fatal(err)
	}
	wait(t, ch)
	if got, err := h2.ResCollect(ctx, ""); err != nil || len(got) != 0 {
		t.Fatalf("after the withdrawal h2 collected %v, %v", names(got), err)
	}
}

// TestExportReadsOwnOnce checks that a host exporting graph after graph
// reads its own exports once, then follows them: each export reads only
// the current revision, and an export removed by other means is still
// written again by the next graph.
func TestExportReadsOwnOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h1 := client(t, "h1")
	rs := []*graph.Resource{
		{Kind: "file", Name: "/a", Params: map[string]any{"content": "1"}, Meta: &graph.Meta{Export: []string{"h2", "h3"}}},
		{Kind: "file", Name: "/b", Meta: &graph.Meta{Export: []string{"*"}}},
	}
	if err := h1.ResExport(ctx, rs); err != nil {
		t.Fatal(err)
	}
	var ranges, keys atomic.Int64
	countReads(h1, &ranges, &keys)
	for i := range 5 {
		rs[0].Params["content"] = fmt.Sprint(i)
		if err := h1.ResExport(ctx, rs); err != nil {
			t.Fatal(err)
		}
	}
	if r, k := ranges.Load(), keys.Load(); r != 5 || k != 0 {
		t.Errorf("5 exports made %d range requests returning %d keys, want 5 returning none (the revision's reads)", r, k)
	}
	key := h1.exportKey("h1", "h3", "file", "/a")
	if _, err := h1.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if err := h1.ResExport(ctx, rs); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := h1.Get(ctx, key); err != nil || !ok || !strings.Contains(v, `"4"`) {
		t.Fatalf("the export removed by other means: %q, %v, %v; want it written again", v, ok, err)
	}
}
