package world

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"syscall"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Transient reports whether err is a failure the world recovers from by
// itself, so that the request is worth trying again later: a request that
// ran out of time (a slow or stopped member), a cluster without a leader
// or quorum, a member that refuses or drops connections (restarting), too
// many requests, or a watch the cluster closed. Bad keys, refused
// permissions and wrong certificates are not transient: trying again
// cannot help.
//
// A caller whose own context has ended gets context errors that are not
// the world's doing: it checks its context first.
func Transient(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errWatchClosed) {
		return true
	}
	for _, errno := range []syscall.Errno{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED,
		syscall.EPIPE, syscall.ENOENT, syscall.ETIMEDOUT, syscall.EHOSTUNREACH, syscall.ENETUNREACH} {
		if errors.Is(err, errno) {
			return true
		}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var coded interface{ Code() codes.Code }
	code := status.Code(err)
	if code == codes.Unknown && errors.As(err, &coded) {
		code = coded.Code() // etcd's own errors (rpctypes.EtcdError)
	}
	switch code {
	case codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted, codes.Aborted:
		return true
	}
	return false
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
	return sleep(ctx, b.Next())
}

// sleep waits for d, and reports false if ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Retry calls op until it succeeds, fails with an error that is not
// Transient, or ctx ends (it then returns ctx's error). Each transient
// failure is logged through logf (when not nil) as "what: error (retrying
// in D)", and the first success after failures as "what: the world
// answers again", so that an operator sees an outage begin and end.
func Retry(ctx context.Context, logf func(string, ...any), what string, op func(context.Context) error) error {
	var b Backoff
	failed := false
	for {
		err := op(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil {
			if failed && logf != nil {
				logf("%s: the world answers again", what)
			}
			return nil
		}
		if !Transient(err) {
			return err
		}
		d := b.Next()
		if logf != nil {
			logf("%s: %v (retrying in %v)", what, err, d.Round(time.Millisecond))
		}
		failed = true
		if !sleep(ctx, d) {
			return ctx.Err()
		}
	}
}
