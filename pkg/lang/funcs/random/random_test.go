package random

import (
	"context"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func TestRandom1(t *testing.T) {
	f, ok := funcs.Lookup("", "random1")
	if !ok {
		t.Fatal("random1 not registered")
	}
	seen := map[string]bool{}
	for _, n := range []int64{0, 1, 16, 1000} {
		v, err := f.Impl(context.Background(), &funcs.Call{Type: f.Sigs[0], Args: []values.Value{values.Int(n)}})
		if err != nil {
			t.Fatal(err)
		}
		s := string(v.(values.Str))
		if int64(len(s)) != n || strings.Trim(s, alphabet) != "" {
			t.Fatalf("random1(%d) = %q", n, s)
		}
		if n >= 16 && seen[s] {
			t.Fatalf("random1(%d) repeated %q", n, s)
		}
		seen[s] = true
	}
	for _, n := range []int64{-1, maxLength + 1} {
		if _, err := String(n); err == nil {
			t.Errorf("String(%d) succeeded", n)
		}
	}
}

// TestRandom1Spread checks that every character shows up and none is
// favoured grossly (a loose bound: 62,000 draws, about 1,000 each).
func TestRandom1Spread(t *testing.T) {
	s, err := String(62000)
	if err != nil {
		t.Fatal(err)
	}
	count := map[rune]int{}
	for _, r := range s {
		count[r]++
	}
	for _, r := range alphabet {
		if c := count[r]; c < 700 || c > 1300 {
			t.Errorf("%q drawn %d times", r, c)
		}
	}
}
