package textdiff

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
)

// TestGolden compares the diffs of small texts with what GNU diff -u
// writes for them (the header lines aside).
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
	}{
		{"change", "a\nb\nc\n", "a\nB\nc\n"},
		{"add-end", "a\nb\n", "a\nb\nc\n"},
		{"remove-start", "a\nb\nc\nd\ne\nf\ng\nh\n", "b\nc\nd\ne\nf\ng\nh\n"},
		{"two-hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n", "1\nX\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\nY\n14\n"},
		{"merged-hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\nX\n3\n4\n5\n6\n7\nY\n9\n"},
		{"no-eol-old", "a\nb", "a\nb\n"},
		{"no-eol-new", "a\nb\n", "a\nc"},
		{"empty-old", "", "a\nb\n"},
		{"to-empty", "a\n", ""},
		{"moved", "a\nb\nc\nd\n", "c\nd\na\nb\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Unified("f", []byte(tc.old), []byte(tc.new), 1000)
			want := gnuDiff(t, tc.old, tc.new)
			got := d.Text[strings.Index(d.Text, "\n+++")+1:]
			got = got[strings.IndexByte(got, '\n')+1:]
			if tc.name == "moved" {
				// Several diffs are as short; check that ours applies.
				checkApplies(t, tc.old, tc.new, d.Text)
				return
			}
			if got != want {
				t.Errorf("diff:\n%s\nGNU diff:\n%s", got, want)
			}
		})
	}
}

// gnuDiff returns the hunks GNU diff -u writes for old and new.
func gnuDiff(t *testing.T, old, new string) string {
	t.Helper()
	testneed.Command(t, "diff", "diffutils")
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte(old), 0o600)
	os.WriteFile(b, []byte(new), 0o600)
	out, _ := exec.Command("diff", "-u", a, b).Output()
	s := string(out)
	for range 2 {
		s = s[strings.IndexByte(s, '\n')+1:]
	}
	return s
}

// checkApplies applies diff to old with patch(1) and checks that it gives
// new.
func checkApplies(t *testing.T, old, new, diff string) {
	t.Helper()
	testneed.Command(t, "patch", "patch")
	f := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(f, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("patch", "-s", "-f", f)
	cmd.Stdin = strings.NewReader(diff)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("patch: %v: %s\nold %q new %q diff:\n%s", err, out, old, new, diff)
	}
	got, _ := os.ReadFile(f)
	if string(got) != new {
		t.Fatalf("patched %q, want %q; diff:\n%s", got, new, diff)
	}
}

// TestRandomApplies: the diffs of random texts made of a few distinct
// lines (so with many repeats) apply with patch(1) and count their lines.
func TestRandomApplies(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	text := func() string {
		var b strings.Builder
		for range r.IntN(30) {
			fmt.Fprintf(&b, "l%d\n", r.IntN(6))
		}
		s := b.String()
		if len(s) > 0 && r.IntN(4) == 0 {
			s = s[:len(s)-1]
		}
		return s
	}
	for range 200 {
		old, new := text(), text()
		d := Unified("f", []byte(old), []byte(new), 1<<20)
		if old == new {
			if d.Added+d.Removed != 0 {
				t.Fatalf("equal texts, diff:\n%s", d.Text)
			}
			continue
		}
		checkApplies(t, old, new, d.Text)
		if n := strings.Count(d.Text, "\n+") - 1; n != d.Added {
			t.Fatalf("added %d, diff has %d:\n%s", d.Added, n, d.Text)
		}
	}
}

// TestCaps: the number of lines and the length of each are bounded;
// binary and absent texts are described.
func TestCaps(t *testing.T) {
	var old, new strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&old, "old %d\n", i)
		fmt.Fprintf(&new, "new %d\n", i)
	}
	d := Unified("f", []byte(old.String()), []byte(new.String()), 10)
	if lines := strings.Count(d.Text, "\n"); lines != 2+10+1 || !strings.HasSuffix(d.Text, "... 1991 more diff lines not shown\n") {
		t.Errorf("%d lines:\n%s", lines, d.Text)
	}
	if d.Added != 1000 || d.Removed != 1000 {
		t.Errorf("added %d removed %d", d.Added, d.Removed)
	}
	long := strings.Repeat("é", 1000)
	d = Unified("f", nil, []byte(long+"\n"), 10)
	if !strings.Contains(d.Text, "+"+strings.Repeat("é", 255)+"... (1490 more bytes)\n") || !strings.HasPrefix(d.Text, "--- /dev/null\n") {
		t.Errorf("long line:\n%s", d.Text)
	}
	if d := Unified("f", []byte("a\x00"), []byte("b"), 10); !d.Binary || d.Text != "binary files differ" {
		t.Errorf("binary: %+v", d)
	}
	if d := Unified("f", []byte("a\xff"), []byte("b"), 10); !d.Binary {
		t.Errorf("invalid UTF-8: %+v", d)
	}
	big := bytes.Repeat([]byte("x\n"), MaxInput/2+1)
	if d := Unified("f", big, nil, 10); !d.Large || !strings.Contains(d.Text, "too large") {
		t.Errorf("large: %+v", d.Text)
	}
}

// BenchmarkRepeated diffs texts of n lines made of a few distinct ones
// (no unique anchors), changed in many places: ns/line must stay flat as n
// grows (the budget keeps the work linear).
func BenchmarkRepeated(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(3, 4))
			var old, new strings.Builder
			for range n {
				fmt.Fprintf(&old, "%d\n", r.IntN(3))
				fmt.Fprintf(&new, "%d\n", r.IntN(3))
			}
			ob, nb := []byte(old.String()), []byte(new.String())
			for b.Loop() {
				Unified("f", ob, nb, 200)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/line")
		})
	}
}

// BenchmarkUnique diffs texts of n distinct lines with every tenth line
// changed.
func BenchmarkUnique(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var old, new strings.Builder
			for i := range n {
				fmt.Fprintf(&old, "line %d\n", i)
				if i%10 == 0 {
					fmt.Fprintf(&new, "changed %d\n", i)
				} else {
					fmt.Fprintf(&new, "line %d\n", i)
				}
			}
			ob, nb := []byte(old.String()), []byte(new.String())
			for b.Loop() {
				Unified("f", ob, nb, 200)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/line")
		})
	}
}
