package resources

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// The values of a file's links parameter.
const (
	LinksFollow  = "follow"
	LinksReplace = "replace"
	LinksKeep    = "keep"
)

// links returns the links parameter, "follow" when unset.
func (obj *FileRes) links() string {
	if l := obj.rare().Links; l != "" {
		return l
	}
	return LinksFollow
}

// followsLinks reports whether a symbolic link at the path is followed to
// the entry it points to (links "follow").
func (obj *FileRes) followsLinks() bool { return obj.links() == LinksFollow }

// validateLinks checks the links parameter: one of its values, on a file
// or directory that follows links unless told not to.
func (obj *FileRes) validateLinks() error {
	switch {
	case obj.rare().Links == "":
	case obj.rare().Links != LinksFollow && obj.rare().Links != LinksReplace && obj.rare().Links != LinksKeep:
		return fmt.Errorf("links %q must be %q, %q or %q", obj.rare().Links, LinksFollow, LinksReplace, LinksKeep)
	case obj.rare().Symlink && obj.rare().Links != LinksReplace:
		return fmt.Errorf("links %q cannot be combined with symlink, which manages the link itself (only \"replace\" can)", obj.rare().Links)
	case obj.keepsContent():
		return fmt.Errorf("links cannot be combined with replace false, which never follows nor replaces a link")
	}
	return nil
}

// linkInTheWay handles a symbolic link at the path of a resource that does
// not follow links. With links "replace" and state "exists", the link is
// replaced: c.fi becomes nil, and the file or directory is then created
// as on a missing path (a file's atomic write renames it over the link,
// so the path is never missing; a directory needs the link removed
// first). Otherwise the link stays, and only its owner and group (and
// context) are managed: c.fi stays set, and the check is over.
func (obj *FileRes) linkInTheWay(c *fileCheck) error {
	if obj.State != FileStateExists || obj.links() == LinksKeep {
		return obj.keepEntry(c)
	}
	if obj.isDir() && obj.MetaParams().Reverse {
		return fmt.Errorf("refusing to replace the symbolic link %s by a directory: Meta:reverse could not restore it", c.path)
	}
	c.change("replaced a symbolic link")
	if !c.apply {
		c.fi = nil
		return nil
	}
	if err := obj.saveOrig(c); err != nil {
		return err // the reversal puts the link back
	}
	if obj.isDir() {
		// unlink, unlike rmdir, never removes a directory that took
		// the link's place meanwhile.
		if err := syscall.Unlink(c.path); err != nil && err != syscall.ENOENT {
			return &os.PathError{Op: "unlink", Path: c.path, Err: err}
		}
	}
	c.fi = nil
	return nil
}

// readSourceNoFollow reads the source of a file that does not follow
// links. A source that is itself a symbolic link is refused: Puppet's
// links => manage, which links "replace" and "keep" stand for, copies
// such a source as a link (and makes the path a link, whatever ensure
// says), which the content of a file cannot express.
func readSourceNoFollow(src string) ([]byte, error) {
	b, err := readRegular(src, true)
	if errors.Is(err, syscall.ELOOP) {
		return nil, sourceLinkError(src)
	}
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	return b, nil
}

func sourceLinkError(src string) error {
	return fmt.Errorf("source %s is a symbolic link: with links %q or %q it is not followed (Puppet would copy the link itself); give what it points to as source, or set links %q", src, LinksReplace, LinksKeep, LinksFollow)
}

// checkSourceDir refuses, for a directory that does not follow links, a
// source directory that is itself a symbolic link, as readSourceNoFollow
// refuses a file's.
func (obj *FileRes) checkSourceDir(src string) error {
	if obj.followsLinks() {
		return nil
	}
	trimmed := src
	if len(trimmed) > 1 {
		trimmed = trimmed[:len(trimmed)-1] // without its slash, which follows a link
	}
	if fi, err := os.Lstat(trimmed); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return sourceLinkError(trimmed)
	}
	return nil
}

// replacesOthers reports whether an entry that is neither a directory nor
// what the resource wants (a FIFO or a socket for a file; a file for a
// link) is replaced without force: links "replace" with state "exists",
// as Puppet replaces them.
func (obj *FileRes) replacesOthers() bool {
	return obj.links() == LinksReplace && obj.State == FileStateExists && !obj.isDir()
}

// replaceSpecial replaces a FIFO or a socket at a file's path: c.fi
// becomes nil, and the file is then created as on a missing path (its
// atomic write renames it over the entry).
func (obj *FileRes) replaceSpecial(c *fileCheck) error {
	what := "FIFO"
	if c.fi.Mode()&os.ModeSocket != 0 {
		what = "socket"
	}
	if obj.MetaParams().Reverse {
		return fmt.Errorf("refusing to replace the %s %s: Meta:reverse could not restore it", what, c.path)
	}
	c.change("replaced a " + what)
	c.fi = nil
	return nil
}

// keepEntry keeps the symbolic link, or with links "keep" the directory,
// found at a file's path: its content is not managed (logged when the
// resource has some), its owner and group are, and a directory's mode
// (an octal one giving search wherever it gives read, as Puppet's does
// on a directory); a link has no mode. These are Puppet's ensure =>
// present, which takes any kind of entry as present, and no ensure.
func (obj *FileRes) keepEntry(c *fileCheck) error {
	if obj.managesContent() {
		// Puppet warns of the same
		what := "symbolic link"
		if c.fi.IsDir() {
			what = "directory"
		}
		obj.init.Logf("kept the %s %s (links %s): its content is not managed", what, c.path, obj.links())
	}
	if err := obj.checkAttrs(c); err != nil {
		return err
	}
	return obj.checkSELinux(c)
}
