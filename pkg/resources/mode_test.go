package resources

import (
	"strconv"
	"testing"
)

func FuzzParseMode(f *testing.F) {
	for _, s := range []string{"0644", "755", "u=rw,go=r", "a+X", "g-w,o=", "u+s,+t", "go=u", "=", "u"} {
		f.Add(s, uint32(0o644), false)
	}
	f.Fuzz(func(t *testing.T, s string, cur uint32, isDir bool) {
		m, err := parseMode(s)
		if err != nil {
			return
		}
		got := m.apply(cur&07777, isDir)
		if got > 07777 {
			t.Fatalf("%q on %04o gave %o, beyond 07777", s, cur&07777, got)
		}
		if m.octal {
			back, err := parseMode(m.String())
			if err != nil || back.bits != m.bits {
				t.Fatalf("%q: octal %s does not round trip", s, m.String())
			}
		}
		// Applying a mode twice changes nothing more (modes are idempotent).
		if again := m.apply(got, isDir); again != got {
			t.Fatalf("%q: applied twice gave %04o then %04o", s, got, again)
		}
	})
}

func TestModeApply(t *testing.T) {
	for _, tc := range []struct {
		mode  string
		cur   uint32
		isDir bool
		want  uint32
	}{
		{"u=rwx,g=rx,o=", 0o4777, false, 0o0750},
		{"u=rwx", 0o4755, true, 0o4755},
		{"+t", 0o755, true, 0o1755},
		{"o=g", 0o750, false, 0o755},
		{"a=", 0o777, false, 0},
		{"u+x,u-x", 0o644, false, 0o644},
		{"a-x+X", 0o755, true, 0o755},
	} {
		m, err := parseMode(tc.mode)
		if err != nil {
			t.Fatalf("%s: %v", tc.mode, err)
		}
		if got := m.apply(tc.cur, tc.isDir); got != tc.want {
			t.Errorf("%s on %s (dir %v): got %04o, want %04o", tc.mode, strconv.FormatUint(uint64(tc.cur), 8), tc.isDir, got, tc.want)
		}
	}
}

// TestOctalModesShared: resources that give the same octal mode, however
// spelt, share its parsed form; another mode has its own.
func TestOctalModesShared(t *testing.T) {
	a, errA := parseMode("0644")
	b, errB := parseMode("644")
	c, errC := parseMode("0600")
	if errA != nil || errB != nil || errC != nil {
		t.Fatal(errA, errB, errC)
	}
	if a != b {
		t.Errorf("0644 and 644 parsed apart")
	}
	if a == c || c.bits != 0600 || a.bits != 0644 || !a.octal {
		t.Errorf("0644 %+v, 0600 %+v", a, c)
	}
}
