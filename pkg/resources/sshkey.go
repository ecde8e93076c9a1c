package resources

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/crypto/ssh"

	"github.com/mgmtpipe/mgmt/internal/account"
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("ssh:authorized_key", func() engine.Res { return &SSHAuthorizedKeyRes{Mkdir: true, MatchBy: SSHKeyMatchKey} })
}

// SSHAuthorizedKeyRes keeps one public key authorized, with given options
// and comment, in an authorized_keys file, or keeps it out. See the package
// documentation.
type SSHAuthorizedKeyRes struct {
	traits.Base
	traits.Edgeable

	init *engine.Init

	// State is "exists" or "absent".
	State string `lang:"state" yaml:"state"`
	// File is the authorized_keys file; it defaults to
	// "~user/.ssh/authorized_keys" with user, "~/.ssh/authorized_keys"
	// without. Which account a key opens is the collecting host's to
	// say: an exporter may set neither File nor User.
	File string `lang:"file" yaml:"file" collect:"local"`
	// User owns what the resource creates and names the default file.
	User string `lang:"user" yaml:"user" collect:"local"`
	// Content is the whole entry; otherwise options, type, key and comment
	// make it, and without those the resource name is the entry.
	Content string `lang:"content" yaml:"content"`
	// Options are the entry's options (from="...", no-pty, ...).
	Options []string `lang:"options" yaml:"options"`
	// Type is the key type (ssh-ed25519, ssh-rsa, ...).
	Type string `lang:"type" yaml:"type"`
	// Key is the base64 public key.
	Key string `lang:"key" yaml:"key"`
	// Comment ends the entry (often user@host).
	Comment string `lang:"comment" yaml:"comment"`
	// Mkdir creates a missing ".ssh" directory holding the file.
	Mkdir bool `lang:"mkdir" yaml:"mkdir"`
	// MatchBy says what identifies the entry among the file's lines: "key"
	// (the default) or "comment", as Puppet's ssh_authorized_key does with
	// its name. How the collecting host's file is edited is its own to
	// say.
	MatchBy string `lang:"matchby" yaml:"matchby" collect:"local"`

	key     ssh.PublicKey // parsed by Validate; nil for a comment alone
	line    string        // the canonical entry
	options []string      // the entry's options, as parsed
	comment string        // the entry's comment, as parsed
}

// The values of matchby.
const (
	SSHKeyMatchKey     = "key"
	SSHKeyMatchComment = "comment"
)

// Default returns an ssh:authorized_key resource with its defaults.
func (s *SSHAuthorizedKeyRes) Default() engine.Res {
	return &SSHAuthorizedKeyRes{Mkdir: true, MatchBy: SSHKeyMatchKey}
}

// userNameRE is what useradd accepts by default.
var userNameRE = regexp.MustCompile(`^[a-z_][a-z0-9_-]*\$?$`)

// Validate checks the parameters and parses the entry.
func (s *SSHAuthorizedKeyRes) Validate() error {
	switch s.State {
	case LineStateExists, LineStateAbsent:
	default:
		return fmt.Errorf("state %q must be %q or %q", s.State, LineStateExists, LineStateAbsent)
	}
	if s.File != "" {
		if err := validEditPath("file", s.File, true); err != nil {
			return err
		}
	}
	if s.User != "" && (len(s.User) > 32 || !userNameRE.MatchString(s.User)) {
		return fmt.Errorf("user %q is not a valid user name", s.User)
	}
	if s.Content != "" && (len(s.Options) > 0 || s.Type != "" || s.Key != "" || s.Comment != "") {
		return fmt.Errorf("content cannot be combined with options, type, key or comment")
	}
	if (s.Type == "") != (s.Key == "") {
		return fmt.Errorf("type and key go together")
	}
	if strings.ContainsAny(s.Comment, "\r\n") {
		return fmt.Errorf("the comment spans lines")
	}
	switch s.MatchBy {
	case "", SSHKeyMatchKey:
	case SSHKeyMatchComment:
		return s.validateByComment()
	default:
		return fmt.Errorf("matchby %q must be %q or %q", s.MatchBy, SSHKeyMatchKey, SSHKeyMatchComment)
	}
	entry := s.Content
	switch {
	case s.Key != "":
		entry = s.partsEntry(s.Comment)
	case entry == "":
		entry = s.Name()
	}
	return s.parseEntry(entry)
}

