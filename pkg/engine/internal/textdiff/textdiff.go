// Package textdiff writes unified diffs of two texts, for the engine's
// report of a content change.
//
// # Matching lines
//
// The lines two texts have in common are found in regions, starting with
// the whole texts. In a region, the common first and last lines match;
// between them, the lines that occur exactly once on each side are
// anchors, and the longest run of anchors in the same order on both sides
// (a longest increasing subsequence, found by patience sorting in
// O(k log k)) matches and splits the region into smaller ones, handled the
// same way. A region without such anchors is matched by the classic
// dynamic programme of the longest common subsequence when it is small
// (at most maxCells line pairs), and otherwise shown as removed and added
// whole. A budget of line visits, linear in the size of the texts, bounds
// the whole: once it is spent, the regions left are shown removed and
// added whole. The diff is thus always right (applying it to the old text
// gives the new one) and costs linear time, at the price of a diff larger
// than the smallest one for texts made of many repeated lines.
package textdiff

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Bounds of the work and of the output.
const (
	// MaxInput bounds the size of the two texts together: larger ones
	// are described, not diffed.
	MaxInput = 8 << 20
	// MaxLineBytes bounds each line of the output; a longer line is cut
	// and says how much.
	MaxLineBytes = 512
	// maxCells bounds the dynamic programme of a region without anchors.
	maxCells = 1 << 16
	// smallCells bounds the regions matched by the dynamic programme
	// at once, without looking for anchors first.
	smallCells = 64
	// context is the number of unchanged lines around each change.
	context = 3
)

// A Diff is the comparison of two texts.
type Diff struct {
	Text    string // the unified diff, or a line saying why there is none
	Added   int    // lines added (0 for binary or too large texts)
	Removed int    // lines removed
	Binary  bool   // one of the texts is not UTF-8 text
	Large   bool   // the texts are too large to compare line by line
}

// IsBinary reports whether b is not text: it holds a NUL byte or is not
// valid UTF-8.
func IsBinary(b []byte) bool {
	return bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b)
}

// Unified compares the text old (nil: absent) with new (nil: absent) and
// returns the diff labelled with name, at most maxLines lines of it after
// the two header lines (then a line saying how many were cut).
func Unified(name string, old, new []byte, maxLines int) Diff {
	if IsBinary(old) || IsBinary(new) {
		return Diff{Text: "binary files differ", Binary: true}
	}
	if len(old)+len(new) > MaxInput {
		return Diff{Text: fmt.Sprintf("files too large to compare (%d and %d bytes)", len(old), len(new)), Large: true}
	}
	a, b := splitLines(old), splitLines(new)
	ops := script(a, b, pairs(a, b))
	d := Diff{}
	for _, o := range ops {
		switch o.kind {
		case '-':
			d.Removed++
		case '+':
			d.Added++
		}
	}
	from, to := name+"\tcurrent", name+"\twanted"
	if old == nil {
		from = "/dev/null"
	}
	if new == nil {
		to = "/dev/null"
	}
	w := &writer{max: maxLines}
	w.b.WriteString("--- " + from + "\n+++ " + to + "\n")
	writeHunks(w, ops, a, b)
	if w.cut > 0 {
		fmt.Fprintf(&w.b, "... %d more diff lines not shown\n", w.cut)
	}
	d.Text = w.b.String()
	return d
}

// noEOL marks a last line without a newline: such a line differs from
// the same line with one. Text holds no NUL byte (IsBinary), so the mark
// cannot be part of a line.
const noEOL = "\x00"

// splitLines splits s into lines without their newline; a last line
// without one ends with noEOL.
func splitLines(s []byte) []string {
	if len(s) == 0 {
		return nil
	}
	t := string(s)
	if t[len(t)-1] == '\n' {
		t = t[:len(t)-1]
	} else {
		t += noEOL
	}
	return strings.Split(t, "\n")
}

