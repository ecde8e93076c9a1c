package resources

import (
	"errors"
	"fmt"
	"regexp"
	"unicode/utf8"
)

// This file holds the line kind's edits by regular expression: match,
// after and the parameters that tune them. They follow Puppet's file_line
// (stdlib's ruby provider), so that a manifest translated to line
// resources edits a file as Puppet would, except that a rewritten file
// never loses its final newline.

// compileParam compiles the regular expression of parameter name; an
// empty one is none.
func compileParam(name, expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return re, nil
}

// patterned reports whether a regular expression picks the lines to edit.
func (l *LineRes) patterned() bool {
	return l.Match != "" || l.After != ""
}

// validatePattern refuses the combinations of match, after and their
// options that mean nothing or contradict each other.
func (l *LineRes) validatePattern() error {
	lines := contentLines(l.Content, l.Trim)
	exists := l.State == LineStateExists
	switch {
	case !l.patterned():
		if l.Multiple {
			return errors.New("multiple needs match or after")
		}
		if l.MatchForAbsence {
			return errors.New("match_for_absence needs match")
		}
		if l.ReplaceAllMatchesNotMatchingLine {
			return errors.New("replace_all_matches_not_matching_line needs match")
		}
		return nil
	case len(lines) > 1:
		return errors.New("match and after edit one line: the content must be a single line")
	case !exists && l.After != "":
		return errors.New("after places a missing line: it means nothing with state absent")
	case !exists && !l.MatchForAbsence:
		return errors.New("match with state absent needs match_for_absence (without it, state absent removes the lines equal to the content)")
	case exists && l.MatchForAbsence:
		return errors.New("match_for_absence needs state absent")
	case exists && len(lines) == 0:
		return errors.New("match and after need the content: the line to write")
	case l.Match == "" && l.ReplaceAllMatchesNotMatchingLine:
		return errors.New("replace_all_matches_not_matching_line needs match")
	case l.ReplaceAllMatchesNotMatchingLine && !l.Replace:
		return errors.New("replace_all_matches_not_matching_line needs replace")
	case !exists && l.ReplaceAllMatchesNotMatchingLine:
		return errors.New("replace_all_matches_not_matching_line needs state exists")
	}
	return nil
}

// editPattern makes the edit that match or after asks for and returns
// what it did (the lines of t are checked first: the caller reports a
// change only when the file's bytes differ). block is the content's single
// line (none for an absent state that removes what match finds).
func (l *LineRes) editPattern(t *textLines, block []string, path string) (string, error) {
	for _, s := range t.lines {
		if !utf8.ValidString(s) {
			return "", fmt.Errorf("%s is not UTF-8 text, which match and after need", path)
		}
	}
	if l.State == LineStateAbsent {
		return l.removeMatching(t, path)
	}
	if len(block) != 1 {
		return "", errors.New("match and after need the content: one line to write")
	}
	line := block[0]
	present := findLines(t.lines, block, 0) >= 0
	if l.match == nil {
		if present {
			return "", nil
		}
		return l.insertAfter(t, line, path)
	}
	n := l.countMatches(t.lines, line)
	switch {
	case n == 0 && (present || !l.AppendOnNoMatch):
		return "", nil
	case n > 0 && !l.ReplaceAllMatchesNotMatchingLine && (present || !l.Replace):
		return "", nil
	case n > 1 && !l.Multiple:
		return "", tooMany(path, "match", l.Match, n)
	}
	out := make([]string, 0, len(t.lines)+1)
	placed := n > 0
	for _, s := range t.lines {
		if l.match.MatchString(s) {
			out = append(out, line)
		} else {
			out = append(out, s)
		}
		if !placed && l.after != nil && l.after.MatchString(s) {
			out = append(out, line)
			placed = true
		}
	}
	if !placed {
		out = append(out, line)
	}
	t.lines, t.endNL = out, true
	if n > 0 {
		return fmt.Sprintf("replaced %d line(s) matching %q in %s", n, l.Match, path), nil
	}
	return "added a line to " + path, nil
}

// insertAfter adds line after each line that after matches (one, unless
// multiple), or at the end when none does.
func (l *LineRes) insertAfter(t *textLines, line, path string) (string, error) {
	n := 0
	if l.after != nil {
		n = l.countMatches(t.lines, "")
	}
	if n > 1 && !l.Multiple {
		return "", tooMany(path, "after", l.After, n)
	}
	out := make([]string, 0, len(t.lines)+max(n, 1))
	for _, s := range t.lines {
		out = append(out, s)
		if l.after != nil && l.after.MatchString(s) {
			out = append(out, line)
		}
	}
	if n == 0 {
		out = append(out, line)
	}
	t.lines, t.endNL = out, true
	return "added a line to " + path, nil
}

// removeMatching removes the lines match matches (one, unless multiple).
// The lines kept keep their newlines, as with remove.
func (l *LineRes) removeMatching(t *textLines, path string) (string, error) {
	n := l.countMatches(t.lines, "")
	if n == 0 {
		return "", nil
	}
	if n > 1 && !l.Multiple {
		return "", tooMany(path, "match", l.Match, n)
	}
	out := t.lines[:0:0]
	for _, s := range t.lines {
		if !l.match.MatchString(s) {
			out = append(out, s)
		}
	}
	if l.match.MatchString(t.lines[len(t.lines)-1]) {
		t.endNL = true
	}
	t.lines = out
	return fmt.Sprintf("removed %d line(s) matching %q from %s", n, l.Match, path), nil
}

// countMatches counts the lines match matches (after, when there is no
// match), leaving out the lines equal to line when
// replace_all_matches_not_matching_line is set.
func (l *LineRes) countMatches(lines []string, line string) int {
	re := l.match
	if re == nil {
		re = l.after
	}
	n := 0
	for _, s := range lines {
		if re.MatchString(s) && !(l.ReplaceAllMatchesNotMatchingLine && chompCR(s) == line) {
			n++
		}
	}
	return n
}

// tooMany is the error for a pattern that finds several lines without
// multiple.
func tooMany(path, param, expr string, n int) error {
	return fmt.Errorf("%d lines of %s match %s %q: set multiple to edit them all", n, path, param, expr)
}
