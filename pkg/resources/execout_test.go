package resources

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestTailBuffer: whatever the sizes of the writes, the buffer holds the
// last max bytes, the first ones for messages, and says what it cut.
func TestTailBuffer(t *testing.T) {
	var all bytes.Buffer
	for i := range 5000 {
		fmt.Fprintf(&all, "line %d\n", i)
	}
	data := all.Bytes()
	for _, chunk := range []int{1, 7, 100, 999, 1000, 4096, len(data)} {
		tb := newTailBuffer(1000)
		for p := data; len(p) > 0; {
			k := min(chunk, len(p))
			tb.Write(p[:k])
			p = p[k:]
		}
		want := fmt.Sprintf("[output cut: the first %d of %d bytes are not kept]\n", len(data)-1000, len(data)) + string(data[len(data)-1000:])
		if got := tb.String(); got != want {
			t.Fatalf("chunks of %d: got %q...", chunk, got[:100])
		}
		if tb.firstLine() != "line 0" {
			t.Fatalf("first line %q", tb.firstLine())
		}
	}
	small := newTailBuffer(1000)
	small.Write([]byte("short\n"))
	if small.String() != "short\n" || small.cut() != 0 {
		t.Fatalf("uncut output %q", small.String())
	}
	// A cut through a character drops its remains.
	u := newTailBuffer(4)
	u.Write([]byte("éé")) // c3 a9 c3 a9
	u.Write([]byte("x"))  // keeps a9 c3 a9 x
	if got := u.String(); !strings.HasSuffix(got, "]\néx") {
		t.Fatalf("got %q", got)
	}
}

// TestExecOutputCut: a command printing more than maxOutput sends the last
// maxOutput bytes of each stream after a line saying so, and logs it.
func TestExecOutputCut(t *testing.T) {
	h := newHarness(t)
	e := newExec(t, h, &ExecRes{Cmd: "head -c 3000000 /dev/zero | tr '\\0' a; echo end; echo err >&2", Shell: "/bin/sh"})
	checkApply(t, e, true, false)
	s := h.sent.(*ExecSends)
	first, rest, _ := strings.Cut(*s.Stdout, "\n")
	if first != "[output cut: the first 1951428 of 3000004 bytes are not kept]" || len(rest) != maxOutput || !strings.HasSuffix(rest, "aaaend\n") {
		t.Fatalf("stdout starts %q, %d bytes kept", first, len(rest))
	}
	if *s.Stderr != "err\n" || !strings.HasPrefix(*s.Output, "[output cut: the first 1951432 of 3000008 bytes") {
		t.Fatalf("stderr %q, output %.80q", *s.Stderr, *s.Output)
	}
	if !strings.Contains(h.logged(), "the command printed 3000008 bytes: only the last 1048576 of stdout and stderr are kept") {
		t.Fatalf("log:\n%s", h.logged())
	}
}

// TestTailLast: last returns the end of what is kept, saying how much of
// the start is not shown, whether the ring wrapped or not.
func TestTailLast(t *testing.T) {
	tb := newTailBuffer(30)
	io.WriteString(tb, strings.Repeat("0123456789", 10))
	if got, want := tb.last(5), "[output cut: the first 95 of 100 bytes are not kept]\n56789"; got != want {
		t.Errorf("wrapped: %q, want %q", got, want)
	}
	if got, want := tb.last(25), "[output cut: the first 75 of 100 bytes are not kept]\n5678901234567890123456789"; got != want {
		t.Errorf("wrapped, across the ring's start: %q, want %q", got, want)
	}
	small := newTailBuffer(1000)
	io.WriteString(small, "abcdef")
	if got, want := small.last(3), "[output cut: the first 3 of 6 bytes are not kept]\ndef"; got != want {
		t.Errorf("not wrapped: %q, want %q", got, want)
	}
	if got := small.last(100); got != "abcdef" {
		t.Errorf("all: %q", got)
	}
}
