package sys

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func TestHostnameFromEnv(t *testing.T) {
	var got []values.Value
	c := &funcs.Call{Type: types.MustParse("func() str"), Env: &funcs.Env{Hostname: "h1.override.invalid"}}
	if err := hostname(context.Background(), c, func(v values.Value) { got = append(got, v) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != values.Str("h1.override.invalid") {
		t.Fatalf("got %v", got)
	}
}

// TestHostnameWatch checks that the stream re-reads the hostname when the
// watched file changes: each write produces one more emission.
func TestHostnameWatch(t *testing.T) {
	hostnameFile = t.TempDir() + "/hostname"
	want, _ := os.Hostname()
	ch := make(chan values.Value, 10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	// the compiler passes the kernel's hostname by default: still watched
	c := &funcs.Call{Type: types.MustParse("func() str"), Env: &funcs.Env{Hostname: want}}
	go func() { done <- hostname(ctx, c, func(v values.Value) { ch <- v }) }()
	for i := 0; i < 2; i++ {
		select {
		case v := <-ch:
			if v != values.Str(want) {
				t.Fatalf("got %s, want %q", v, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no emission %d", i)
		}
		if err := os.WriteFile(hostnameFile, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
