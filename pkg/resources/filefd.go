package resources

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// What the file resource follows and what it changes
//
// The directories of a path are resolved by the kernel, which follows the
// symbolic links among them (applying its own fs.protected_symlinks rule
// when that sysctl is on). The last component is never followed by a
// system call: content is compared through a descriptor opened with
// O_NOFOLLOW, written by renaming a temporary file over the entry, and
// the mode and owner are changed through an O_PATH|O_NOFOLLOW descriptor
// of the entry that was checked (no time-of-check to time-of-use race: a
// link swapped in meanwhile is never chmodded or chowned through).
//
// A symbolic link at the last component is resolved by the resource, hop
// by hop through a descriptor of each link, and each link must pass the
// rule of fs.protected_symlinks, done in user space because resolving a
// link by reading it escapes the kernel's own check: a link in a
// directory that others may write to (sticky, or writable by its group or
// by everyone) is followed only if it belongs to the directory's owner or
// to the user the process runs as. Otherwise the resource fails with an
// error and the target is left alone: such a link may have been planted to
// make a privileged process write where its owner could not.

// maxLinkHops bounds a chain of symbolic links, as the kernel's ELOOP does.
const maxLinkHops = 40

// openNoFollow opens path with flags, O_NOFOLLOW, O_CLOEXEC and O_NOCTTY:
// a symbolic link at the last component is not followed (it fails with
// ELOOP, or is opened itself with O_PATH).
func openNoFollow(path string, flags int) (int, error) {
	for {
		fd, err := syscall.Open(path, flags|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NOCTTY, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return fd, nil
	}
}

// sameInode reports whether st and fi describe the same file.
func sameInode(st *syscall.Stat_t, fi os.FileInfo) bool {
	o, ok := fi.Sys().(*syscall.Stat_t)
	return ok && o.Dev == st.Dev && o.Ino == st.Ino
}

// sameFile checks that the open f is the file fi describes: the path was
// not replaced between the lstat and the open.
func sameFile(f *os.File, fi os.FileInfo) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return &os.PathError{Op: "fstat", Path: f.Name(), Err: err}
	}
	if !sameInode(&st, fi) {
		return fmt.Errorf("%s was replaced while being read", f.Name())
	}
	return nil
}

// An entry is an O_PATH descriptor of a directory entry (a link is the
// link itself) with its status, through which its mode and owner change.
type entry struct {
	fd   int
	path string
	st   syscall.Stat_t
}

// openEntry opens the entry at path without following it.
func openEntry(path string) (*entry, error) {
	fd, err := openNoFollow(path, unix.O_PATH)
	if err != nil {
		return nil, err
	}
	e := &entry{fd: fd, path: path}
	if err := syscall.Fstat(fd, &e.st); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	return e, nil
}

func (e *entry) close() { syscall.Close(e.fd) }

func (e *entry) isLink() bool { return e.st.Mode&syscall.S_IFMT == syscall.S_IFLNK }

// bits returns the permission bits (07777), uid and gid of the entry.
func (e *entry) bits() (perm uint32, uid, gid int) {
	return e.st.Mode & 07777, int(e.st.Uid), int(e.st.Gid)
}

// chmod sets the permission bits of the entry. fchmod refuses an O_PATH
// descriptor, but /proc/self/fd/N names the very inode the descriptor
// holds, whatever has become of the path. Without /proc, the entry is
// opened for reading and checked to be the same inode.
func (e *entry) chmod(perm uint32) error {
	if e.isLink() {
		return nil // a link has no mode of its own
	}
	err := syscall.Chmod("/proc/self/fd/"+strconv.Itoa(e.fd), perm)
	if err == nil {
		return nil
	}
	if err != syscall.ENOENT {
		return &os.PathError{Op: "chmod", Path: e.path, Err: err}
	}
	fd, oerr := openNoFollow(e.path, syscall.O_RDONLY|syscall.O_NONBLOCK)
	if oerr != nil {
		return oerr
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Dev != e.st.Dev || st.Ino != e.st.Ino {
		return fmt.Errorf("%s was replaced while being changed", e.path)
	}
	if err := syscall.Fchmod(fd, perm); err != nil {
		return &os.PathError{Op: "chmod", Path: e.path, Err: err}
	}
	return nil
}

// chown sets the owner and group of the entry (of a link itself); -1
// leaves one unchanged.
func (e *entry) chown(uid, gid int) error {
	if uid < 0 && gid < 0 {
		return nil
	}
	if err := unix.Fchownat(e.fd, "", uid, gid, unix.AT_EMPTY_PATH); err != nil {
		return &os.PathError{Op: "chown", Path: e.path, Err: err}
	}
	return nil
}

// setAttrs gives the entry at path the owner uid:gid (-1: unchanged) and
// the permission bits perm, through one descriptor; the owner first, since
// a chown clears set-id bits.
func setAttrs(path string, perm uint32, uid, gid int) error {
	e, err := openEntry(path)
	if err != nil {
		return err
	}
	defer e.close()
	if err := e.chown(uid, gid); err != nil {
		return err
	}
	return e.chmod(perm)
}

// followLinks resolves the symbolic link at path (whose lstat is fi), and
// any link it leads to, hop by hop, refusing a link that others may have
// planted (see checkLinkOwner). It returns the final path and its lstat,
// nil when it does not exist.
func followLinks(path string, fi os.FileInfo) (string, os.FileInfo, error) {
	for hops := 0; fi != nil && fi.Mode()&os.ModeSymlink != 0; hops++ {
		if hops == maxLinkHops {
			return "", nil, &os.PathError{Op: "follow", Path: path, Err: syscall.ELOOP}
		}
		target, err := readLinkChecked(path)
		if err != nil {
			return "", nil, err
		}
		if !filepath.IsAbs(target) {
			if hasDotDot(target) {
				// The kernel resolves ".." after the directory the
				// link is in, which may itself be a link: no lexical
				// shortcut.
				target = filepath.Dir(path) + "/" + target
			} else {
				target = filepath.Join(filepath.Dir(path), target)
			}
		}
		path = target
		fi, err = os.Lstat(path)
		if errors.Is(err, os.ErrNotExist) {
			return path, nil, nil
		}
		if err != nil {
			return "", nil, err
		}
	}
	return path, fi, nil
}

func hasDotDot(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return true
		}
	}
	return false
}

