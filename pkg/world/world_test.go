package world

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// shared is one embedded member for the tests of this package; each test
// uses its own namespace.
var shared struct {
	endpoints []string
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "world-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	cu, pu := freeURL("http"), freeURL("http")
	s, err := StartServer(ctx, ServerConfig{Name: "t", DataDir: filepath.Join(dir, "t"), ClientURLs: []string{cu}, PeerURLs: []string{pu}, Insecure: true})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	shared.endpoints = []string{cu}
	code := m.Run()
	s.Close()
	os.RemoveAll(dir)
	os.Exit(code)
}

// freeURL returns a URL on a loopback port that was free a moment ago.
func freeURL(scheme string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	return fmt.Sprintf("%s://%s", scheme, ln.Addr())
}

// client connects host to the shared member under the test's namespace.
func client(t *testing.T, host string) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Connect(ctx, Config{Endpoints: shared.endpoints, Namespace: nsOf(t), Hostname: host, LeaseTTL: 5})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// wait receives from ch until it yields a nil notification, failing after a
// deadline.
func wait(t *testing.T, ch <-chan error) {
	t.Helper()
	select {
	case err, ok := <-ch:
		if !ok {
			t.Fatal("watch closed")
		}
		if err != nil {
			t.Fatalf("watch error: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no notification within 10s")
	}
}

func TestStrings(t *testing.T) {
	ctx := context.Background()
	c := client(t, "h1")
	if _, ok, err := c.StrGet(ctx, "a/b"); err != nil || ok {
		t.Fatalf("StrGet of a missing key = %v, %v; want false, nil", ok, err)
	}
	if err := c.StrSet(ctx, "a/b", "v1"); err != nil {
		t.Fatal(err)
	}
	v, ok, err := c.StrGet(ctx, "a/b")
	if err != nil || !ok || v != "v1" {
		t.Fatalf("StrGet = %q, %v, %v; want v1, true, nil", v, ok, err)
	}
	raw, ok, _ := c.Get(ctx, nsOf(t)+"/strings/a/b")
	if !ok || raw != "v1" {
		t.Fatalf("raw key layout: got %q, %v", raw, ok)
	}
	if err := c.StrDel(ctx, "a/b"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := c.StrGet(ctx, "a/b"); ok {
		t.Fatal("key still there after StrDel")
	}
	for _, bad := range []string{"", "/a", "a/", "a//b", "a/../b", "."} {
		if err := c.StrSet(ctx, bad, "x"); err == nil {
			t.Errorf("StrSet(%q) succeeded, want an error", bad)
		}
	}
}

func TestStrWatch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c1, c2 := client(t, "h1"), client(t, "h2")
	ch, err := c2.StrWatch(ctx, "flag")
	if err != nil {
		t.Fatal(err)
	}
	wait(t, ch) // established
	if err := c1.StrSet(ctx, "flag", "up"); err != nil {
		t.Fatal(err)
	}
	wait(t, ch)
	if v, _, _ := c2.StrGet(ctx, "flag"); v != "up" {
		t.Fatalf("got %q, want up", v)
	}
	// A change of another key does not notify.
	c1.StrSet(ctx, "flagged", "x")
	c1.StrDel(ctx, "flag")
	wait(t, ch)
	if _, ok, _ := c2.StrGet(ctx, "flag"); ok {
		t.Fatal("flag still set")
	}
	cancel()
	for range ch {
	}
}

func TestStrMap(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, b := client(t, "a"), client(t, "b")
	ch, err := a.StrMapWatch(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	wait(t, ch)
	if err := a.StrMapSet(ctx, "ns", "1"); err != nil {
		t.Fatal(err)
	}
	if err := b.StrMapSet(ctx, "ns", "2"); err != nil {
		t.Fatal(err)
	}
	b.StrSet(ctx, "ns/deeper/key", "ignored")
	b.StrMapSet(ctx, "ns/deeper", "ignored")
	wait(t, ch)
	m, err := a.StrMapGet(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"a": "1", "b": "2"}; !reflect.DeepEqual(m, want) {
		t.Fatalf("got %v, want %v", m, want)
	}
	if v, ok, _ := b.StrMapGetHost(ctx, "ns"); !ok || v != "2" {
		t.Fatalf("StrMapGetHost = %q, %v", v, ok)
	}
	b.StrMapDel(ctx, "ns")
	m, _ = a.StrMapGet(ctx, "ns")
	if want := map[string]string{"a": "1"}; !reflect.DeepEqual(m, want) {
		t.Fatalf("after delete got %v, want %v", m, want)
	}
}

func TestExport(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h1, h2, h3 := client(t, "h1"), client(t, "h2"), client(t, "h3")
	ch := h2.ResWatch(ctx)
	wait(t, ch)
	rs := []*graph.Resource{
		{Kind: "file", Name: "/tmp/for-h2", Params: map[string]any{"content": "hi\n"}, Meta: &graph.Meta{Export: []string{"h2"}}},
		{Kind: "file", Name: "/tmp/for-all", Meta: &graph.Meta{Export: []string{"*", "h2"}, Noop: true, Hidden: true}},
		{Kind: "exec", Name: "not-exported"},
	}
	if err := h1.ResExport(ctx, rs); err != nil {
		t.Fatal(err)
	}
	wait(t, ch)
	got, err := h2.ResCollect(ctx, "file")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Res.Name != "/tmp/for-all" || got[1].Res.Name != "/tmp/for-h2" {
		t.Fatalf("h2 collected %v", names(got))
	}
	if got[0].From != "h1" || got[0].Res.Meta == nil || !got[0].Res.Meta.Noop || len(got[0].Res.Meta.Export) != 0 || got[0].Res.Meta.Hidden {
		t.Fatalf("collected resource: from %q meta %+v", got[0].From, got[0].Res.Meta)
	}
	if got[1].Res.Params["content"] != "hi\n" || got[1].Res.Meta != nil {
		t.Fatalf("collected params %v meta %v", got[1].Res.Params, got[1].Res.Meta)
	}
	if got, _ := h3.ResCollect(ctx, ""); len(got) != 1 || got[0].Res.Name != "/tmp/for-all" {
		t.Fatalf("h3 collected %v", names(got))
	}
	if got, _ := h2.ResCollect(ctx, "exec"); len(got) != 0 {
		t.Fatalf("h2 collected execs %v", names(got))
	}
	// The next graph drops one export; an empty graph withdraws all.
	if err := h1.ResExport(ctx, rs[1:]); err != nil {
		t.Fatal(err)
	}
	if got, _ := h2.ResCollect(ctx, ""); len(got) != 1 {
		t.Fatalf("after the swap h2 collected %v", names(got))
	}
	if err := h1.ResExport(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := h2.ResCollect(ctx, ""); len(got) != 0 {
		t.Fatalf("after withdrawing h2 collected %v", names(got))
	}
}

func names(es []*Exported) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.From+">"+e.To+":"+e.Res.Ref().String())
	}
	return out
}

