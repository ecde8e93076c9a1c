package library

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// libStream is a running streaming function of the library.
type libStream struct {
	ch   chan values.Value
	done chan error
}

// startStream runs the streaming function fn (module.name) with args
// until the test ends.
func startStream(t *testing.T, fn string, args ...any) *libStream {
	t.Helper()
	i := strings.LastIndex(fn, ".")
	f, ok := funcs.Lookup(fn[:i], fn[i+1:])
	if !ok || f.Stream == nil {
		t.Fatalf("%s is not a registered stream", fn)
	}
	vs := make([]values.Value, len(args))
	for i, a := range args {
		vs[i] = val(a)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &libStream{ch: make(chan values.Value, 1000), done: make(chan error, 1)}
	c := &funcs.Call{Type: f.Sigs[0], Args: vs, Env: &funcs.Env{Getenv: os.LookupEnv, Logf: t.Logf}}
	emit := func(v values.Value) {
		select {
		case s.ch <- v:
		case <-ctx.Done(): // the test is over; do not block the stream
		}
	}
	go func() { s.done <- f.Stream(ctx, c, emit) }()
	t.Cleanup(func() {
		cancel()
		<-s.done
	})
	return s
}

// next returns the next value, failing after a deadline.
func (s *libStream) next(t *testing.T) values.Value {
	t.Helper()
	select {
	case v := <-s.ch:
		return v
	case err := <-s.done:
		s.done <- err
		select { // values emitted before the end come first
		case v := <-s.ch:
			return v
		default:
		}
		t.Fatalf("stream ended (%v) while a value was expected", err)
	case <-time.After(10 * time.Second):
		t.Fatal("timed out waiting for a value")
	}
	return nil
}

// until reads values until one prints as want.
func (s *libStream) until(t *testing.T, want string) {
	t.Helper()
	for {
		if v := s.next(t); v.String() == want {
			return
		}
	}
}

// end waits for the stream to close by itself and returns its error.
func (s *libStream) end(t *testing.T) error {
	t.Helper()
	select {
	case err := <-s.done:
		s.done <- err
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("stream did not end")
	}
	return nil
}

func TestOSReadfileStream(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startStream(t, "os.readfile", p)
	s.until(t, `"one"`)
	if err := os.WriteFile(p, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.until(t, `"two"`)
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, []byte("three"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	s.until(t, `"three"`)
}

func TestOSFileExistsStream(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	s := startStream(t, "os.file_exists", p)
	s.until(t, "false")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s.until(t, "true")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	s.until(t, "false")
}

func TestOSSystemStream(t *testing.T) {
	s := startStream(t, "os.system", "echo first; echo second")
	s.until(t, `"first"`)
	s.until(t, `"second"`)
	if err := s.end(t); err != nil {
		t.Fatalf("a command exiting 0 ended with %v", err)
	}
	f := startStream(t, "os.system", "exit 3")
	if err := f.end(t); err == nil {
		t.Fatal("a failing command ended without an error")
	}
}

func TestTickingStreams(t *testing.T) {
	start := time.Now().Unix()
	now := startStream(t, "datetime.now")
	a := now.next(t).(values.Int)
	b := now.next(t).(values.Int)
	if b <= a || int64(a) < start-1 {
		t.Errorf("datetime.now emitted %d then %d", a, b)
	}
	load := startStream(t, "sys.load")
	v := load.next(t)
	if !types.Equal(v.Type(), types.MustParse("struct{x1 float; x5 float; x15 float}")) {
		t.Errorf("sys.load emitted %s", v)
	}
	up := startStream(t, "sys.uptime")
	if u := up.next(t).(values.Int); u <= 0 {
		t.Errorf("sys.uptime emitted %d", u)
	}
	cpus := startStream(t, "sys.cpu_count")
	if n := cpus.next(t).(values.Int); n < 1 {
		t.Errorf("sys.cpu_count emitted %d", n)
	}
	wd := startStream(t, "datetime.weekday_fast")
	if got, want := wd.next(t), values.Str(strings.ToLower(time.Now().Weekday().String())); got != want {
		t.Errorf("weekday_fast emitted %s, want %s", got, want)
	}
}

func TestTestModuleStreams(t *testing.T) {
	one := startStream(t, "test.one_stream", 3)
	one.next(t)
	if err := one.end(t); err != nil {
		t.Errorf("one_stream: %v", err)
	}
	fc := startStream(t, "test.fastcount")
	first := fc.next(t).(values.Int)
	for i := 0; i < 10; i++ {
		if v := fc.next(t).(values.Int); v <= first {
			t.Fatalf("fastcount went from %d to %d", first, v)
		} else {
			first = v
		}
	}
}
