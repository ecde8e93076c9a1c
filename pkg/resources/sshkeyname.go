package resources

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/crypto/ssh"
)

// validateByComment checks the parameters of an ssh:authorized_key that
// identifies its entry by comment (matchby "comment"): the comment is
// that of content, else comment, else the resource name; "exists" needs
// the key, "absent" only the comment.
func (s *SSHAuthorizedKeyRes) validateByComment() error {
	s.key, s.line, s.options = nil, "", nil
	switch {
	case s.Content != "":
		if err := s.parseEntry(s.Content); err != nil {
			return err
		}
	default:
		s.comment = s.Comment
		if s.comment == "" {
			s.comment = s.Name()
		}
		if err := checkKeyComment(s.comment); err != nil {
			return err
		}
		switch {
		case s.Key != "":
			if err := s.parseEntry(s.partsEntry(s.comment)); err != nil {
				return err
			}
		case s.State == LineStateExists:
			return fmt.Errorf("matchby %q with state %q needs the key: content, or type and key", SSHKeyMatchComment, LineStateExists)
		}
	}
	return checkKeyComment(s.comment)
}

// checkKeyComment refuses a comment that no line of a file can carry as
// it is: empty, several lines, or with white space around it (which
// parsing a line drops).
func checkKeyComment(c string) error {
	switch {
	case c == "":
		return fmt.Errorf("matchby %q needs a comment", SSHKeyMatchComment)
	case strings.ContainsAny(c, "\r\n"):
		return fmt.Errorf("the comment %q spans lines", c)
	case strings.TrimSpace(c) != c:
		return fmt.Errorf("the comment %q has white space around it, which a line of the file cannot keep", c)
	}
	return nil
}

// editByComment makes the entry the only line of the file with its
// comment, or removes every line with the comment. As Puppet's provider
// does, the last line with the comment is the one kept (rewritten unless
// it already holds the key and options) and a missing entry is appended;
// unlike Puppet's, the earlier lines with the comment are removed, so a
// key replaced under the same comment no longer opens the account.
// Other lines (other comments, comment lines, blank lines, lines that are
// not keys) are kept byte for byte.
func (s *SSHAuthorizedKeyRes) editByComment(t *textLines) error {
	var at []int
	for i, l := range t.lines {
		if _, c, _, ok := parseKeyLine(l); ok && c == s.comment {
			at = append(at, i)
		}
	}
	keep := -1
	if s.State == LineStateExists {
		if len(at) == 0 {
			t.ensure([]string{s.line})
			return nil
		}
		keep = at[len(at)-1]
		if !s.holds(t.lines[keep]) {
			t.lines[keep] = s.line
		}
	}
	out := t.lines[:0:0]
	for i, l := range t.lines {
		if len(at) > 0 && at[0] == i {
			at = at[1:]
			if i != keep {
				continue
			}
		}
		out = append(out, l)
	}
	t.lines = out
	return nil
}

// holds reports whether the key line l carries the entry's key, options
// and comment, however it is spaced.
func (s *SSHAuthorizedKeyRes) holds(l string) bool {
	k, c, opts, ok := parseKeyLine(l)
	return ok && c == s.comment && bytes.Equal(k.Marshal(), s.key.Marshal()) && slices.Equal(opts, s.options)
}

// parseKeyLine parses one line of an authorized_keys file; ok is false
// for a comment line, a blank line or a line that is not a key.
func parseKeyLine(l string) (ssh.PublicKey, string, []string, bool) {
	k, c, opts, _, err := ssh.ParseAuthorizedKey([]byte(l))
	if err != nil {
		return nil, "", nil, false
	}
	return k, c, opts, true
}