// partsEntry joins options, type, key and comment into an entry.
func (s *SSHAuthorizedKeyRes) partsEntry(comment string) string {
	entry := strings.TrimSpace(s.Type + " " + s.Key + " " + comment)
	if len(s.Options) > 0 {
		entry = strings.Join(s.Options, ",") + " " + entry
	}
	return entry
}

// parseEntry parses entry into the fields CheckApply uses, and checks an
// explicit type against the key's.
func (s *SSHAuthorizedKeyRes) parseEntry(entry string) error {
	key, line, err := parseKeyEntry(entry)
	if err != nil {
		return err
	}
	if s.Type != "" && key.Type() != s.Type {
		return fmt.Errorf("type %q differs from the key's type %q", s.Type, key.Type())
	}
	_, s.comment, s.options, _ = parseKeyLine(line)
	s.key, s.line = key, line
	return nil
}

// parseKeyEntry parses one authorized_keys entry and rebuilds it in the
// form "[options ]type base64[ comment]".
func parseKeyEntry(entry string) (ssh.PublicKey, string, error) {
	entry = strings.TrimSpace(entry)
	if entry == "" || strings.HasPrefix(entry, "#") || strings.ContainsAny(entry, "\r\n") {
		return nil, "", fmt.Errorf("the entry must be one key line, not empty, a comment or several lines")
	}
	key, comment, options, rest, err := ssh.ParseAuthorizedKey([]byte(entry))
	if err != nil {
		return nil, "", fmt.Errorf("parsing the key entry: %v", err)
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return nil, "", fmt.Errorf("trailing data after the key entry")
	}
	return key, formatKeyEntry(key, comment, options), nil
}

// formatKeyEntry writes an entry in its canonical form.
func formatKeyEntry(key ssh.PublicKey, comment string, options []string) string {
	var b strings.Builder
	if len(options) > 0 {
		b.WriteString(strings.Join(options, ","))
		b.WriteByte(' ')
	}
	b.WriteString(key.Type())
	b.WriteByte(' ')
	b.WriteString(base64.StdEncoding.EncodeToString(key.Marshal()))
	if comment != "" {
		b.WriteByte(' ')
		b.WriteString(comment)
	}
	return b.String()
}

// Init keeps the handle; Validate has parsed the entry.
func (s *SSHAuthorizedKeyRes) Init(init *engine.Init) error {
	s.init = init
	if s.line == "" && s.comment == "" {
		return s.Validate()
	}
	return nil
}

// Cleanup does nothing.
func (s *SSHAuthorizedKeyRes) Cleanup() error { return nil }

// file returns the file, before "~" is expanded.
func (s *SSHAuthorizedKeyRes) file() string {
	switch {
	case s.File != "":
		return s.File
	case s.User != "":
		return "~" + s.User + "/.ssh/authorized_keys"
	}
	return "~/.ssh/authorized_keys"
}

// Watch follows the file (see watchEditPath).
func (s *SSHAuthorizedKeyRes) Watch(ctx context.Context) error {
	return watchEditPath(ctx, s.init, s.file())
}

