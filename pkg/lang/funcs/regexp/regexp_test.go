package regexp

import (
	"context"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func TestMatch(t *testing.T) {
	f, _ := funcs.Lookup("regexp", "match")
	tests := []struct {
		pattern, s string
		want       bool
		err        bool
	}{
		{"^ab+c$", "abbbc", true, false},
		{"^ab+c$", "ac", false, false},
		{`\d{3}`, "x1234", true, false},
		{"", "anything", true, false},
		{"(?i)HELLO", "hello world", true, false},
		{"a(b", "ab", false, true},
		{"[z-a]", "x", false, true},
	}
	for _, tc := range tests {
		for round := 0; round < 2; round++ { // second round uses the cache
			v, err := f.Impl(context.Background(), &funcs.Call{Type: f.Sigs[0], Args: []values.Value{values.Str(tc.pattern), values.Str(tc.s)}})
			if tc.err {
				if err == nil || !funcs.IsCatchable(err) {
					t.Errorf("match(%q, %q): got error %v, want a catchable one", tc.pattern, tc.s, err)
				}
				continue
			}
			if err != nil || v != values.Bool(tc.want) {
				t.Errorf("match(%q, %q) = %v, %v; want %v", tc.pattern, tc.s, v, err, tc.want)
			}
		}
	}
}
