package value

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// put writes a value into the store the way the value resource does: a
// temporary file renamed over the key's file.
func put(t *testing.T, prefix, key, js string) {
	t.Helper()
	p := Path(prefix, key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(p), ".tmp-test")
	if err := os.WriteFile(tmp, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}

type stream struct {
	ch   chan values.Value
	errc chan error
}

// start runs value.<name>(key) with result type out until the test ends.
func start(t *testing.T, name, key, prefix, out string) *stream {
	t.Helper()
	f, ok := funcs.Lookup("value", name)
	if !ok {
		t.Fatalf("value.%s not registered", name)
	}
	sig := types.MustParse("func(key str) " + out)
	c := &funcs.Call{Type: sig, Args: []values.Value{values.Str(key)}, Env: &funcs.Env{Prefix: prefix}}
	ctx, cancel := context.WithCancel(context.Background())
	s := &stream{ch: make(chan values.Value, 100), errc: make(chan error, 1)}
	go func() { s.errc <- f.Stream(ctx, c, func(v values.Value) { s.ch <- v }) }()
	t.Cleanup(func() {
		cancel()
		<-s.errc
	})
	return s
}

func (s *stream) want(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	var last values.Value
	for {
		select {
		case v := <-s.ch:
			if v.String() == want {
				return
			}
			last = v
		case err := <-s.errc:
			t.Fatalf("stream ended with %v while waiting for %s", err, want)
		case <-deadline:
			t.Fatalf("timed out waiting for %s (last %v)", want, last)
		}
	}
}

func TestGetStr(t *testing.T) {
	prefix := t.TempDir()
	s := start(t, "get_str", "greeting/one", prefix, "struct{value str; ready bool}")
	s.want(t, `struct{value => "", ready => false}`)
	put(t, prefix, "greeting/one", `"hello"`)
	s.want(t, `struct{value => "hello", ready => true}`)
	put(t, prefix, "greeting/one", `"bye"`)
	s.want(t, `struct{value => "bye", ready => true}`)
	if err := os.Remove(Path(prefix, "greeting/one")); err != nil {
		t.Fatal(err)
	}
	s.want(t, `struct{value => "", ready => false}`)
}

func TestGetTyped(t *testing.T) {
	prefix := t.TempDir()
	put(t, prefix, "i", "42")
	put(t, prefix, "f", "2.5")
	put(t, prefix, "b", "true")
	put(t, prefix, "fi", "3")
	start(t, "get_int", "i", prefix, "struct{value int; ready bool}").want(t, `struct{value => 42, ready => true}`)
	start(t, "get_float", "f", prefix, "struct{value float; ready bool}").want(t, `struct{value => 2.5, ready => true}`)
	start(t, "get_float", "fi", prefix, "struct{value float; ready bool}").want(t, `struct{value => 3.0, ready => true}`)
	start(t, "get_bool", "b", prefix, "struct{value bool; ready bool}").want(t, `struct{value => true, ready => true}`)
	start(t, "get", "i", prefix, "struct{value int; ready bool}").want(t, `struct{value => 42, ready => true}`)
}

func TestGetWrongType(t *testing.T) {
	prefix := t.TempDir()
	put(t, prefix, "i", "42")
	s := start(t, "get_str", "i", prefix, "struct{value str; ready bool}")
	select {
	case err := <-s.errc:
		if err == nil {
			t.Fatal("stream ended without an error")
		}
		s.errc <- err
	case v := <-s.ch:
		t.Fatalf("got %s, want an error", v)
	case <-time.After(5 * time.Second):
		t.Fatal("timed out")
	}
}

func TestInferGet(t *testing.T) {
	f, _ := funcs.Lookup("value", "get")
	out := types.NewVar()
	ic := &funcs.InferCtx{Args: []*types.Type{types.Str}, Consts: []values.Value{values.Str("k")}, Out: out}
	if err := f.Infer(ic); err != funcs.ErrDefer {
		t.Fatalf("got %v, want ErrDefer", err)
	}
	ic.Final = true
	if err := f.Infer(ic); err == nil {
		t.Fatal("an unknown value type was accepted")
	}
	ic.Final = false
	if err := types.Unify(out, types.MustParse("struct{value int; ready bool}")); err != nil {
		t.Fatal(err)
	}
	if err := f.Infer(ic); err != nil {
		t.Fatalf("got %v", err)
	}
}

// BenchmarkRead measures one read of a stored value, as done after each
// change of the key.
func BenchmarkRead(b *testing.B) {
	p := filepath.Join(b.TempDir(), "k")
	if err := os.WriteFile(p, []byte(`"some text"`), 0o644); err != nil {
		b.Fatal(err)
	}
	out := types.MustParse("struct{value str; ready bool}")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(p, out); err != nil {
			b.Fatal(err)
		}
	}
}

func TestReadEmptyIsUnset(t *testing.T) {
	p := filepath.Join(t.TempDir(), "k")
	if err := os.WriteFile(p, []byte(" \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := Read(p, types.MustParse("struct{value int; ready bool}"))
	if err != nil || v.String() != "struct{value => 0, ready => false}" {
		t.Fatalf("got %v, %v", v, err)
	}
}

// BenchmarkChangeLatency measures the time from an atomic write of a key
// to the stream's emission of the new value.
func BenchmarkChangeLatency(b *testing.B) {
	prefix := b.TempDir()
	f, _ := funcs.Lookup("value", "get_int")
	c := &funcs.Call{Type: f.Sigs[0], Args: []values.Value{values.Str("k")}, Env: &funcs.Env{Prefix: prefix}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := make(chan values.Value, 16)
	go f.Stream(ctx, c, func(v values.Value) { ch <- v })
	<-ch // not ready yet
	p := Path(prefix, "k")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		want := fmt.Sprintf("struct{value => %d, ready => true}", i)
		if err := os.WriteFile(p+".tmp", []byte(fmt.Sprint(i)), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(p+".tmp", p); err != nil {
			b.Fatal(err)
		}
		for v := range ch {
			if v.String() == want {
				break
			}
		}
	}
}