// An op is one line of the edit script: ' ' kept (a[i] = b[j]), '-'
// removed (a[i]), '+' added (b[j]).
type op struct {
	kind byte
	i, j int
}

// script turns the matched pairs (increasing in both indexes) into the
// edit script from a to b.
func script(a, b []string, ps [][2]int) []op {
	var ops []op
	i, j := 0, 0
	emit := func(pi, pj int) {
		for ; i < pi; i++ {
			ops = append(ops, op{'-', i, j})
		}
		for ; j < pj; j++ {
			ops = append(ops, op{'+', i, j})
		}
	}
	for _, p := range ps {
		emit(p[0], p[1])
		ops = append(ops, op{' ', i, j})
		i, j = i+1, j+1
	}
	emit(len(a), len(b))
	return ops
}

// region is a part of the texts still to match: a[a0:a1], b[b0:b1].
type region struct{ a0, a1, b0, b1 int }

// pairs returns the matched line pairs of a and b, sorted.
func pairs(a, b []string) [][2]int {
	var out [][2]int
	budget := 16*(len(a)+len(b)) + maxCells
	work := []region{{0, len(a), 0, len(b)}}
	for len(work) > 0 {
		r := work[len(work)-1]
		work = work[:len(work)-1]
		for r.a0 < r.a1 && r.b0 < r.b1 && a[r.a0] == b[r.b0] {
			out = append(out, [2]int{r.a0, r.b0})
			r.a0, r.b0 = r.a0+1, r.b0+1
		}
		for r.a0 < r.a1 && r.b0 < r.b1 && a[r.a1-1] == b[r.b1-1] {
			r.a1, r.b1 = r.a1-1, r.b1-1
			out = append(out, [2]int{r.a1, r.b1})
		}
		n, m := r.a1-r.a0, r.b1-r.b0
		if n == 0 || m == 0 || budget <= 0 {
			continue
		}
		budget -= n + m
		if n*m <= smallCells {
			budget -= n * m
			out = append(out, lcs(a, b, r)...)
			continue
		}
		if anchors := uniqueAnchors(a, b, r); len(anchors) > 0 {
			prev := [2]int{r.a0 - 1, r.b0 - 1}
			for _, p := range anchors {
				out = append(out, p)
				work = append(work, region{prev[0] + 1, p[0], prev[1] + 1, p[1]})
				prev = p
			}
			work = append(work, region{prev[0] + 1, r.a1, prev[1] + 1, r.b1})
			continue
		}
		if n*m <= maxCells && budget >= n*m {
			budget -= n * m
			out = append(out, lcs(a, b, r)...)
		}
	}
	slices.SortFunc(out, func(x, y [2]int) int { return x[0] - y[0] })
	return out
}

// uniqueAnchors returns the longest sequence of lines that occur once in
// each side of r, in the same order on both.
func uniqueAnchors(a, b []string, r region) [][2]int {
	type seen struct{ na, nb, j int }
	m := make(map[string]*seen, r.a1-r.a0)
	for i := r.a0; i < r.a1; i++ {
		s := m[a[i]]
		if s == nil {
			s = &seen{}
			m[a[i]] = s
		}
		s.na++
	}
	for j := r.b0; j < r.b1; j++ {
		if s := m[b[j]]; s != nil {
			s.nb++
			s.j = j
		}
	}
	var cand [][2]int
	for i := r.a0; i < r.a1; i++ {
		if s := m[a[i]]; s.na == 1 && s.nb == 1 {
			cand = append(cand, [2]int{i, s.j})
		}
	}
	return increasing(cand)
}

