// Package coredatetime holds the mcl module "datetime".
package coredatetime

import (
	"context"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func init() {
	// now emits the current Unix time in seconds, then again at every
	// change of second.
	funcs.RegisterStream("datetime", "now", "func() int", func(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
		for {
			now := time.Now()
			emit(values.Int(now.Unix()))
			next := now.Truncate(time.Second).Add(time.Second)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(time.Until(next)):
			}
		}
	}, funcs.Doc("The current Unix time in seconds, a new value every second.", "datetime.now()"))
}
