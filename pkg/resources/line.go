package resources

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("line", func() engine.Res { return &LineRes{} })
}

// Line states.
const (
	LineStateExists = "exists"
	LineStateAbsent = "absent"
)

// LineRes keeps a line, or a block of consecutive lines, present in a text
// file or absent from it. See the package documentation.
type LineRes struct {
	traits.Base
	traits.Edgeable
	traits.Recvable

	init *engine.Init

	// File is the file to edit: an absolute path, or one starting with
	// "~/" or "~user/" (expanded when used). The name is only a label, so
	// a collecting host sets the file itself: an exporter may not.
	File string `lang:"file" yaml:"file" collect:"local"`
	// State is "exists" or "absent".
	State string `lang:"state" yaml:"state"`
	// Content is the line or block of lines. One final newline ends the
	// last line; it does not add an empty one.
	Content string `lang:"content" yaml:"content"`
	// Trim removes white space around the content first.
	Trim bool `lang:"trim" yaml:"trim"`

	// Match is a regular expression (Go's syntax) matched against each
	// line of the file, without its newline: with state "exists" the
	// matching line is replaced by the content (all of them with
	// multiple); with state "absent" and match_for_absence, the matching
	// lines are removed.
	Match string `lang:"match" yaml:"match"`
	// After is a regular expression: a missing line is inserted after the
	// line it matches (after each, with multiple) instead of at the end.
	After string `lang:"after" yaml:"after"`
	// Multiple lets match and after act on several lines; without it,
	// more than one line to act on is an error.
	Multiple bool `lang:"multiple" yaml:"multiple"`
	// Replace false leaves a line that match matches as it is: the
	// content is only added when no line matches.
	Replace bool `lang:"replace" yaml:"replace"`
	// MatchForAbsence makes state "absent" remove the lines match
	// matches, instead of the lines equal to the content.
	MatchForAbsence bool `lang:"match_for_absence" yaml:"match_for_absence"`
	// AppendOnNoMatch false adds nothing when no line matches match and
	// the content is missing.
	AppendOnNoMatch bool `lang:"append_on_no_match" yaml:"append_on_no_match"`
	// ReplaceAllMatchesNotMatchingLine replaces the lines match matches
	// even when the content is already in the file.
	ReplaceAllMatchesNotMatchingLine bool `lang:"replace_all_matches_not_matching_line" yaml:"replace_all_matches_not_matching_line"`

	match, after *regexp.Regexp // compiled by Validate
}

// Default returns a line resource.
func (l *LineRes) Default() engine.Res { return &LineRes{Replace: true, AppendOnNoMatch: true} }

// Validate checks the file, the state and the combination of the
// parameters, and compiles match and after.
func (l *LineRes) Validate() error {
	if err := validEditPath("file", l.File, true); err != nil {
		return err
	}
	switch l.State {
	case LineStateExists, LineStateAbsent:
	default:
		return fmt.Errorf("state %q must be %q or %q", l.State, LineStateExists, LineStateAbsent)
	}
	var err error
	if l.match, err = compileParam("match", l.Match); err != nil {
		return err
	}
	if l.after, err = compileParam("after", l.After); err != nil {
		return err
	}
	return l.validatePattern()
}

// Init keeps the handle.
func (l *LineRes) Init(init *engine.Init) error {
	l.init = init
	sweepBeside(l.File)
	return nil
}

// Cleanup does nothing.
func (l *LineRes) Cleanup() error { return nil }

// block returns the lines to find, or nil when there are none.
func (l *LineRes) block() []string {
	return contentLines(l.Content, l.Trim)
}

// contentLines splits the content of a line resource into its lines: one
// final newline ends the last line. Empty content has no lines.
func contentLines(content string, trim bool) []string {
	if trim {
		content = strings.TrimSpace(content)
	}
	content = strings.TrimSuffix(content, "\n")
	if content == "" {
		return nil
	}
	return strings.Split(content, "\n")
}

// Watch follows the file (see watchEditPath).
func (l *LineRes) Watch(ctx context.Context) error {
	return watchEditPath(ctx, l.init, l.File)
}

