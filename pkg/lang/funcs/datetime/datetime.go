// Package datetime adds to the mcl module "datetime" (the rest is in
// coredatetime): weekday_fast, the lower-case name of the current day in
// local time, emitted now and again at each local midnight (a timer set to
// the next midnight, not a ticker).
package datetime

import (
	"context"
	"strings"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"

	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coredatetime"
)

func init() {
	if _, dup := funcs.Lookup("datetime", "weekday_fast"); !dup {
		funcs.RegisterStream("datetime", "weekday_fast", "func() str", func(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
			return weekdays(ctx, time.Now, emit)
		}, funcs.Doc("Today's day of the week in lower case, a new value at each local midnight.", "datetime.weekday_fast()"))
	}
}

// weekdays emits the weekday of now() and again after each midnight.
func weekdays(ctx context.Context, now func() time.Time, emit func(values.Value)) error {
	for {
		t := now()
		emit(values.Str(strings.ToLower(t.Weekday().String())))
		timer := time.NewTimer(NextMidnight(t).Sub(t))
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case <-timer.C:
		}
	}
}

// NextMidnight returns the start of the day after t's, in t's location
// (days are not always 24 hours long).
func NextMidnight(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, t.Location())
}
