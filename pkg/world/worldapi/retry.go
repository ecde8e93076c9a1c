package worldapi

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"syscall"
	"time"
)

// Transient reports whether err is a failure the world recovers from by
// itself, as far as can be told without the world's own client: a
// request that ran out of time, a connection refused, reset or timed out,
// or an error that says so of itself with a method Transient() bool (the
// errors a world reached through another process passes on). pkg/world
// adds the status codes of its etcd client.
func Transient(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var t interface{ Transient() bool }
	if errors.As(err, &t) && t.Transient() {
		return true
	}
	for _, errno := range []syscall.Errno{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED,
		syscall.EPIPE, syscall.ENOENT, syscall.ETIMEDOUT, syscall.EHOSTUNREACH, syscall.ENETUNREACH} {
		if errors.Is(err, errno) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Backoff bounds of the retries of a request the world could not answer.
const (
	backoffMin = 100 * time.Millisecond
	backoffMax = 5 * time.Second
)

// A Backoff spaces the retries of a request the world could not answer:
// 100ms, doubling to at most 5s, each wait shortened by up to a fifth at
// random so that the hosts a failure hit together do not all come back in
// the same instant. The zero value is ready to use.
type Backoff struct {
	next time.Duration
}

// Next returns how long to wait before the next try.
func (b *Backoff) Next() time.Duration {
	if b.next == 0 {
		b.next = backoffMin
	}
	d := b.next
	b.next = min(2*b.next, backoffMax)
	return d - time.Duration(rand.Int64N(int64(d/5)+1))
}

// Reset starts the sequence again, after a success.
func (b *Backoff) Reset() { b.next = 0 }

// Wait sleeps for Next, and reports false if ctx ended first.
func (b *Backoff) Wait(ctx context.Context) bool {
	return Sleep(ctx, b.Next())
}

// Sleep waits for d, and reports false if ctx ended first.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Pass sends a notification on out unless one is already pending (a
// consumer reads the world again on any notification, so one is enough).
func Pass(out chan error, e error) {
	select {
	case out <- e:
	default:
	}
}

// Failed returns a watch channel that reports err once and closes with
// ctx.
func Failed(ctx context.Context, err error) <-chan error {
	ch := make(chan error, 1)
	ch <- err
	go func() {
		<-ctx.Done()
		close(ch)
	}()
	return ch
}