// CheckApply adds the block at the end of the file (creating a missing
// file, mode 0600) or removes every occurrence of it; with match or after
// it edits the lines they find (see editPattern).
func (l *LineRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	block := l.block()
	if block == nil && !l.patterned() {
		return true, nil
	}
	p, err := expandHome(l.File)
	if err != nil {
		return false, err
	}
	create := &newFileAttrs{perm: 0o600, uid: -1, gid: -1}
	var what string
	edit := func(t *textLines) error {
		switch {
		case l.patterned():
			var err error
			what, err = l.editPattern(t, block, p)
			return err
		case l.State == LineStateExists:
			t.ensure(block)
			what = fmt.Sprintf("added %d line(s) to %s", len(block), p)
		default:
			t.remove(block)
			what = fmt.Sprintf("removed %d line(s) from %s", len(block), p)
		}
		return nil
	}
	ed, err := editFile(ctx, p, apply, create, linesEdit(edit))
	if err != nil {
		return false, err
	}
	if ed.changed {
		reportChanges(l.init, ed.change(what))
	}
	return !ed.changed, nil
}

// UIDs returns the line's UID.
func (l *LineRes) UIDs() []engine.ResUID {
	return []engine.ResUID{&engine.BaseUID{Kind: l.Kind(), Name: l.Name()}}
}

// AutoEdges makes the line wait for the file resource of its file and of
// the nearest directory above it.
func (l *LineRes) AutoEdges() (engine.AutoEdge, error) {
	return fileAutoEdges(l.File), nil
}

// Cmp compares two line resources.
func (l *LineRes) Cmp(r engine.Res) error {
	return cmpParams(l, r)
}

// textLines is a text file split into lines.
type textLines struct {
	lines []string
	endNL bool // whether the last line ends with a newline
}

// splitText splits b into lines; a final newline ends the last line.
func splitText(b []byte) *textLines {
	if len(b) == 0 {
		return &textLines{}
	}
	t := &textLines{endNL: b[len(b)-1] == '\n'}
	if t.endNL {
		b = b[:len(b)-1]
	}
	t.lines = strings.Split(string(b), "\n")
	return t
}

// bytes joins the lines again, with a final newline if the text had one.
func (t *textLines) bytes() []byte {
	var buf bytes.Buffer
	for i, s := range t.lines {
		if i > 0 {
			buf.WriteByte('\n')
		}
		buf.WriteString(s)
	}
	if t.endNL && len(t.lines) > 0 {
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// ensure appends block unless it is already there. The appended lines end
// with a newline; a last line that had none gets one first, so that no two
// lines are joined.
func (t *textLines) ensure(block []string) {
	if findLines(t.lines, block, 0) >= 0 {
		return
	}
	t.lines = append(t.lines, block...)
	t.endNL = true
}

// remove drops every occurrence of block (left to right, not
// overlapping). The lines kept keep their newlines: the text ends without
// one only if its last line had none and is kept.
func (t *textLines) remove(block []string) {
	out := t.lines[:0:0]
	for i := 0; ; {
		j := findLines(t.lines, block, i)
		if j < 0 {
			out = append(out, t.lines[i:]...)
			break
		}
		out = append(out, t.lines[i:j]...)
		i = j + len(block)
		if i == len(t.lines) {
			t.endNL = true // the line before the block had its newline
		}
	}
	t.lines = out
}

// linesEdit turns an edit of lines into a fileEdit: a missing file is
// created only when the edit leaves some line in it.
func linesEdit(edit func(*textLines) error) fileEdit {
	return func(old []byte, exists bool) ([]byte, error) {
		t := splitText(old)
		if err := edit(t); err != nil {
			return nil, err
		}
		if !exists && len(t.lines) == 0 {
			return nil, nil
		}
		return t.bytes(), nil
	}
}

// findLines returns the index of the first occurrence of block in lines
// at or after from, or -1; a line of the file is compared without the
// carriage return of a CR LF end (see chompCR). It is the
// Knuth-Morris-Pratt search over lines, so it takes time linear in the
// number of lines whatever the block.
func findLines(lines, block []string, from int) int {
	if len(block) == 0 {
		return -1
	}
	fail := make([]int, len(block))
	for i, k := 1, 0; i < len(block); i++ {
		for k > 0 && block[i] != block[k] {
			k = fail[k-1]
		}
		if block[i] == block[k] {
			k++
		}
		fail[i] = k
	}
	for i, k := from, 0; i < len(lines); i++ {
		s := chompCR(lines[i])
		for k > 0 && s != block[k] {
			k = fail[k-1]
		}
		if s == block[k] {
			k++
		}
		if k == len(block) {
			return i - k + 1
		}
	}
	return -1
}

// chompCR returns the line s of a file without the carriage return of a
// CR LF line end, which is not part of the line when lines are compared
// (Puppet's file_line compares them so too).
func chompCR(s string) string {
	return strings.TrimSuffix(s, "\r")
}