// increasing returns the longest subsequence of cand (sorted by its first
// index) whose second indexes increase, by patience sorting.
func increasing(cand [][2]int) [][2]int {
	if len(cand) == 0 {
		return nil
	}
	var tops []int                 // index in cand of the top card of each pile
	back := make([]int, len(cand)) // the card below, on the previous pile
	for k, c := range cand {
		p := sort.Search(len(tops), func(x int) bool { return cand[tops[x]][1] > c[1] })
		back[k] = -1
		if p > 0 {
			back[k] = tops[p-1]
		}
		if p == len(tops) {
			tops = append(tops, k)
		} else {
			tops[p] = k
		}
	}
	out := make([][2]int, len(tops))
	for k, x := len(tops)-1, tops[len(tops)-1]; k >= 0; k, x = k-1, back[x] {
		out[k] = cand[x]
	}
	return out
}

// lcs returns the pairs of a longest common subsequence of the lines of
// r, by dynamic programming over its n*m line pairs.
func lcs(a, b []string, r region) [][2]int {
	n, m := r.a1-r.a0, r.b1-r.b0
	t := make([]int32, (n+1)*(m+1)) // t[i*(m+1)+j]: LCS length of the suffixes from i and j
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			k := i*(m+1) + j
			switch {
			case a[r.a0+i] == b[r.b0+j]:
				t[k] = t[k+m+2] + 1
			case t[k+m+1] >= t[k+1]:
				t[k] = t[k+m+1]
			default:
				t[k] = t[k+1]
			}
		}
	}
	var out [][2]int
	for i, j := 0, 0; i < n && j < m; {
		k := i*(m+1) + j
		switch {
		case a[r.a0+i] == b[r.b0+j]:
			out = append(out, [2]int{r.a0 + i, r.b0 + j})
			i, j = i+1, j+1
		case t[k+m+1] >= t[k+1]:
			i++
		default:
			j++
		}
	}
	return out
}

// writer collects the lines of a diff up to max of them, and counts the
// others.
type writer struct {
	b   strings.Builder
	max int
	n   int
	cut int
}

func (w *writer) line(s string) {
	if w.n >= w.max {
		w.cut++
		return
	}
	w.n++
	if len(s) > MaxLineBytes {
		k := MaxLineBytes
		for k > 0 && !utf8.RuneStart(s[k]) {
			k--
		}
		s = fmt.Sprintf("%s... (%d more bytes)", s[:k], len(s)-k)
	}
	w.b.WriteString(s)
	w.b.WriteByte('\n')
}

// writeHunks writes the changes of ops as hunks with context lines around
// them.
func writeHunks(w *writer, ops []op, a, b []string) {
	for start := 0; start < len(ops); {
		for start < len(ops) && ops[start].kind == ' ' {
			start++
		}
		if start == len(ops) {
			return
		}
		// The hunk runs from context lines before the first change to
		// context lines after the last change that is no more than
		// 2*context kept lines from the next.
		lo := max(start-context, 0)
		end := start
		for k := start; k < len(ops); k++ {
			if ops[k].kind != ' ' {
				end = k + 1
				continue
			}
			if k-end >= 2*context {
				break
			}
		}
		hi := min(end+context, len(ops))
		writeHunk(w, ops[lo:hi], a, b)
		start = hi
	}
}

// writeHunk writes one hunk: its header and its lines, a last line
// without a newline followed by the usual marker.
func writeHunk(w *writer, ops []op, a, b []string) {
	na, nb := 0, 0
	for _, o := range ops {
		if o.kind != '+' {
			na++
		}
		if o.kind != '-' {
			nb++
		}
	}
	w.line("@@ -" + span(ops[0].i, na) + " +" + span(ops[0].j, nb) + " @@")
	for _, o := range ops {
		var s string
		if o.kind == '+' {
			s = b[o.j]
		} else {
			s = a[o.i]
		}
		if t, cut := strings.CutSuffix(s, noEOL); cut {
			w.line(string(o.kind) + t)
			w.line(`\ No newline at end of file`)
			continue
		}
		w.line(string(o.kind) + s)
	}
}

// span formats the line range of a hunk side starting at the 0-based
// index i with n lines, as unified diffs number them.
func span(i, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", i)
	case 1:
		return fmt.Sprintf("%d", i+1)
	}
	return fmt.Sprintf("%d,%d", i+1, n)
}
