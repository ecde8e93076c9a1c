package resources

import (
	"fmt"
	"os"
	"syscall"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// owner resolves the wanted uid and gid (-1 when not managed), once.
func (obj *FileRes) owner() (int, int, error) {
	if obj.Owner == "" && obj.Group == "" {
		return -1, -1, nil
	}
	x := obj.extra()
	if obj.Owner != "" && x.uid < 0 {
		u, err := lookupUID(obj.Owner)
		if err != nil {
			return -1, -1, err
		}
		x.uid = u
	}
	if obj.Group != "" && x.gid < 0 {
		g, err := lookupGID(obj.Group)
		if err != nil {
			return -1, -1, err
		}
		x.gid = g
	}
	uid, gid := -1, -1
	if obj.Owner != "" {
		uid = x.uid
	}
	if obj.Group != "" {
		gid = x.gid
	}
	return uid, gid, nil
}

// checkAttrs compares and sets the mode, owner and group (of a link
// itself, with symlink or a link not followed, whose mode is left: a
// link has none). Changes go through a descriptor of the entry (see
// filefd.go), the owner first: a chown clears the set-id bits that the
// mode may ask for.
func (obj *FileRes) checkAttrs(c *fileCheck) error {
	isLink := c.fi.Mode()&os.ModeSymlink != 0
	if c.attrsSet || obj.mode == nil && obj.Owner == "" && obj.Group == "" {
		return nil
	}
	if !isLink && obj.rare().Symlink || isLink && !obj.rare().Symlink && obj.followsLinks() {
		return nil
	}
	wu, wg, err := obj.owner()
	if err != nil {
		return err
	}
	perm, uid, gid := statBits(c.fi)
	if !obj.attrChanges(nil, perm, uid, gid, c.fi.IsDir(), isLink, wu, wg) {
		return nil
	}
	if !c.apply {
		obj.attrChanges(c, perm, uid, gid, c.fi.IsDir(), isLink, wu, wg)
		return nil
	}
	if err := obj.saveOrig(c); err != nil {
		return err
	}
	e, err := openEntry(c.path)
	if err != nil {
		return err
	}
	defer e.close()
	if e.isLink() != isLink {
		return fmt.Errorf("%s was replaced while being checked (a symbolic link: %v)", c.path, e.isLink())
	}
	// The entry held now decides, should it differ from the one checked.
	perm, uid, gid = e.bits()
	isDir := e.st.Mode&syscall.S_IFMT == syscall.S_IFDIR
	if !obj.attrChanges(c, perm, uid, gid, isDir, isLink, wu, wg) {
		return nil
	}
	if (wu >= 0 && wu != uid) || (wg >= 0 && wg != gid) {
		if err := e.chown(wu, wg); err != nil {
			return err
		}
	}
	if obj.mode != nil && !isLink {
		if want := obj.wantPerm(perm, isDir); want != perm || (wu >= 0 && wu != uid) || (wg >= 0 && wg != gid) {
			return e.chmod(want) // again after a chown, which may clear set-id bits
		}
	}
	return nil
}

// wantPerm returns the permission bits the resource wants for its own
// path, whose bits are perm: its mode applied to them. With recurse, an
// octal mode gives the directory itself search wherever it gives read,
// as it does every directory below it (treeAttrs.perm), and as Puppet
// does; without recurse the mode is applied as it is written.
func (obj *FileRes) wantPerm(perm uint32, isDir bool) uint32 {
	if obj.rare().Recurse || isDir && !obj.isDir() {
		// (a directory kept at a file's path, links "keep", too)
		return treeAttrs{mode: obj.mode}.perm(perm, isDir)
	}
	return obj.mode.apply(perm, isDir)
}

// attrChanges reports whether an entry with the bits perm and owner
// uid:gid needs a chmod or chown to get the wanted mode and owner wu:wg
// (-1: not managed), and records the changes in c unless it is nil. A
// symbolic link's mode is never changed.
func (obj *FileRes) attrChanges(c *fileCheck, perm uint32, uid, gid int, isDir, isLink bool, wu, wg int) bool {
	changed := false
	if obj.mode != nil && !isLink {
		if want := obj.wantPerm(perm, isDir); want != perm {
			changed = true
			if c != nil {
				c.report(engine.Change{What: "mode", From: fmt.Sprintf("%04o", perm), To: fmt.Sprintf("%04o", want)})
			}
		}
	}
	if (wu >= 0 && wu != uid) || (wg >= 0 && wg != gid) {
		changed = true
		if c != nil {
			c.report(engine.Change{What: "owner", From: fmt.Sprintf("%d:%d", uid, gid), To: fmt.Sprintf("%d:%d", pick(wu, uid), pick(wg, gid))})
		}
	}
	return changed
}

func pick(want, have int) int {
	if want < 0 {
		return have
	}
	return want
}
