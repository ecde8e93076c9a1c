package resources

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxOutput bounds what exec keeps of a command's output, per stream (and
// for the two together): the last MiB. A command printing gigabytes thus
// costs the engine a few MiB, and what it sends says that the start was
// cut.
const maxOutput = 1 << 20

// maxLogOutput bounds what exec logs of a command's output: its end.
const maxLogOutput = 8 << 10

// maxOutputHead bounds the start of the output kept for error messages.
const maxOutputHead = 4096

// tailBuffer is an io.Writer that keeps the last max bytes written (and the
// first maxOutputHead ones) and counts them all.
type tailBuffer struct {
	max   int
	ring  []byte // up to max bytes; once full, ring[start:] is the oldest
	start int
	total int64
	head  []byte
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	t.total += int64(n)
	if len(t.head) < maxOutputHead {
		t.head = append(t.head, p[:min(len(p), maxOutputHead-len(t.head))]...)
	}
	if len(p) > t.max {
		p = p[len(p)-t.max:]
	}
	if room := t.max - len(t.ring); room > 0 {
		k := min(room, len(p))
		t.ring = append(t.ring, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		k := copy(t.ring[t.start:], p)
		t.start = (t.start + k) % t.max
		p = p[k:]
	}
	return n, nil
}

// cut returns how many bytes of the start were dropped.
func (t *tailBuffer) cut() int64 { return t.total - int64(len(t.ring)) }

// String returns the bytes kept, oldest first. When the start was cut, a
// first line says how much, and the partial character the cut may have
// left at the start is dropped.
func (t *tailBuffer) String() string { return t.last(len(t.ring)) }

// last returns the last n of the bytes kept (at most), as String does.
func (t *tailBuffer) last(n int) string {
	var b strings.Builder
	kept := t.ring[t.start:]
	rest := t.ring[:t.start]
	if skip := len(t.ring) - n; skip > 0 {
		if skip < len(kept) {
			kept = kept[skip:]
		} else {
			rest, kept = rest[skip-len(kept):], nil
		}
	}
	if cut := t.total - int64(len(kept)+len(rest)); cut > 0 {
		fmt.Fprintf(&b, "[output cut: the first %d of %d bytes are not kept]\n", cut, t.total)
		if len(kept) == 0 {
			kept, rest = rest, nil
		}
		for i := 0; i < utf8.UTFMax-1 && len(kept) > 0 && !utf8.RuneStart(kept[0]); i++ {
			kept = kept[1:]
		}
	}
	b.Grow(len(kept) + len(rest))
	b.Write(kept)
	b.Write(rest)
	return b.String()
}

// firstLine returns the first line of the output, for an error message.
func (t *tailBuffer) firstLine() string { return firstLine(t.head) }
