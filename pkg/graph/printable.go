package graph

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Printable returns s fit for one line of a log: every control character
// but the tab (a NUL, a newline, an escape sequence), every C1 control and
// every byte that is not UTF-8 is written as a Go escape (\x00, \n, \x1b,
// \u0085, \xff). Names and values come from graph documents, and a log line
// must neither hold a raw NUL nor let a name start a line of its own or
// drive the terminal. Backslashes are kept as they are, so ordinary text
// is unchanged and Printable(Printable(s)) == Printable(s).
func Printable(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\t' {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if c >= utf8.RuneSelf && !(r == utf8.RuneError && n == 1) && !isC1(r) {
			i += n
			continue
		}
		break
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case r == '\t' || r >= 0x20 && r != 0x7f && !isC1(r):
			b.WriteString(s[i : i+n])
		default:
			q := strconv.QuoteRuneToASCII(r) // '\x00', '\n', '\u0085'
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

// isC1 reports whether r is a C1 control character.
func isC1(r rune) bool { return r >= 0x80 && r < 0xa0 }
