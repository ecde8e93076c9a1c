package resources

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

func TestSchemas(t *testing.T) {
	for kind, want := range map[string]map[string]string{
		"file":      {"path": "str", "content": "str", "fragments": "[]str", "recurse": "bool", "mode": "str"},
		"exec":      {"cmd": "str", "args": "[]str", "env": "map{str: str}", "timeout": "int"},
		"test":      {"int8": "int", "float32": "float", "int8ptrptrptr": "int", "mapintfloat": "map{int: float}", "slicestring": "[]str", "expectrecv": "[]str", "mixedstruct": "struct{somebool bool; somestr str; someint int; somefloat float}"},
		"value":     {"key": "str", "str": "str", "int": "int", "float": "float", "bool": "bool"},
		"msg":       {"body": "str", "fields": "map{str: str}", "journal": "bool"},
		"timer":     {"interval": "int"},
		"password":  {"length": "int"},
		"print":     {"msg": "str"},
		"noop":      {"comment": "str"},
		"line":      {"file": "str", "state": "str", "content": "str", "trim": "bool"},
		"sysctl":    {"value": "str", "runtime": "bool", "persist": "bool", "path": "str"},
		"json:edit": {"store": "str", "edits": "[]str"},
		"tar":       {"path": "str", "inputs": "[]str", "format": "int"},
		"gzip":      {"path": "str", "input": "str", "content": "str", "level": "int"},
		"exit":      {"code": "int"},
		"ssh:authorized_key": {"state": "str", "file": "str", "user": "str", "content": "str", "options": "[]str",
			"type": "str", "key": "str", "comment": "str", "mkdir": "bool"},
	} {
		s, ok := graph.LookupKind(kind)
		if !ok {
			t.Errorf("kind %s not registered", kind)
			continue
		}
		for p, typ := range want {
			if s.Params[p] != typ {
				t.Errorf("%s.%s: got type %q, want %q", kind, p, s.Params[p], typ)
			}
		}
	}
	ex, _ := graph.LookupKind("exec")
	if ex.Sends["output"] != "str" || ex.Recv {
		t.Errorf("exec sends %v, recv %v", ex.Sends, ex.Recv)
	}
	fi, _ := graph.LookupKind("file")
	if !fi.Recv {
		t.Error("file cannot receive")
	}
	ts, _ := graph.LookupKind("test")
	if ts.Sends["hello"] != "str" || !ts.Recv {
		t.Errorf("test sends %v, recv %v", ts.Sends, ts.Recv)
	}
	pw, _ := graph.LookupKind("password")
	if pw.Sends["password"] != "str" {
		t.Errorf("password sends %v", pw.Sends)
	}
	r, err := engine.NewResource("password")
	if err != nil || r.(*PasswordRes).Length != 64 {
		t.Fatalf("password default: %v, %v", r, err)
	}
}

func TestNoopGroups(t *testing.T) {
	a, b := &NoopRes{}, &NoopRes{Comment: "other"}
	if err := a.GroupCmp(b); err != nil {
		t.Fatal(err)
	}
	if err := a.GroupRes(b); err != nil {
		t.Fatal(err)
	}
	if !b.IsGrouped() || len(a.GetGroup()) != 1 {
		t.Fatal("noop not grouped")
	}
	if a.GroupCmp(&TestRes{}) == nil {
		t.Fatal("noop groups with test")
	}
	h := newHarness(t)
	n := setup(t, h, "noop", "n", &NoopRes{})
	checkApply(t, n, true, true)
	startWatch(t, h, n)
}

func TestTestResource(t *testing.T) {
	if (&TestRes{ValidateBool: true}).Validate() == nil || (&TestRes{ValidateError: "boom"}).Validate() == nil {
		t.Fatal("validate errors not reported")
	}
	h := newHarness(t)
	r := setup(t, h, "test", "t", &TestRes{SendValue: "hi", ExpectRecv: &[]string{"anotherstr"}}).(*TestRes)
	if _, err := r.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "anotherstr") {
		t.Fatalf("missing recv: got %v", err)
	}
	h.recv = map[string]*engine.Send{"anotherstr": {Key: "hello", Changed: true}}
	checkApply(t, r, true, true)
	if s := h.sent.(*TestSends); *s.Hello != "hi" || s.Answer != 42 {
		t.Fatalf("sent %+v", s)
	}
	x, y := &TestRes{Int8: 3}, &TestRes{Int8: 3}
	if x.Cmp(y) != nil || x.GroupCmp(y) != nil {
		t.Fatal("equal test resources differ")
	}
	y.Int8 = 4
	if x.Cmp(y) == nil || x.GroupCmp(y) == nil {
		t.Fatal("different test resources compare equal")
	}
	x.AlwaysGroup, y.AlwaysGroup = true, true
	if x.GroupCmp(y) != nil {
		t.Fatal("alwaysgroup does not group")
	}
	if (&TestRes{CompareFail: true}).Cmp(&TestRes{CompareFail: true}) == nil {
		t.Fatal("comparefail compares equal")
	}
}

