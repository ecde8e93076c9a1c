package system

import (
	"strings"
)

// compareDebVersions compares two Debian package versions
// ([epoch:]upstream[-revision]) the way dpkg does, returning -1, 0 or 1.
func compareDebVersions(a, b string) int {
	ea, ua, ra := splitDebVersion(a)
	eb, ub, rb := splitDebVersion(b)
	if c := compareNumStr(ea, eb); c != 0 {
		return c
	}
	if c := compareDebPart(ua, ub); c != 0 {
		return c
	}
	return compareDebPart(ra, rb)
}

func splitDebVersion(v string) (epoch, upstream, revision string) {
	epoch = "0"
	if i := strings.IndexByte(v, ':'); i >= 0 {
		epoch, v = v[:i], v[i+1:]
	}
	if i := strings.LastIndexByte(v, '-'); i >= 0 {
		return epoch, v[:i], v[i+1:]
	}
	return epoch, v, ""
}

// debOrder is the sort weight of a character in the non-digit parts: "~"
// sorts before everything, even the end of the string, and letters sort
// before other characters.
func debOrder(c byte, ok bool) int {
	switch {
	case !ok:
		return 0
	case c == '~':
		return -1
	case c >= '0' && c <= '9':
		return 0
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		return int(c)
	}
	return int(c) + 256
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// compareDebPart compares alternating non-digit and digit runs.
func compareDebPart(a, b string) int {
	for a != "" || b != "" {
		for (a != "" && !isDigit(a[0])) || (b != "" && !isDigit(b[0])) {
			var ca, cb byte
			if a != "" {
				ca = a[0]
			}
			if b != "" {
				cb = b[0]
			}
			oa := debOrder(ca, a != "" && !isDigit(ca))
			ob := debOrder(cb, b != "" && !isDigit(cb))
			if oa != ob {
				if oa < ob {
					return -1
				}
				return 1
			}
			if a != "" {
				a = a[1:]
			}
			if b != "" {
				b = b[1:]
			}
		}
		var na, nb string
		na, a = digitRun(a)
		nb, b = digitRun(b)
		if c := compareNumStr(na, nb); c != 0 {
			return c
		}
	}
	return 0
}

func digitRun(s string) (run, rest string) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return s[:i], s[i:]
}

// compareNumStr compares two runs of digits as numbers of any length.
func compareNumStr(a, b string) int {
	a = strings.TrimLeft(a, "0")
	b = strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}
