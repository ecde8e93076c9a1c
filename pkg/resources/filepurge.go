package resources

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// What purge removes
//
// A purging directory removes every entry below it that is neither in its
// source nor managed by another resource of the graph the engine runs
// (engine.PathManager: files, lines, keys, archives, ...). A managed entry
// is kept, and so are the directories on the way to it; the tree of a
// directory managed with its content (recurse, or a source) is not
// entered. The walk goes through descriptors: each directory is opened
// from its parent with O_NOFOLLOW and each entry removed with unlinkat,
// so a symbolic link is removed as a link and never followed, and a
// directory swapped for a link meanwhile stops the walk instead of
// leading it out of the tree. Another file system mounted below the
// directory is neither entered nor removed. What other programs manage
// without a resource of this graph is not known, and is purged.

// maxPurgeDepth bounds the depth of the directories purge walks.
const maxPurgeDepth = 1024

// purgeKeep is what a purging directory keeps, as paths relative to it.
type purgeKeep struct {
	entry   map[string]bool // managed: kept (a directory is entered)
	tree    map[string]bool // managed with everything below: kept, not entered
	parents map[string]bool // on the way to a managed entry: kept, entered
}

// purgeKeep collects what the other resources of the graph manage below
// the directory.
func (obj *FileRes) purgeKeep() (purgeKeep, error) {
	k := purgeKeep{entry: map[string]bool{}, tree: map[string]bool{}, parents: map[string]bool{}}
	if obj.init == nil || obj.init.Graph == nil {
		return k, fmt.Errorf("purge: the engine does not say which resources manage entries of %s", obj.path())
	}
	root := obj.cleanPath()
	for _, r := range obj.init.Graph() {
		pm, ok := r.(engine.PathManager)
		if !ok || r == engine.Res(obj) {
			continue
		}
		for _, mp := range pm.ManagedPaths() {
			rel, err := filepath.Rel(root, filepath.Clean(mp.Path))
			if err != nil || rel == "." || !filepath.IsLocal(rel) {
				continue
			}
			k.entry[rel] = true
			if mp.Tree {
				k.tree[rel] = true
			}
			for d := filepath.Dir(rel); d != "."; d = filepath.Dir(d) {
				k.parents[d] = true
			}
		}
	}
	return k, nil
}

// ManagedPaths returns the path, with everything below it when the
// directory's content is managed (recurse, or a source).
func (obj *FileRes) ManagedPaths() []engine.ManagedPath {
	tree := obj.isDir() && !obj.rare().Symlink && (obj.rare().Recurse || obj.rare().Source != "")
	return []engine.ManagedPath{{Path: obj.cleanPath(), Tree: tree}}
}

// A purger walks a purging directory.
type purger struct {
	c      *fileCheck
	keep   purgeKeep
	source string // the source directory, or ""
	// keepDirs keeps the directories nothing manages, entering them to
	// purge what they hold (purge_dirs false)
	keepDirs bool
	dev      uint64 // the directory's file system
	removed  []string
	mounts   []string // other file systems found below
}

// checkPurge removes what nobody manages below the directory.
func (obj *FileRes) checkPurge(c *fileCheck) error {
	if !obj.rare().Purge {
		return nil
	}
	keep, err := obj.purgeKeep()
	if err != nil {
		return err
	}
	fd, err := openNoFollow(c.path, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return &os.PathError{Op: "fstat", Path: c.path, Err: err}
	}
	p := &purger{c: c, keep: keep, dev: st.Dev, keepDirs: obj.rare().PurgeDirs != nil && !*obj.rare().PurgeDirs}
	if obj.rare().Source != "" {
		p.source = filepath.Clean(obj.rare().Source)
	}
	err = p.dir(fd, "", 0)
	if n := len(p.removed); n > 0 {
		shown := p.removed[:min(n, 5)]
		more := ""
		if n > len(shown) {
			more = ", ..."
		}
		c.change(fmt.Sprintf("purged %d entries (%s%s)", n, strings.Join(shown, ", "), more))
	}
	if len(p.mounts) > 0 {
		obj.init.Logf("purge kept %s: another file system is mounted there", strings.Join(p.mounts, ", "))
	}
	return err
}

// dir purges the directory open as fd (which it closes), rel below the
// purging one.
func (p *purger) dir(fd int, rel string, depth int) error {
	f := os.NewFile(uintptr(fd), filepath.Join(p.c.path, rel))
	defer f.Close()
	if depth > maxPurgeDepth {
		return fmt.Errorf("purge: %s is more than %d directories deep", f.Name(), maxPurgeDepth)
	}
	names, err := f.Readdirnames(-1)
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		if err := p.c.ctx.Err(); err != nil {
			return err
		}
		r := filepath.Join(rel, name)
		if p.keep.tree[r] || strings.Contains(name, tmpMarker) {
			continue // managed whole, or an atomic write in progress
		}
		var st unix.Stat_t
		if err := unix.Fstatat(int(f.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return &os.PathError{Op: "lstat", Path: filepath.Join(f.Name(), name), Err: err}
		}
		isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
		if isDir && st.Dev != p.dev {
			p.mounts = append(p.mounts, filepath.Join(f.Name(), name))
			continue
		}
		if p.keep.entry[r] || p.keep.parents[r] || p.keepDirs && isDir || p.inSource(r) {
			if !isDir {
				continue
			}
			sub, err := unix.Openat(int(f.Fd()), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				return &os.PathError{Op: "open", Path: filepath.Join(f.Name(), name), Err: err}
			}
			if err := p.dir(sub, r, depth+1); err != nil {
				return err
			}
			continue
		}
		p.removed = append(p.removed, r)
		if p.c.apply {
			if err := p.remove(int(f.Fd()), f.Name(), name, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// inSource reports whether the source has an entry at rel.
func (p *purger) inSource(rel string) bool {
	if p.source == "" {
		return false
	}
	_, err := os.Lstat(filepath.Join(p.source, rel))
	return err == nil
}

// remove removes the entry name of the directory dirfd (at path dir) and,
// for a directory, everything in it, through descriptors.
func (p *purger) remove(dirfd int, dir, name string, depth int) error {
	path := filepath.Join(dir, name)
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	if !errors.Is(err, unix.EISDIR) {
		return &os.PathError{Op: "remove", Path: path, Err: err}
	}
	if depth > maxPurgeDepth {
		return fmt.Errorf("purge: %s is more than %d directories deep", path, maxPurgeDepth)
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		return p.remove(dirfd, dir, name, depth+1) // no longer a directory
	}
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Dev != p.dev {
		f.Close()
		return fmt.Errorf("purge: refusing to remove %s: another file system is mounted there (%v)", path, err)
	}
	names, err := f.Readdirnames(-1)
	for _, n := range names {
		if err == nil {
			err = p.remove(int(f.Fd()), path, n, depth+1)
		}
	}
	f.Close()
	if err != nil {
		return err
	}
	if err := unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) {
		return &os.PathError{Op: "remove", Path: path, Err: err}
	}
	return nil
}
