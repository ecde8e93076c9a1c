package world

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
	pw "github.com/mgmtpipe/mgmt/pkg/world"
	"github.com/mgmtpipe/mgmt/pkg/world/worldtest"
)

// TestMain runs one embedded etcd member for the package's tests; each
// test uses its own namespace.
func TestMain(m *testing.M) { worldtest.Main(m) }

// run starts a stream in the background and returns the channel of its
// values.
func run(t *testing.T, f func(ctx context.Context, emit func(values.Value)) error) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan string, 16)
	done := make(chan error, 1)
	go func() { done <- f(ctx, func(v values.Value) { out <- v.String() }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("stream ended with %v", err)
		}
	})
	return out
}

func next(t *testing.T, ch <-chan string, want string) {
	t.Helper()
	select {
	case got := <-ch:
		if got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no value within 10s, want %s", want)
	}
}

// eventually receives values from ch until one equals want.
func eventually(t *testing.T, ch <-chan string, want string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case got := <-ch:
			if got == want {
				return
			}
		case <-deadline:
			t.Fatalf("no value %s within 10s", want)
		}
	}
}

func typ(t *testing.T, s string) *types.Type {
	t.Helper()
	ty, err := types.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

func TestGetval(t *testing.T) {
	ctx := context.Background()
	h1, h2 := worldtest.Connect(t, "h1"), worldtest.Connect(t, "h2")
	out := typ(t, "struct{value str; exists bool}")
	vals := run(t, func(ctx context.Context, emit func(values.Value)) error {
		return Getval(ctx, h2, "flag", out, nil, emit)
	})
	next(t, vals, `struct{value => "", exists => false}`)
	h1.StrSet(ctx, "flag", "up")
	next(t, vals, `struct{value => "up", exists => true}`)
	h1.StrSet(ctx, "flag", "up") // the same value again: no new output
	h1.StrSet(ctx, "flag", "down")
	next(t, vals, `struct{value => "down", exists => true}`)
}

func TestKVLookup(t *testing.T) {
	ctx := context.Background()
	a, b := worldtest.Connect(t, "a"), worldtest.Connect(t, "b")
	vals := run(t, func(ctx context.Context, emit func(values.Value)) error {
		return KVLookup(ctx, a, "ns", typ(t, "map{str: str}"), nil, emit)
	})
	next(t, vals, `{}`)
	a.StrMapSet(ctx, "ns", "1")
	next(t, vals, `{"a" => "1"}`)
	b.StrMapSet(ctx, "ns", "2")
	next(t, vals, `{"a" => "1", "b" => "2"}`)
}

func TestSchedule(t *testing.T) {
	ctx := context.Background()
	a, b := worldtest.Connect(t, "a"), worldtest.Connect(t, "b")
	vals := run(t, func(ctx context.Context, emit func(values.Value)) error {
		return Schedule(ctx, a, "web", typ(t, "[]str"), nil, emit)
	})
	next(t, vals, `[]`)
	b.SchedulerAdd(ctx, "web", pw.SchedOpts{Max: 1})
	next(t, vals, `["b"]`)
	a.SchedulerAdd(ctx, "web", pw.SchedOpts{Max: 1})
	b.SchedulerWithdraw(ctx, "web")
	next(t, vals, `["a"]`)
}

func TestCollect(t *testing.T) {
	ctx := context.Background()
	h1, h2 := worldtest.Connect(t, "h1"), worldtest.Connect(t, "h2")
	res := run(t, func(ctx context.Context, emit func(values.Value)) error {
		return Collect(ctx, h2, "file", nil, false, CollectOptions{}, typ(t, "[]struct{name str; host str}"), emit)
	})
	data := run(t, func(ctx context.Context, emit func(values.Value)) error {
		return Collect(ctx, h2, "file", &Selection{Names: map[string]bool{"/b": true}}, true, CollectOptions{}, typ(t, "[]"+collectRow), emit)
	})
	next(t, res, `[]`)
	next(t, data, `[]`)
	h1.ResExport(ctx, []*graph.Resource{
		{Kind: "file", Name: "/a", Meta: &graph.Meta{Export: []string{"h2"}}},
		{Kind: "file", Name: "/b", Params: map[string]any{"content": "x"}, Meta: &graph.Meta{Export: []string{"*"}}},
		{Kind: "file", Name: "/c", Meta: &graph.Meta{Export: []string{"h3"}}},
	})
	next(t, res, `[struct{name => "/a", host => "h1"}, struct{name => "/b", host => "h1"}]`)
	next(t, data, `[struct{name => "/b", host => "h1", data => "{\"kind\":\"file\",\"name\":\"/b\",\"params\":{\"content\":\"x\"}}"}]`)
	h1.ResExport(ctx, nil)
	next(t, res, `[]`)
	next(t, data, `[]`)
}

// TestCollectDrops checks that a refused exported resource, and one from
// a host not in From, is dropped and logged once with its host and key,
// while the rest of the collection goes on.
func TestCollectDrops(t *testing.T) {
	ctx := context.Background()
	h1, h2, h3 := worldtest.Connect(t, "h1"), worldtest.Connect(t, "h2"), worldtest.Connect(t, "h3")
	logs := make(chan string, 16)
	opts := CollectOptions{From: []string{"h1", "h2"}, Logf: func(f string, a ...any) { logs <- fmt.Sprintf(f, a...) }}
	data := run(t, func(ctx context.Context, emit func(values.Value)) error {
		return Collect(ctx, h2, "file", &Selection{Names: map[string]bool{"/ok": true, "/bad": true, "/h3": true}}, true, opts, typ(t, "[]"+collectRow), emit)
	})
	next(t, data, `[]`)
	// h1 exports /ok and /bad, then overwrites /bad's value by hand.
	h3.ResExport(ctx, []*graph.Resource{{Kind: "file", Name: "/h3", Meta: &graph.Meta{Export: []string{"*"}}}})
	h1.ResExport(ctx, []*graph.Resource{{Kind: "file", Name: "/ok", Meta: &graph.Meta{Export: []string{"h2"}}},
		{Kind: "file", Name: "/bad", Meta: &graph.Meta{Export: []string{"h2"}}}})
	keys := map[string]string{}
	es, err := h2.ResCollect(ctx, "file")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		keys[e.Res.Name] = e.Key
	}
	if err := h1.Put(ctx, keys["/bad"], `{"kind":"file","name":"/etc/passwd"}`); err != nil {
		t.Fatal(err)
	}
	// Values before the overwrite may come first.
	eventually(t, data, `[struct{name => "/ok", host => "h1", data => "{\"kind\":\"file\",\"name\":\"/ok\"}"}]`)
	got := map[string]bool{}
	for len(got) < 2 {
		select {
		case l := <-logs:
			if got[l] {
				t.Fatalf("logged twice: %s", l)
			}
			got[l] = true
		case <-time.After(10 * time.Second):
			t.Fatalf("logged %v, want the refusal of /bad and the h3 entry", got)
		}
	}
	want := []string{
		`collect: refused file[/bad] exported by host h1 (key ` + keys["/bad"] + `): the value names "/etc/passwd", the key "/bad"`,
		`collect: ignored file[/h3] exported by host h3 (key ` + keys["/h3"] + `): host not in the collect-from list`,
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("missing log line %q; got %v", w, got)
		}
	}
}