func TestScheduler(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, b, c := client(t, "a"), client(t, "b"), client(t, "c")
	ch, err := c.ScheduleWatch(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	wait(t, ch)
	opts := SchedOpts{Max: 2}
	for _, h := range []*Client{c, a, b} { // c volunteers first
		if err := h.SchedulerAdd(ctx, "web", opts); err != nil {
			t.Fatal(err)
		}
	}
	wait(t, ch)
	got, err := a.Schedule(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"c", "a"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("schedule %v, want %v", got, want)
	}
	if stored, _, _ := a.Get(ctx, a.ns+schedDir+"web"); stored != "c,a" {
		t.Fatalf("stored schedule %q, want c,a", stored)
	}
	// A host that goes away (its lease is revoked) leaves the schedule.
	c.Close()
	got, _ = a.Schedule(ctx, "web")
	if want := []string{"a", "b"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after c left: %v, want %v", got, want)
	}
	if err := a.SchedulerWithdraw(ctx, "web"); err != nil {
		t.Fatal(err)
	}
	if got, _ = b.Schedule(ctx, "web"); !reflect.DeepEqual(got, []string{"b"}) {
		t.Fatalf("after a withdrew: %v", got)
	}
	if o, ok, _ := b.SchedulerVolunteering(ctx, "web"); !ok || o != opts {
		t.Fatalf("b volunteering: %v with %+v", ok, o)
	}
	if err := b.SchedulerAdd(ctx, "web", SchedOpts{Strategy: "nope"}); err == nil {
		t.Fatal("unknown strategy accepted")
	}
}

// TestSchedulerLifetimes: an entry with a TTL of its own outlives its
// host by that long (its lease is granted with that TTL, kept alive while
// the host runs), a persistent one until it is withdrawn, and the options
// that cannot go together are refused.
func TestSchedulerLifetimes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, p, watcher := client(t, "a"), client(t, "p"), client(t, "w")
	ch, err := watcher.ScheduleWatch(ctx, "db")
	if err != nil {
		t.Fatal(err)
	}
	wait(t, ch)
	if err := a.SchedulerAdd(ctx, "db", SchedOpts{TTL: 2}); err != nil {
		t.Fatal(err)
	}
	if err := p.SchedulerAdd(ctx, "db", SchedOpts{Persist: true}); err != nil {
		t.Fatal(err)
	}
	r, err := a.cli.Get(ctx, a.schedHostKey("a", "db"))
	if err != nil || len(r.Kvs) != 1 {
		t.Fatalf("entry of a: %v %v", r, err)
	}
	ttl, err := a.cli.TimeToLive(ctx, clientv3.LeaseID(r.Kvs[0].Lease))
	if err != nil || ttl.GrantedTTL != 2 {
		t.Fatalf("lease of the entry: %+v %v, want one of its own granted for 2s", ttl, err)
	}
	if r, _ := p.cli.Get(ctx, p.schedHostKey("p", "db")); len(r.Kvs) != 1 || r.Kvs[0].Lease != 0 {
		t.Fatalf("persistent entry %v: want one on no lease", r.Kvs)
	}
	a.Close()
	p.Close()
	if got, _ := watcher.Schedule(ctx, "db"); !reflect.DeepEqual(got, []string{"a", "p"}) {
		t.Fatalf("right after both left: %v, want [a p]", got)
	}
	deadline := time.After(20 * time.Second)
	for {
		got, err := watcher.Schedule(ctx, "db")
		if err != nil {
			t.Fatal(err)
		}
		if reflect.DeepEqual(got, []string{"p"}) {
			break
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("the entry with a TTL did not expire: %v", got)
		}
	}
	again := client(t, "p")
	if err := again.SchedulerWithdraw(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	if got, _ := watcher.Schedule(ctx, "db"); len(got) != 0 {
		t.Fatalf("after the withdrawal: %v", got)
	}
	for _, o := range []SchedOpts{{Persist: true, TTL: 3}, {TTL: -1}} {
		if err := watcher.SchedulerAdd(ctx, "db", o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

func TestChoose(t *testing.T) {
	vs := func() []volunteer {
		return []volunteer{{host: "c", rev: 1}, {host: "a", rev: 2}, {host: "b", rev: 3}, {host: "d", rev: 4}}
	}
	tests := []struct {
		opts SchedOpts
		want []string
	}{
		{SchedOpts{}, []string{"c", "a", "b", "d"}},
		{SchedOpts{Max: 2}, []string{"c", "a"}},
		{SchedOpts{Strategy: StrategyAlpha, Max: 3}, []string{"a", "b", "c"}},
		{SchedOpts{Strategy: StrategyFirst, Max: 10}, []string{"c", "a", "b", "d"}},
	}
	for _, tt := range tests {
		in := vs()
		in[0].opts = tt.opts
		if got := choose("ns", in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("choose(%+v) = %v, want %v", tt.opts, got, tt.want)
		}
	}
	// The hash strategy is a permutation, stable across calls, and
	// depends on the namespace.
	in := vs()
	in[0].opts = SchedOpts{Strategy: StrategyHash}
	h1 := choose("ns1", append([]volunteer(nil), in...))
	h2 := choose("ns1", append([]volunteer(nil), in...))
	if !reflect.DeepEqual(h1, h2) || len(h1) != 4 {
		t.Fatalf("hash strategy unstable: %v vs %v", h1, h2)
	}
	if got := choose("x", nil); got == nil || len(got) != 0 {
		t.Fatalf("no volunteers: got %#v, want an empty list", got)
	}
}

func TestConverged(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, b := client(t, "a"), client(t, "b")
	ch := a.ConvergedWatch(ctx)
	wait(t, ch)
	a.SetConverged(ctx, true)
	b.SetConverged(ctx, false)
	m, err := a.Converged(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if AllConverged(m) || len(m) != 2 {
		t.Fatalf("got %v, want a converged and b not", m)
	}
	b.SetConverged(ctx, true)
	if m, _ = a.Converged(ctx); !AllConverged(m) {
		t.Fatalf("got %v, want all converged", m)
	}
	if AllConverged(map[string]bool{}) {
		t.Fatal("an empty world counts as converged")
	}
}

// TestRawKeyAndNamespace checks that a key given to mgmt-cluster get, put
// or del stays inside its namespace, and that no namespace but the default
// one reaches the default one's keys.
func TestRawKeyAndNamespace(t *testing.T) {
	tests := []struct {
		ns, key, want string // want "" means an error
	}{
		{"", "strings/x", "/_mgmt/strings/x"},
		{"/_mgmt", "strings/x", "/_mgmt/strings/x"},
		{"/_mgmt/", "strings/x", "/_mgmt/strings/x"},
		{"user", "a/b", "/user/a/b"},
		{"/_mgmtx", "a", "/_mgmtx/a"},
		{"/user", "../_mgmt/exports/h/*/exec/x", ""},
		{"/user", "a/../../_mgmt/x", ""},
		{"/user", "a/./b", ""},
		{"/user", "a//b", ""},
		{"/user", "/_mgmt/x", ""},
		{"/user", "a/", ""},
		{"/user", "", ""},
		{"/user", "..", ""},
		{"/user", "a\x00b", ""},
		{"/", "_mgmt/strings/x", ""},
		{"//", "_mgmt/strings/x", ""},
		{"/_mgmt/exports", "h/exec/x", ""},
		{"/_mgmt/strings", "x", ""},
		{"/a/../_mgmt", "strings/x", ""},
		{"/a//b", "x", ""},
	}
	for _, tt := range tests {
		got, err := RawKey(tt.ns, tt.key)
		if tt.want == "" && err == nil {
			t.Errorf("RawKey(%q, %q) = %q, want an error", tt.ns, tt.key, got)
		}
		if tt.want != "" && (err != nil || got != tt.want) {
			t.Errorf("RawKey(%q, %q) = %q, %v; want %q", tt.ns, tt.key, got, err, tt.want)
		}
	}
	for _, tt := range []struct{ ns, key, want string }{
		{"", "/", "/_mgmt/"}, {"", "", "/_mgmt/"}, {"/user", "a/", "/user/a/"}, {"/user", "a", "/user/a/"},
	} {
		if got, err := RawPrefix(tt.ns, tt.key); err != nil || got != tt.want {
			t.Errorf("RawPrefix(%q, %q) = %q, %v; want %q", tt.ns, tt.key, got, err, tt.want)
		}
	}
	for _, bad := range []string{"../x", "a//b", "/x/"} {
		if got, err := RawPrefix("/user", bad); err == nil {
			t.Errorf("RawPrefix(/user, %q) = %q, want an error", bad, got)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := Connect(ctx, Config{Endpoints: shared.endpoints, Namespace: "/", Hostname: "h"}); err == nil {
		t.Error("Connect accepted the root as namespace")
	}
	if _, err := Open(OpenConfig{Seeds: shared.endpoints, Namespace: "/_mgmt/exports", Hostname: "h"}); err == nil {
		t.Error("Open accepted a namespace inside /_mgmt")
	}
}

func TestParseExportKey(t *testing.T) {
	from, to, kind, name, ok := parseExportKey("h1/h2/file//tmp/a/b")
	if !ok || to != "h2" || from != "h1" || kind != "file" || name != "/tmp/a/b" {
		t.Fatalf("got %q %q %q %q %v", to, from, kind, name, ok)
	}
	for _, bad := range []string{"", "a/b/c", "a//c/d", "a/b/c/"} {
		if _, _, _, _, ok := parseExportKey(bad); ok {
			t.Errorf("parseExportKey(%q) ok", bad)
		}
	}
}

func TestCheckURLs(t *testing.T) {
	tests := []struct {
		url           string
		tls, insecure bool
		ok            bool
	}{
		{"http://127.0.0.1:2379", false, false, true},
		{"http://localhost:2379", false, false, true},
		{"http://[::1]:2379", false, false, true},
		{"http://10.0.0.1:2379", false, false, false},
		{"http://10.0.0.1:2379", false, true, true},
		{"https://10.0.0.1:2379", true, false, true},
		{"https://10.0.0.1:2379", false, false, false},
		{"http://127.0.0.1:2379", true, false, false},
		{"127.0.0.1:2379", false, false, false},
		{"http://127.0.0.1", false, false, false},
		{"unix:///x", false, false, true},
		{"unix:///x/../y", false, false, false},
		{"unix://x", false, false, false},
		{"unix:x", false, false, false},
		{"unix:///x", true, false, false},
		{"unix:///" + strings.Repeat("x", 110), false, false, false},
	}
	for _, tt := range tests {
		err := CheckURLs([]string{tt.url}, tt.tls, tt.insecure)
		if (err == nil) != tt.ok {
			t.Errorf("CheckURLs(%s, tls=%v, insecure=%v) = %v, want ok=%v", tt.url, tt.tls, tt.insecure, err, tt.ok)
		}
	}
}

// TestCheckListenURLs checks that a member serves plain http, loopback
// included, only when told to be insecure.
func TestCheckListenURLs(t *testing.T) {
	if err := checkListenURLs([]string{"http://127.0.0.1:2379"}, false, false); err == nil {
		t.Error("a member may serve plain http on loopback without --insecure")
	}
	for _, us := range [][]string{{"http://127.0.0.1:2379"}, {"unix:///run/x.sock"}} {
		if err := checkListenURLs(us, false, us[0][0] == 'h'); err != nil {
			t.Errorf("%v: %v", us, err)
		}
	}
	cfg := ServerConfig{Name: "m", DataDir: "/tmp/m", ClientURLs: []string{"unix:///tmp/c.sock"}, PeerURLs: []string{"unix:///tmp/p.sock"}}
	if err := cfg.Validate(); err == nil {
		t.Error("a unix socket as peer URL was accepted")
	}
}

// FuzzExportKey checks that every exported-resource key the client writes
// parses back into its fields, and that parsing never panics.
func FuzzExportKey(f *testing.F) {
	f.Add("h2", "h1", "file", "/tmp/a/b")
	f.Add("*", "h1", "exec", "x")
	f.Add("a", "b", "c", "d/e//f")
	c := &Client{ns: DefaultNamespace}
	f.Fuzz(func(t *testing.T, to, from, kind, name string) {
		rest := strings.TrimPrefix(c.exportKey(from, to, kind, name), c.ns+exportsDir)
		gfrom, gto, gkind, gname, ok := parseExportKey(rest)
		valid := checkHost(to) == nil && checkHost(from) == nil && kind != "" && !strings.Contains(kind, "/") && name != ""
		if valid && (!ok || gto != to || gfrom != from || gkind != kind || gname != name) {
			t.Fatalf("%q %q %q %q parsed as %q %q %q %q %v", to, from, kind, name, gto, gfrom, gkind, gname, ok)
		}
	})
}

// BenchmarkStrSet measures one write of a plain string to a single member.
func BenchmarkStrSet(b *testing.B) {
	ctx := context.Background()
	c, err := Connect(ctx, Config{Endpoints: shared.endpoints, Namespace: "/bench", Hostname: "b"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.StrSet(ctx, "k", "v"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResExport measures publishing a graph of 100 exported
// resources when one of them changed.
func BenchmarkResExport(b *testing.B) {
	ctx := context.Background()
	c, err := Connect(ctx, Config{Endpoints: shared.endpoints, Namespace: "/bench", Hostname: "b"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	rs := make([]*graph.Resource, 100)
	for i := range rs {
		rs[i] = &graph.Resource{Kind: "file", Name: fmt.Sprintf("/tmp/f%d", i), Params: map[string]any{"content": "x"},
			Meta: &graph.Meta{Export: []string{"*"}}}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rs[0].Params["content"] = fmt.Sprint(i)
		if err := c.ResExport(ctx, rs); err != nil {
			b.Fatal(err)
		}
	}
}

// testNS returns the namespace of the running test: fresh for every run of
// it, so -count=N starts from an empty world each time.
var testNS sync.Map

func nsOf(t *testing.T) string {
	ns, _ := testNS.LoadOrStore(t, fmt.Sprintf("/test/%s/%d", t.Name(), time.Now().UnixNano()))
	return ns.(string)
}