func TestPrint(t *testing.T) {
	h := newHarness(t)
	p := setup(t, h, "print", "p", &PrintRes{Msg: "hello"}).(*PrintRes)
	checkApply(t, p, true, true)
	checkApply(t, p, true, true)
	if got := strings.Count(h.logged(), "hello"); got != 1 {
		t.Fatalf("printed %d times, want once", got)
	}
	p.Msg = "changed"
	checkApply(t, p, true, true)
	if !strings.Contains(h.logged(), "changed") {
		t.Fatal("changed message not printed")
	}
}

// TestPrintRefreshOnly: with refresh_only, only a notification prints.
func TestPrintRefreshOnly(t *testing.T) {
	h := newHarness(t)
	p := setup(t, h, "print", "p", &PrintRes{Msg: "hello", RefreshOnly: true}).(*PrintRes)
	checkApply(t, p, true, true)
	p.Msg = "changed"
	checkApply(t, p, true, true)
	if h.logged() != "" {
		t.Fatalf("printed %q without a refresh", h.logged())
	}
	h.setRefresh(true)
	checkApply(t, p, true, true)
	if h.logged() != "msg: changed" {
		t.Fatalf("log %q after a refresh, want the message once", h.logged())
	}
}

// journalListener is a real unix datagram socket standing in for
// journald's.
func journalListener(t *testing.T) (string, *net.UnixConn) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "journal.sock")
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: p, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return p, c
}

func TestMsgJournal(t *testing.T) {
	sock, conn := journalListener(t)
	h := newHarness(t)
	m := &MsgRes{Body: "line one\nline two", Priority: "Warning", Fields: map[string]string{"unit_id": "42"}, Journal: true}
	m.socket = sock
	setup(t, h, "msg", "m", m)
	checkApply(t, m, false, false)
	checkApply(t, m, true, false)
	checkApply(t, m, true, true)
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 4096)
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	got := buf[:n]
	var msg bytes.Buffer
	msg.WriteString("MESSAGE\n")
	binary.Write(&msg, binary.LittleEndian, uint64(len(m.Body)))
	msg.WriteString(m.Body + "\n")
	for _, want := range [][]byte{msg.Bytes(), []byte("PRIORITY=4\n"), []byte("UNIT_ID=42\n"), []byte("SYSLOG_IDENTIFIER=mgmt-test\n")} {
		if !bytes.Contains(got, want) {
			t.Errorf("datagram %q lacks %q", got, want)
		}
	}
	if !strings.Contains(h.logged(), "warning: line one") {
		t.Errorf("log %q", h.logged())
	}
	if (&MsgRes{Priority: "loud"}).Validate() == nil || (&MsgRes{Fields: map[string]string{"_x": ""}}).Validate() == nil {
		t.Fatal("bad priority or field accepted")
	}
}

// TestMsgSyslog sends to real sockets standing in for /dev/log: a
// datagram one (journald's, rsyslog's) and a stream one.
func TestMsgSyslog(t *testing.T) {
	want := regexp.MustCompile(`^<28>[A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d app\[\d+\]: disk almost full\n?$`)
	dgram, conn := journalListener(t)
	stream := filepath.Join(t.TempDir(), "log")
	ln, err := net.Listen("unix", stream)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- err.Error()
			return
		}
		defer c.Close()
		b, _ := io.ReadAll(c)
		got <- string(b)
	}()
	for _, path := range []string{dgram, stream} {
		h := newHarness(t)
		m := &MsgRes{Body: "disk almost full", Priority: "Warning", Fields: map[string]string{"syslog_identifier": "app"}, Syslog: true}
		m.syslogPath = path
		setup(t, h, "msg", "m", m)
		checkApply(t, m, false, false)
		checkApply(t, m, true, false)
		checkApply(t, m, true, true) // sent once
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 4096)
	n, err := conn.Read(buf)
	if err != nil || !want.Match(buf[:n]) {
		t.Errorf("datagram %q, %v", buf[:n], err)
	}
	select {
	case s := <-got:
		if !want.MatchString(s) || !strings.HasSuffix(s, "\n") {
			t.Errorf("stream got %q", s)
		}
	case <-time.After(5 * time.Second):
		t.Error("nothing on the stream socket")
	}
	m := &MsgRes{Body: "x", Syslog: true}
	m.syslogPath = filepath.Join(t.TempDir(), "no-log")
	setup(t, newHarness(t), "msg", "m", m)
	if _, err := m.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "syslog:") {
		t.Fatalf("no syslog socket: got %v", err)
	}
}