// readLinkChecked reads the symbolic link at path through a descriptor of
// the link, after checking its owner with checkLinkOwner on that same
// descriptor, so the link checked is the link read.
func readLinkChecked(path string) (string, error) {
	e, err := openEntry(path)
	if err != nil {
		return "", err
	}
	defer e.close()
	if !e.isLink() {
		return "", fmt.Errorf("%s stopped being a symbolic link while being followed", path)
	}
	if err := checkLinkOwner(path, int(e.st.Uid)); err != nil {
		return "", err
	}
	buf := make([]byte, 256)
	for {
		n, err := unix.Readlinkat(e.fd, "", buf)
		if err != nil {
			return "", &os.PathError{Op: "readlink", Path: path, Err: err}
		}
		if n < len(buf) {
			return string(buf[:n]), nil
		}
		buf = make([]byte, 2*len(buf))
	}
}

// checkLinkOwner applies linkTrusted to the link at path owned by uid.
func checkLinkOwner(path string, uid int) error {
	dir := filepath.Dir(path)
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return &os.PathError{Op: "stat", Path: dir, Err: err}
	}
	return linkTrusted(path, uint32(uid), &st)
}

// linkTrusted is the one rule by which every kind that writes files
// decides whether to follow a symbolic link: the link at path, owned by
// uid, in a directory whose stat is dir. It is followed when root or the
// user the engine runs as owns it, or when nobody else can have put it
// there, that is when the directory belongs to one of them and is neither
// sticky nor writable by its group or by everyone. Otherwise another user
// may have planted it to steer a write done with the engine's rights onto
// a file they could not write (a link in their own home directory, or in
// /tmp): it is refused.
func linkTrusted(path string, uid uint32, dir *unix.Stat_t) error {
	me := uint32(os.Geteuid())
	if uid == 0 || uid == me {
		return nil
	}
	var why []string
	if dir.Uid != 0 && dir.Uid != me {
		why = append(why, fmt.Sprintf("belongs to uid %d", dir.Uid))
	}
	if dir.Mode&unix.S_ISVTX != 0 {
		why = append(why, "is sticky")
	}
	if dir.Mode&0o002 != 0 {
		why = append(why, "is writable by everyone")
	} else if dir.Mode&0o020 != 0 {
		why = append(why, "is writable by its group")
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf("refusing to follow the symbolic link %s: it belongs to uid %d, not to root nor to us (uid %d), and its directory %s, so it may have been planted",
		path, uid, me, strings.Join(why, " and "))
}

// removeBelow removes the entry rel (a file, a link or an empty directory)
// below the directory dir without following a symbolic link on the way:
// each directory is opened from its parent with O_NOFOLLOW, so one that
// was replaced by a link stops the removal (ELOOP or ENOTDIR) instead of
// leading it elsewhere.
func removeBelow(dir, rel string) error {
	fd, err := openNoFollow(dir, syscall.O_RDONLY|syscall.O_DIRECTORY)
	if err != nil {
		return err
	}
	parts := strings.Split(rel, "/")
	for _, part := range parts[:len(parts)-1] {
		next, err := unix.Openat(fd, part, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		syscall.Close(fd)
		if err != nil {
			return &os.PathError{Op: "open", Path: filepath.Join(dir, rel), Err: err}
		}
		fd = next
	}
	defer syscall.Close(fd)
	last := parts[len(parts)-1]
	err = unix.Unlinkat(fd, last, 0)
	if err == unix.EISDIR {
		err = unix.Unlinkat(fd, last, unix.AT_REMOVEDIR)
	}
	if err != nil {
		return &os.PathError{Op: "remove", Path: filepath.Join(dir, rel), Err: err}
	}
	return nil
}
