package resources

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// validateLinkPurge checks the combinations of symlink and purge.
func (obj *FileRes) validateLinkPurge() error {
	if obj.rare().Symlink {
		switch {
		case obj.isDir():
			return fmt.Errorf("a symbolic link's path cannot end in /")
		case obj.Content != nil || len(obj.rare().Fragments) > 0:
			return fmt.Errorf("symlink takes its target from source, not from content or fragments")
		case obj.rare().Recurse || obj.rare().Purge:
			return fmt.Errorf("symlink cannot be combined with recurse or purge")
		case obj.Mode != "":
			return fmt.Errorf("symlink cannot have a mode: a symbolic link has none")
		case obj.State != FileStateAbsent && obj.rare().Source == "":
			return fmt.Errorf("symlink needs the link's target as source")
		}
	}
	if obj.rare().PurgeDirs != nil && !obj.rare().Purge {
		return fmt.Errorf("purge_dirs is for a directory with purge")
	}
	if obj.rare().Purge {
		switch {
		case !obj.isDir() || !obj.rare().Recurse:
			return fmt.Errorf("purge needs a directory (path ending in /) with recurse")
		case obj.State == FileStateAbsent:
			return fmt.Errorf("purge cannot be combined with state absent")
		case obj.MetaParams().Reverse:
			return fmt.Errorf("purge cannot be combined with Meta:reverse: a reversal could not restore what it removes")
		}
	}
	return nil
}

// checkLink keeps the path a symbolic link to source (state exists; with
// state "" only a link already there is kept right), or removes it
// (state absent). The link itself is never followed.
func (obj *FileRes) checkLink(c *fileCheck) error {
	isLink := c.fi != nil && c.fi.Mode()&os.ModeSymlink != 0
	switch {
	case obj.State == FileStateAbsent:
		return obj.removeLink(c, isLink)
	case c.fi == nil && obj.State == FileStateExists:
		c.change("created a link to " + obj.rare().Source)
	case c.fi == nil, !isLink && obj.State == "":
		return nil // existence is not managed
	case !isLink:
		if !obj.rare().Force && (c.fi.IsDir() || !obj.replacesOthers()) {
			return fmt.Errorf("%s is a %s, want a symbolic link (set force to replace it)", c.path, kindWord(c.fi.IsDir()))
		}
		if obj.MetaParams().Reverse {
			return fmt.Errorf("refusing to replace the %s %s: Meta:reverse could not restore it", kindWord(c.fi.IsDir()), c.path)
		}
		c.change(fmt.Sprintf("replaced a %s by a link to %s", kindWord(c.fi.IsDir()), obj.rare().Source))
	default:
		have, err := os.Readlink(c.path)
		if err != nil {
			return err
		}
		if have != obj.rare().Source {
			c.change(fmt.Sprintf("link target %s -> %s", have, obj.rare().Source))
		} else {
			return obj.checkLinkOwner(c)
		}
	}
	if !c.apply {
		return nil
	}
	if err := obj.saveOrig(c); err != nil {
		return err
	}
	if c.fi != nil && c.fi.IsDir() {
		// rename cannot replace a directory; force allowed removing it
		if err := os.RemoveAll(c.path); err != nil {
			return err
		}
	}
	if err := replaceLink(c.path, obj.rare().Source); err != nil {
		return missingParent(c.path, err)
	}
	fi, err := os.Lstat(c.path)
	if err != nil {
		return err
	}
	c.fi = fi
	return obj.checkLinkOwner(c)
}

// removeLink removes the link at the path; another kind of entry only
// with force.
func (obj *FileRes) removeLink(c *fileCheck, isLink bool) error {
	if c.fi == nil {
		return nil
	}
	if !isLink && !obj.rare().Force {
		return fmt.Errorf("%s is a %s, not a symbolic link (set force to remove it)", c.path, kindWord(c.fi.IsDir()))
	}
	c.change("removed")
	if !c.apply {
		return nil
	}
	if err := obj.saveOrig(c); err != nil {
		return err
	}
	if isLink {
		return os.Remove(c.path)
	}
	return os.RemoveAll(c.path)
}

// replaceLink makes path a symbolic link to target in one step: the link
// is made under a temporary name in the same directory and renamed over
// path, so the path never is missing nor half made.
func replaceLink(path, target string) error {
	dir, base := filepath.Split(path)
	if len(base) > 64 {
		base = base[:64] // keep the temporary name within NAME_MAX
	}
	for try := 0; ; try++ {
		tmp := filepath.Join(dir, "."+base+tmpMarker+strconv.FormatUint(uint64(rand.Uint32()), 10))
		err := os.Symlink(target, tmp)
		if errors.Is(err, os.ErrExist) && try < 100 {
			continue
		}
		if err != nil {
			return err
		}
		if err := syscall.Rename(tmp, path); err != nil {
			os.Remove(tmp)
			return &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
		}
		return nil
	}
}

// checkLinkOwner gives the link itself the wanted owner and group, and
// context.
func (obj *FileRes) checkLinkOwner(c *fileCheck) error {
	if err := obj.checkAttrs(c); err != nil {
		return err
	}
	return obj.checkSELinux(c)
}
