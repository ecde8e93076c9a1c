package world

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestTransient(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"deadline", context.DeadlineExceeded, true},
		{"wrapped deadline", fmt.Errorf("world: %w", context.DeadlineExceeded), true},
		{"refused", refused, true},
		{"unreachable cluster", fmt.Errorf("world: cluster at x unreachable: %w", refused), true},
		{"no leader", rpctypes.ErrNoLeader, true},
		{"request timed out", rpctypes.ErrTimeout, true},
		{"leader changed", rpctypes.ErrLeaderChanged, true},
		{"too many requests", rpctypes.ErrTooManyRequests, true},
		{"grpc unavailable", status.Error(codes.Unavailable, "connection error"), true},
		{"grpc deadline", status.Error(codes.DeadlineExceeded, "slow"), true},
		{"watch closed", errWatchClosed, true},
		{"permission denied", rpctypes.ErrPermissionDenied, false},
		{"socket of another user", &net.OpError{Op: "dial", Net: "unix", Err: os.NewSyscallError("connect", syscall.EACCES)}, false},
		{"bad key", errors.New("invalid key"), false},
		{"canceled", context.Canceled, false},
	} {
		if got := Transient(c.err); got != c.want {
			t.Errorf("%s: Transient(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}

// TestRetry checks that Retry tries a transient failure again, logging
// the outage and its end, and gives up at once on any other error.
func TestRetry(t *testing.T) {
	ctx := context.Background()
	var logs []string
	logf := func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }
	n := 0
	err := Retry(ctx, logf, "reading x", func(context.Context) error {
		if n++; n < 3 {
			return rpctypes.ErrNoLeader
		}
		return nil
	})
	if err != nil || n != 3 || len(logs) != 3 {
		t.Fatalf("Retry = %v after %d calls, logs %q", err, n, logs)
	}
	if logs[2] != "reading x: the world answers again" {
		t.Fatalf("last log %q", logs[2])
	}
	n = 0
	bad := errors.New("invalid key")
	if err := Retry(ctx, nil, "x", func(context.Context) error { n++; return bad }); err != bad || n != 1 {
		t.Fatalf("Retry of a lasting error = %v after %d calls", err, n)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := Retry(cctx, nil, "x", func(context.Context) error { return context.DeadlineExceeded }); err != context.Canceled {
		t.Fatalf("Retry with an ended context = %v", err)
	}
}
