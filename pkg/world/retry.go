package world

import (
	"context"
	"errors"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
)

// Transient reports whether err is a failure the world recovers from by
// itself, so that the request is worth trying again later: a request that
// ran out of time (a slow or stopped member), a cluster without a leader
// or quorum, a member that refuses or drops connections (restarting), too
// many requests, or a watch the cluster closed (worldapi.Transient, and
// the status codes of the etcd client). Bad keys, refused permissions and
// wrong certificates are not transient: trying again cannot help.
//
// A caller whose own context has ended gets context errors that are not
// the world's doing: it checks its context first.
func Transient(err error) bool {
	if worldapi.Transient(err) {
		return true
	}
	if err == nil {
		return false
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

// A Backoff spaces the retries of a request the world could not answer
// (see worldapi.Backoff).
type Backoff = worldapi.Backoff

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
		if !worldapi.Sleep(ctx, d) {
			return ctx.Err()
		}
	}
}