func TestTimer(t *testing.T) {
	h := newHarness(t)
	tm := setup(t, h, "timer", "t", &TimerRes{Interval: 1}).(*TimerRes)
	checkApply(t, tm, true, true)
	startWatch(t, h, tm)
	expectEvent(t, h, "tick", func() {})
	checkApply(t, tm, false, false)
	checkApply(t, tm, true, false)
	checkApply(t, tm, true, true)
	// Without a Watch (as under Meta:poll) the schedule alone decides: a
	// CheckApply after the next tick reports it once. (Another timer: the
	// Watch of the first reads its schedule.)
	polled := setup(t, newHarness(t), "timer", "polled", &TimerRes{Interval: 1}).(*TimerRes)
	checkApply(t, polled, true, true)
	polled.start = polled.start.Add(-2 * time.Second)
	checkApply(t, polled, true, false)
	checkApply(t, polled, true, true)
	if (&TimerRes{}).Validate() == nil {
		t.Fatal("interval 0 accepted")
	}
}

func TestPassword(t *testing.T) {
	h := newHarness(t)
	p := setup(t, h, "password", "p", &PasswordRes{Length: 20, Saved: true}).(*PasswordRes)
	checkApply(t, p, false, false)
	checkApply(t, p, true, false)
	first := *h.sent.(*PasswordSends).Password
	if len(first) != 20 {
		t.Fatalf("password %q", first)
	}
	if fi, err := os.Stat(p.file); err != nil || fi.Mode().Perm() != 0o600 || mustRead(t, p.file) != first {
		t.Fatalf("saved file: %v %v", fi, err)
	}
	checkApply(t, p, true, true)
	if *h.sent.(*PasswordSends).Password != first {
		t.Fatal("password changed without a refresh")
	}
	// A restart (a new instance on the same state) keeps it.
	again := setup(t, h, "password", "p", &PasswordRes{Length: 20, Saved: true})
	checkApply(t, again, true, true)
	if *h.sent.(*PasswordSends).Password != first {
		t.Fatal("a saved password changed across a restart")
	}
	startWatch(t, h, p)
	expectEvent(t, h, "tampered", func() { mustWrite(t, p.file, "short") })
	if _, err := p.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "check_recovery") {
		t.Fatalf("an invalid saved password without check_recovery: got %v", err)
	}
	if mustRead(t, p.file) != "short" {
		t.Fatal("the invalid password was replaced without check_recovery")
	}
	p.CheckRecovery = true
	checkApply(t, p, true, false)
	second := *h.sent.(*PasswordSends).Password
	if len(second) != 20 || mustRead(t, p.file) != second {
		t.Fatalf("recovered password %q, saved %q", second, mustRead(t, p.file))
	}
	h.setRefresh(true)
	checkApply(t, p, true, false)
	if *h.sent.(*PasswordSends).Password == second {
		t.Fatal("refresh did not regenerate")
	}
}

// TestPasswordNotSaved: without saved the cleartext never stays on disk;
// the process keeps the password, a restart makes a new one, and a file
// a saved run left is taken over once, then removed.
func TestPasswordNotSaved(t *testing.T) {
	h := newHarness(t)
	p := setup(t, h, "password", "p", &PasswordRes{Length: 16}).(*PasswordRes)
	checkApply(t, p, true, false)
	first := *h.sent.(*PasswordSends).Password
	checkApply(t, p, true, true)
	if *h.sent.(*PasswordSends).Password != first || len(first) != 16 {
		t.Fatalf("sent %q then %q", first, *h.sent.(*PasswordSends).Password)
	}
	if exists(p.file) {
		t.Fatal("an unsaved password reached the disk")
	}
	restarted := setup(t, h, "password", "p", &PasswordRes{Length: 16})
	checkApply(t, restarted, true, false)
	if *h.sent.(*PasswordSends).Password == first {
		t.Fatal("an unsaved password survived a restart")
	}
	mustWrite(t, p.file, "abcdefghijklmnop")
	taken := setup(t, h, "password", "p", &PasswordRes{Length: 16})
	checkApply(t, taken, true, false)
	if *h.sent.(*PasswordSends).Password != "abcdefghijklmnop" || exists(p.file) {
		t.Fatalf("sent %q, file left: %v", *h.sent.(*PasswordSends).Password, exists(p.file))
	}
	checkApply(t, taken, true, true)
}