func TestRegistered(t *testing.T) {
	if err := CollectBuiltin.Stream(context.Background(), &funcs.Call{Type: CollectBuiltin.Sigs[1],
		Args: []values.Value{values.Str("file"), values.NewList(types.Str)}, Env: &funcs.Env{}}, func(values.Value) {}); err == nil {
		t.Error("_collect without a world succeeded")
	}
	for _, name := range []string{"world.getval", "world.kvlookup", "world.schedule", "world/collect.res"} {
		mod, fn := "", name
		if i := strings.LastIndex(name, "."); i >= 0 {
			mod, fn = name[:i], name[i+1:]
		}
		f, ok := funcs.Lookup(mod, fn)
		if !ok {
			t.Fatalf("%s not registered", name)
		}
		// Without a world in the environment the stream fails clearly.
		err := f.Stream(context.Background(), &funcs.Call{Type: f.Sigs[0], Args: []values.Value{values.Str("x"), values.Str("y")}, Env: &funcs.Env{}}, func(values.Value) {})
		if err == nil || !strings.Contains(err.Error(), "needs the world") {
			t.Errorf("%s without a world: %v", name, err)
		}
	}
}

func TestSelection(t *testing.T) {
	pairs := typ(t, "[]struct{name str; host str}")
	for _, tc := range []struct {
		arg  any
		typ  *types.Type
		keep map[[2]string]bool // (name, host) -> kept
		err  string
	}{
		{"/a", types.Str, map[[2]string]bool{{"/a", "h1"}: true, {"/b", "h1"}: false}, ""},
		{[]string{}, typ(t, "[]str"), map[[2]string]bool{{"/a", "h1"}: false}, ""},
		{[]map[string]any{{"name": "/a", "host": "h1"}}, pairs, map[[2]string]bool{{"/a", "h1"}: true, {"/a", "h2"}: false}, ""},
		{[]map[string]any{{"name": "/a", "host": "*"}}, pairs, nil, `host "*" of "/a": want a host name`},
		{[]map[string]any{{"name": "/a", "host": ""}}, pairs, nil, `host "" of "/a": want a host name`},
	} {
		v, err := values.FromGo(tc.arg, tc.typ)
		if err != nil {
			t.Fatal(err)
		}
		sel, err := selection(v)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: error %v, want %q", v, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		for p, want := range tc.keep {
			if sel.has(p[0], p[1]) != want {
				t.Errorf("%v keeps %v: %v, want %v", v, p, !want, want)
			}
		}
	}
}

// hostOnly is a world that offers nothing but its host's name.
type hostOnly string

func (h hostOnly) Hostname() string { return string(h) }

// TestWorldLacksPart: each world function asserts the part of the world it
// reads, and a world without it is an error naming that part.
func TestWorldLacksPart(t *testing.T) {
	for name, part := range map[string]string{"world.getval": "strings", "world.kvlookup": "per-host strings",
		"world.schedule": "the scheduler", "world/collect.res": "exported resources"} {
		i := strings.LastIndex(name, ".")
		f, ok := funcs.Lookup(name[:i], name[i+1:])
		if !ok {
			t.Fatalf("%s not registered", name)
		}
		env := &funcs.Env{World: hostOnly("h1")}
		err := f.Stream(context.Background(), &funcs.Call{Type: f.Sigs[0], Args: []values.Value{values.Str("x")}, Env: env}, func(values.Value) {})
		if err == nil || !strings.Contains(err.Error(), "does not provide "+part) {
			t.Errorf("%s on a world of host names only: got %v, want it to name %s", name, err, part)
		}
	}
}
