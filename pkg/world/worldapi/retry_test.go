package worldapi

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	var b Backoff
	prev := time.Duration(0)
	for i := range 12 {
		d := b.Next()
		base := min(backoffMin<<i, backoffMax)
		if d > base || d < base-base/5 {
			t.Fatalf("try %d: waited %v, want within a fifth below %v", i, d, base)
		}
		if d < prev/2 {
			t.Fatalf("try %d: %v after %v", i, d, prev)
		}
		prev = d
	}
	b.Reset()
	if d := b.Next(); d > backoffMin {
		t.Fatalf("after Reset: %v, want at most %v", d, backoffMin)
	}
}
