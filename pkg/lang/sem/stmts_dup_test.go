package sem

import (
	"fmt"
	"slices"
	"testing"
)

// TestEachDup: short and long lists (pairwise and through a map) report
// the same duplicates, each with the first key equal to it; empty keys
// are never duplicates.
func TestEachDup(t *testing.T) {
	for _, n := range []int{5, 16, 17, 1000} {
		keys := make([]string, n)
		var want [][2]int
		for i := range keys {
			switch {
			case i%3 == 2:
				keys[i] = fmt.Sprint(i - 2) // repeats the key two places up
				want = append(want, [2]int{i, i - 2})
			case i%3 == 1:
				keys[i] = ""
			default:
				keys[i] = fmt.Sprint(i)
			}
		}
		var got [][2]int
		eachDup(n, func(i int) string { return keys[i] }, func(i, first int) { got = append(got, [2]int{i, first}) })
		if !slices.Equal(got, want) {
			t.Errorf("%d keys: got %v, want %v", n, got, want)
		}
	}
}