func TestValue(t *testing.T) {
	h := newHarness(t)
	i, f, b, s := int64(42), 1.0, true, "a \"quoted\" str"
	for _, tc := range []struct {
		key  string
		res  *ValueRes
		want string
	}{
		{"int key", &ValueRes{Int: &i}, "42"},
		{"float/key", &ValueRes{Float: &f}, "1.0"},
		{"bool", &ValueRes{Bool: &b}, "true"},
		{"str", &ValueRes{Str: &s}, `"a \"quoted\" str"`},
	} {
		v := setup(t, h, "value", tc.key, tc.res)
		checkApply(t, v, true, false)
		got := mustRead(t, ValuePath(h.prefix, tc.key))
		if got != tc.want {
			t.Errorf("%s: stored %q, want %q", tc.key, got, tc.want)
		}
		checkApply(t, v, true, true)
	}
	if _, err := os.Stat(filepath.Join(h.prefix, "value", "float%2Fkey")); err != nil {
		t.Fatalf("key not path-escaped: %v", err)
	}
	del := setup(t, h, "value", "x", &ValueRes{Key: "int key"})
	checkApply(t, del, true, false)
	if exists(ValuePath(h.prefix, "int key")) {
		t.Fatal("unset value not removed")
	}
	if (&ValueRes{Key: ".."}).Validate() == nil {
		t.Fatal("key .. accepted")
	}
	if (&ValueRes{Int: &i, Bool: &b, Key: "k"}).Validate() == nil {
		t.Fatal("two values accepted")
	}
	v := setup(t, h, "value", "w", &ValueRes{Str: &s}).(*ValueRes)
	startWatch(t, h, v)
	expectEvent(t, h, "value written", func() { checkApply(t, v, true, false) })
}

// TestValueAny stores values of any type as JSON, sends what is stored
// (decoded as parameters are), and refuses a second value or a null.
func TestValueAny(t *testing.T) {
	h := newHarness(t)
	var st any = map[string]any{"a": "x", "b": []any{json.Number("1"), json.Number("2")}}
	v := setup(t, h, "value", "k", &ValueRes{Any: &st}).(*ValueRes)
	checkApply(t, v, false, false)
	if h.sent != nil {
		t.Fatalf("sent %v before anything was stored", h.sent)
	}
	checkApply(t, v, true, false)
	if got := mustRead(t, ValuePath(h.prefix, "k")); got != `{"a":"x","b":[1,2]}` {
		t.Fatalf("stored %q", got)
	}
	sent := h.sent.(*ValueSends).Any
	if sent == nil || !reflect.DeepEqual(*sent, st) {
		t.Fatalf("sent %v, want %v", sent, st)
	}
	checkApply(t, v, true, true)
	mustWrite(t, ValuePath(h.prefix, "k"), `"edited"`)
	checkApply(t, v, true, false)
	if got := mustRead(t, ValuePath(h.prefix, "k")); got != `{"a":"x","b":[1,2]}` {
		t.Fatalf("drift not repaired: %q", got)
	}
	i := int64(1)
	var null any
	for _, bad := range []*ValueRes{{Key: "k", Any: &st, Int: &i}, {Key: "k", Any: &null}} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestMsgJournalLarge(t *testing.T) {
	sock, conn := journalListener(t)
	body := strings.Repeat("x", 4<<20) // beyond any datagram size
	if err := journalSend(sock, map[string]string{"MESSAGE": body}); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	oob := make([]byte, 64)
	n, oobn, _, _, err := conn.ReadMsgUnix(make([]byte, 16), oob)
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 || oobn == 0 {
		t.Fatalf("got %d data bytes and %d control bytes, want a descriptor only", n, oobn)
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		t.Fatal(msgs, err)
	}
	fds, err := syscall.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		t.Fatal(fds, err)
	}
	f := os.NewFile(uintptr(fds[0]), "memfd")
	defer f.Close()
	// journald reads the memfd from its start (the offset is shared).
	got, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<30))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, []byte("MESSAGE="+body+"\n")) {
		t.Fatalf("memfd holds %d bytes, want %d", len(got), len(body)+9)
	}
}
