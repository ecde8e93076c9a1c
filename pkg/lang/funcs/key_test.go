package funcs

import (
	"strconv"
	"strings"
	"testing"
)

// TestJoinKeyID checks that JoinKeyID gives JoinKey's key, short and past
// maxKeyLen.
func TestJoinKeyID(t *testing.T) {
	for _, parent := range []string{"", "m:main", strings.Repeat("x", maxKeyLen)} {
		for _, id := range []int{0, 7, 123456789} {
			want := JoinKey(parent, "b"+strconv.Itoa(id))
			if got := JoinKeyID(parent, "b", id); got != want {
				t.Errorf("JoinKeyID(%q, b, %d) = %q, want %q", parent, id, got, want)
			}
		}
	}
}
