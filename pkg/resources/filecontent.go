package resources

// The content of a file: what is wanted, how it is compared with what the
// file holds and replaced, and how the change is reported.

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"unsafe"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// managesContent tells whether the resource sets the file's content: by
// content, source or fragments.
func (obj *FileRes) managesContent() bool {
	return obj.Content != nil || obj.rare().Source != "" || len(obj.rare().Fragments) > 0
}

// wantContent returns the wanted content of a file, or nil when it is not
// managed.
func (obj *FileRes) wantContent() ([]byte, error) {
	switch {
	case obj.Content != nil:
		// A view of the parameter's bytes, not a copy (each check of a
		// converged file would copy its whole content): it is only read,
		// and its capacity is its length, so an append copies it.
		if len(*obj.Content) == 0 {
			return []byte{}, nil // managed, and empty: not nil
		}
		return unsafe.Slice(unsafe.StringData(*obj.Content), len(*obj.Content)), nil
	case obj.rare().Source != "" && !obj.followsLinks():
		return readSourceNoFollow(obj.rare().Source)
	case obj.rare().Source != "":
		b, err := readRegular(obj.rare().Source, false)
		if err != nil {
			return nil, fmt.Errorf("source: %w", err)
		}
		return b, nil
	case len(obj.rare().Fragments) > 0:
		return readFragments(obj.rare().Fragments)
	}
	return nil, nil
}

// checkContent compares and rewrites the content of a file.
func (obj *FileRes) checkContent(c *fileCheck) error {
	if obj.Content == nil && obj.rare().Source == "" && len(obj.rare().Fragments) == 0 {
		return nil
	}
	want, err := obj.wantContent()
	if err != nil {
		return err
	}
	if !c.fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", c.path)
	}
	same, err := sameContent(c.path, c.contentFD(), c.fi.Size(), want)
	if err != nil || same {
		return err
	}
	switch {
	case obj.hidesDiff():
		c.report(hiddenChange("content", c.fi.Size(), len(want)))
	case engine.WantsText(obj.init):
		c.report(contentChange(c.path, c.fi.Size(), want))
	default:
		c.change("content") // no diff wanted: the old content is not read
	}
	if !c.apply {
		return nil
	}
	if err := obj.saveOrig(c); err != nil {
		return err
	}
	// The new file gets its wanted mode and owner with its content (the
	// old file's, where they are not managed): no chmod or chown of the
	// path, nor a stat of it, follows. An owner that cannot be looked
	// up is left to checkAttrs, which reports it.
	wu, wg, oerr := obj.owner()
	if oerr != nil {
		wu, wg = -1, -1
	}
	perm, uid, gid := statBits(c.fi)
	if err := obj.backupOld(c); err != nil {
		return err
	}
	if obj.rare().ValidateCmd != "" {
		// As in Puppet, the command checks the new content with the old
		// file's mode and owner; checkAttrs sets the wanted ones after.
		return writeAtomicChecked(c.ctx, c.path, want, perm, uid, gid, obj.validator(c.ctx))
	}
	obj.attrChanges(c, perm, uid, gid, false, false, wu, wg)
	if obj.mode != nil {
		perm = obj.mode.apply(perm, false)
	}
	if err := writeAtomic(c.ctx, c.path, want, perm, pick(wu, uid), pick(wg, gid)); err != nil {
		return err
	}
	c.attrsSet = oerr == nil
	return nil
}

// contentChange returns the change of the content of the regular file
// at path, of size bytes, to want: with the current content for a diff
// when the two are small enough to compare and it can be read.
func contentChange(path string, size int64, want []byte) engine.Change {
	c := engine.Change{What: "content"}
	if size+int64(len(want)) > engine.MaxDiffInput {
		return c
	}
	fd, err := openNoFollow(path, syscall.O_RDONLY)
	if err != nil {
		return c
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	old, err := io.ReadAll(io.LimitReader(f, engine.MaxDiffInput))
	if err != nil {
		return c
	}
	return textChange("content", path, old, want)
}
