package coredatetime

import (
	"context"
	"strings"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func unix(v values.Value) time.Time { return time.Unix(int64(v.(values.Int)), 0) }

func init() {
	funcs.Register("datetime", "print", "func(a int) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(unix(a[0]).Format(time.UnixDate)), nil
	}, funcs.Doc("A Unix time in the form of date(1): Mon Jan  2 15:04:05 MST 2006.", "datetime.print(0)"))
	funcs.Register("datetime", "format", "func(a int, b str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(unix(a[0]).Format(string(a[1].(values.Str)))), nil
	}, funcs.Doc("Formats a Unix time (seconds) in the local time zone with a Go layout, written as the reference time Mon Jan 2 15:04:05 MST 2006.", `datetime.format(0, "2006-01-02 15:04")`))
	funcs.Register("datetime", "hour", "func(a int) int", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Int(unix(a[0]).Hour()), nil
	}, funcs.Doc("The hour (0-23) of a Unix time in the local time zone.", "datetime.hour(0)"))
	funcs.Register("datetime", "weekday", "func(a int) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(strings.ToLower(unix(a[0]).Weekday().String())), nil
	}, funcs.Doc(`The day of the week of a Unix time, in lower case ("monday").`, "datetime.weekday(0)"))
	funcs.RegisterStream("datetime", "str_now", "func() str", func(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
		for {
			now := time.Now()
			emit(values.Str(now.Format(time.UnixDate)))
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(time.Until(now.Truncate(time.Second).Add(time.Second))):
			}
		}
	}, funcs.Doc("The current time in the form of date(1), a new value every second.", "datetime.str_now()"))
}
