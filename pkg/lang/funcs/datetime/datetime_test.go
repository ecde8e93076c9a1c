package datetime

import (
	"context"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func TestNextMidnight(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		testneed.Missing(t, "no time zone database (apt-get install tzdata)")
	}
	tests := []struct{ in, want time.Time }{
		{time.Date(2024, 1, 31, 13, 5, 0, 0, time.UTC), time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)},
		{time.Date(2024, 12, 31, 23, 59, 59, 0, time.UTC), time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)},
		{time.Date(2024, 2, 28, 0, 0, 0, 0, time.UTC), time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)},
		// the day DST starts is 23 hours long
		{time.Date(2024, 3, 10, 1, 0, 0, 0, ny), time.Date(2024, 3, 11, 0, 0, 0, 0, ny)},
	}
	for _, tc := range tests {
		if got := NextMidnight(tc.in); !got.Equal(tc.want) {
			t.Errorf("NextMidnight(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestWeekdays drives the stream with a clock that reads 100 ms before
// midnight on its first call and moves on with real time after: it emits
// the day, then the next one once the timer fires.
func TestWeekdays(t *testing.T) {
	base := time.Date(2024, 6, 2, 23, 59, 59, 900_000_000, time.Local) // a Sunday
	var start time.Time
	now := func() time.Time {
		if start.IsZero() {
			start = time.Now()
			return base
		}
		return base.Add(time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan values.Value, 10)
	done := make(chan error, 1)
	go func() { done <- weekdays(ctx, now, func(v values.Value) { ch <- v }) }()
	for _, want := range []string{"sunday", "monday"} {
		select {
		case v := <-ch:
			if v != values.Str(want) {
				t.Fatalf("got %s, want %s", v, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("timed out waiting for %s", want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