// owner returns the uid and gid of user (-1, -1 without one).
func (s *SSHAuthorizedKeyRes) owner() (int, int, error) {
	if s.User == "" {
		return -1, -1, nil
	}
	u, err := account.Lookup(s.User)
	if err != nil {
		return -1, -1, fmt.Errorf("user %s: %v", s.User, err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return -1, -1, fmt.Errorf("user %s has a non-numeric uid or gid", s.User)
	}
	return uid, gid, nil
}

// CheckApply creates the .ssh directory if needed and puts the entry in
// the file (or takes the key out).
func (s *SSHAuthorizedKeyRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	p, err := expandHome(s.file())
	if err != nil {
		return false, err
	}
	uid, gid, err := s.owner()
	if err != nil {
		return false, err
	}
	var changes []engine.Change
	if s.State == LineStateExists && s.Mkdir && filepath.Base(filepath.Dir(p)) == ".ssh" {
		made, err := mkdirOwned(filepath.Dir(p), apply, uid, gid)
		if err != nil {
			return false, err
		}
		if made {
			changes = append(changes, engine.Change{What: "created " + filepath.Dir(p)})
		}
		if made && !apply {
			// The file cannot be read in a directory that is not there.
			reportChanges(s.init, changes...)
			return false, nil
		}
	}
	create := &newFileAttrs{perm: 0o600, uid: uid, gid: gid}
	edit := s.edit
	if s.MatchBy == SSHKeyMatchComment {
		// As Puppet's provider does when it writes the file: mode 0600,
		// owned by the user.
		create.always, edit = true, s.editByComment
	}
	ed, err := editFile(ctx, p, apply, create, linesEdit(edit))
	if err != nil {
		return false, err
	}
	if ed.changed {
		changes = append(changes, ed.change(s.changeText(p)))
	}
	reportChanges(s.init, changes...)
	return len(changes) == 0, nil
}

// changeText describes the change made to the file p.
func (s *SSHAuthorizedKeyRes) changeText(p string) string {
	switch {
	case s.State == LineStateExists:
		return "authorized the key in " + p
	case s.MatchBy == SSHKeyMatchComment:
		return fmt.Sprintf("removed the keys named %q from %s", s.comment, p)
	}
	return "removed the key from " + p
}

// edit makes the entry the only line of the file with this key (in place
// of the first such line, or appended), or removes every line with the
// key, whatever their options and comments.
func (s *SSHAuthorizedKeyRes) edit(t *textLines) error {
	want := s.key.Marshal()
	out := t.lines[:0:0]
	found := false
	for _, l := range t.lines {
		k, _, _, _, err := ssh.ParseAuthorizedKey([]byte(l))
		if err != nil || !bytes.Equal(k.Marshal(), want) {
			out = append(out, l) // another key, a comment, a blank line
			continue
		}
		if s.State == LineStateExists && !found {
			out = append(out, s.line)
		}
		found = true
	}
	t.lines = out
	if s.State == LineStateExists && !found {
		t.ensure([]string{s.line})
	}
	return nil
}

// mkdirOwned creates the directory d (mode 0700, owned by uid and gid when
// they are not -1) if it is missing, and reports whether it was (or, with
// apply false, would be) created. The directory above must exist.
func mkdirOwned(d string, apply bool, uid, gid int) (bool, error) {
	r, err := resolveTrusted(d)
	if err != nil {
		return false, missingDir(d, err)
	}
	defer r.close()
	fi, err := os.Lstat(r.at())
	if err == nil {
		if !fi.IsDir() {
			return false, fmt.Errorf("%s is not a directory", r.path)
		}
		return false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if !apply {
		return true, nil
	}
	if err := os.Mkdir(r.at(), 0o700); err != nil {
		return true, fmt.Errorf("creating %s: %v", r.path, bareErr(err))
	}
	if uid >= 0 || gid >= 0 {
		if err := os.Lchown(r.at(), uid, gid); err != nil {
			return true, fmt.Errorf("chown %s: %v", r.path, bareErr(err))
		}
	}
	return true, nil
}

// UIDs returns the resource's UID.
func (s *SSHAuthorizedKeyRes) UIDs() []engine.ResUID {
	return []engine.ResUID{&engine.BaseUID{Kind: s.Kind(), Name: s.Name()}}
}

// AutoEdges makes the resource wait for the user resource of user and,
// for a file given as an absolute path, for the file resources of the
// file and of the nearest directory above it.
func (s *SSHAuthorizedKeyRes) AutoEdges() (engine.AutoEdge, error) {
	var extra []engine.ResUID
	if s.User != "" {
		extra = append(extra, &engine.BaseUID{Kind: "user", Name: s.User})
	}
	return fileAutoEdges(s.file(), extra...), nil
}

// Cmp compares two ssh:authorized_key resources.
func (s *SSHAuthorizedKeyRes) Cmp(r engine.Res) error {
	return cmpParams(s, r)
}
