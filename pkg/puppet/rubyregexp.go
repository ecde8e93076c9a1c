package puppet

import (
	"fmt"
	"regexp/syntax"
	"strings"
)

// lineRegexp returns a regular expression in Go's syntax that matches a
// line of a file, taken without its newline, exactly when the Ruby
// regular expression src matches that line as stdlib's file_line provider
// sees it: with its newline, read as UTF-8. It accepts the common part of
// the two syntaxes (literals, escaped punctuation, ., \d, \w, \s and their
// negations, classes, groups, alternation, quantifiers, ^, $, \A) and
// refuses the rest: Ruby's \b knows Unicode letters and Go's does not,
// \z and \Z see the newline, nested classes and (?...) forms differ, and
// an atom that could take the line's newline where nothing has to follow
// it (^foo\s, say, matches "foo" with its newline in Ruby) has no
// equivalent on the line without it.
func lineRegexp(src string) (string, error) {
	if src == "" {
		return "", fmt.Errorf("an empty pattern matches every line")
	}
	goSrc, err := rubyToGo(src)
	if err != nil {
		return "", err
	}
	re, err := syntax.Parse(goSrc, syntax.Perl)
	if err != nil {
		return "", fmt.Errorf("pattern %q: %v", src, err)
	}
	if newlineLast(re, true) {
		return "", fmt.Errorf("pattern %q can match the newline that ends a line", src)
	}
	return goSrc, nil
}

// rubyToGo rewrites the Ruby pattern src in Go's syntax, refusing what
// the two read differently (see lineRegexp).
func rubyToGo(src string) (string, error) {
	var b strings.Builder
	rs := []rune(src)
	inClass := false
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == '\\':
			if i+1 == len(rs) {
				return "", fmt.Errorf("pattern %q ends with a backslash", src)
			}
			i++
			out, ok := rubyEscape(rs[i], inClass)
			if !ok {
				return "", fmt.Errorf("no exact translation for \\%c in pattern %q", rs[i], src)
			}
			b.WriteString(out)
			continue
		case inClass && c == '[', inClass && c == '&' && i+1 < len(rs) && rs[i+1] == '&':
			return "", fmt.Errorf("no exact translation for nested or intersected classes in pattern %q", src)
		case inClass && c == ']':
			inClass = false
		case c == '[':
			inClass = true
			b.WriteRune(c)
			if i+1 < len(rs) && rs[i+1] == '^' {
				i++
				b.WriteRune('^')
			}
			if i+1 < len(rs) && rs[i+1] == ']' {
				return "", fmt.Errorf("no exact translation for a class starting with ] in pattern %q", src)
			}
			continue
		case c == '(' && i+1 < len(rs) && rs[i+1] == '?':
			if i+2 >= len(rs) || rs[i+2] != ':' {
				return "", fmt.Errorf("no exact translation for (? groups other than (?: in pattern %q", src)
			}
		case c == '{' && !inClass:
			if !repeatAt(rs[i:]) {
				return "", fmt.Errorf("no exact translation for { in pattern %q: write \\{ for the character", src)
			}
		}
		b.WriteRune(c)
	}
	return b.String(), nil
}

// rubyEscape translates the escape \c of a Ruby pattern, in a class or
// not; false when Go reads it differently or has no such escape.
func rubyEscape(c rune, inClass bool) (string, bool) {
	switch {
	case c < 0x80 && strings.ContainsRune(" !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c):
		return `\` + string(c), true
	case strings.ContainsRune("dwDWtnfvr", c):
		return `\` + string(c), true
	case c == 'A' && !inClass:
		return `\A`, true
	case c == 's' && inClass:
		return `\t\n\v\f\r `, true
	case c == 's':
		return `[\t\n\v\f\r ]`, true
	case c == 'S' && !inClass:
		return `[^\t\n\v\f\r ]`, true
	}
	return "", false
}

// repeatAt reports whether rs starts with a repetition {n}, {n,} or
// {n,m}, which Ruby and Go read alike.
func repeatAt(rs []rune) bool {
	i, digits := 1, 0
	for ; i < len(rs) && rs[i] >= '0' && rs[i] <= '9'; i++ {
		digits++
	}
	if digits == 0 || i == len(rs) {
		return false
	}
	if rs[i] == ',' {
		for i++; i < len(rs) && rs[i] >= '0' && rs[i] <= '9'; i++ {
		}
	}
	return i < len(rs) && rs[i] == '}'
}

// newlineLast reports whether some part of re can match a newline with
// only what may match the empty string after it (rest says whether what
// follows re may): in Ruby such a match can end on the line's own newline.
func newlineLast(re *syntax.Regexp, rest bool) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return rest && len(re.Rune) > 0 && re.Rune[len(re.Rune)-1] == '\n'
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if rest && re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return true
			}
		}
		return false
	case syntax.OpAnyChar:
		return rest
	case syntax.OpConcat:
		for i, sub := range re.Sub {
			after := rest
			for _, s := range re.Sub[i+1:] {
				after = after && nullable(s)
			}
			if newlineLast(sub, after) {
				return true
			}
		}
		return false
	case syntax.OpAlternate, syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		for _, sub := range re.Sub {
			if newlineLast(sub, rest) {
				return true
			}
		}
	}
	return false
}

// nullable reports whether re may match the empty string (an assertion
// counts as one that may).
func nullable(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL, syntax.OpNoMatch:
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return nullable(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || nullable(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !nullable(s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if nullable(s) {
				return true
			}
		}
		return false
	}
	return true // empty match, assertions, star, quest
}
