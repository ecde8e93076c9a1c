package resources

import (
	"fmt"
	"os"
)

// keepsContent reports whether replace is false: an entry already at the
// path keeps its content.
func (obj *FileRes) keepsContent() bool { return obj.rare().Replace != nil && !*obj.rare().Replace }

// validateReplace checks that replace false is set on a file that is
// kept: a directory's or a link's content is not written once, and a
// file to remove has none.
func (obj *FileRes) validateReplace() error {
	switch {
	case !obj.keepsContent():
	case obj.State == FileStateAbsent:
		return fmt.Errorf("replace false cannot be combined with state absent")
	case obj.isDir():
		return fmt.Errorf("replace false is for a file, not a directory (path ending in /)")
	case obj.rare().Symlink:
		return fmt.Errorf("replace false is for a file, not a symlink")
	}
	return nil
}

// checkKept checks an entry that exists at the path of a file with
// replace false, as Puppet does: its content is left, whatever it is,
// and so is the entry itself (a directory or a link is not replaced by
// a file, and a link is not followed). The mode, owner, group and
// context of a regular file are kept; those of anything else are not
// managed here, so asking for them is an error.
func (obj *FileRes) checkKept(c *fileCheck) error {
	if c.fi.Mode().IsRegular() {
		if err := obj.checkAttrs(c); err != nil {
			return err
		}
		return obj.checkSELinux(c)
	}
	if obj.mode != nil || obj.Owner != "" || obj.Group != "" || obj.rare().SELinux != nil {
		what := "not a regular file"
		switch {
		case c.fi.IsDir():
			what = "a directory"
		case c.fi.Mode()&os.ModeSymlink != 0:
			what = "a symbolic link"
		}
		return fmt.Errorf("%s is %s: replace false leaves it, and its mode, owner, group or selinux context cannot be managed", c.path, what)
	}
	return nil
}
