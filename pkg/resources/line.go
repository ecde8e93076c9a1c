package resources

import (
	"bytes"
	"context"
	"fmt"
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
}

// Default returns a line resource.
func (l *LineRes) Default() engine.Res { return &LineRes{} }

// Validate checks the file and the state.
func (l *LineRes) Validate() error {
	if err := validEditPath("file", l.File, true); err != nil {
		return err
	}
	switch l.State {
	case LineStateExists, LineStateAbsent:
	default:
		return fmt.Errorf("state %q must be %q or %q", l.State, LineStateExists, LineStateAbsent)
	}
	return nil
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
// file, mode 0600) or removes every occurrence of it.
func (l *LineRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	block := l.block()
	if block == nil {
		return true, nil
	}
	p, err := expandHome(l.File)
	if err != nil {
		return false, err
	}
	create := &newFileAttrs{perm: 0o600, uid: -1, gid: -1}
	edit := func(t *textLines) error {
		if l.State == LineStateExists {
			t.ensure(block)
		} else {
			t.remove(block)
		}
		return nil
	}
	ed, err := editFile(ctx, p, apply, create, linesEdit(edit))
	if err != nil {
		return false, err
	}
	if ed.changed {
		what := fmt.Sprintf("added %d line(s) to %s", len(block), p)
		if l.State != LineStateExists {
			what = fmt.Sprintf("removed %d line(s) from %s", len(block), p)
		}
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
// overlapping), keeping whether the text ends with a newline.
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
// at or after from, or -1. It is the Knuth-Morris-Pratt search over lines,
// so it takes time linear in the number of lines whatever the block.
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
		for k > 0 && lines[i] != block[k] {
			k = fail[k-1]
		}
		if lines[i] == block[k] {
			k++
		}
		if k == len(block) {
			return i - k + 1
		}
	}
	return -1
}
