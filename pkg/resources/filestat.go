package resources

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// A statInfo is what os.Lstat returns, kept in the fileCheck of a
// CheckApply instead of an allocation of its own: every file of a graph
// is looked at once per run, an already right one with that lstat and a
// read, and the garbage of each check makes the collector scan the whole
// graph again the sooner. Its methods answer as those of os.Lstat's
// FileInfo do (TestStatInfoAsLstat).
type statInfo struct {
	path string
	st   syscall.Stat_t
}

// lstatInto is os.Lstat(path), into si: the same system call, retried on
// EINTR, and the same *os.PathError.
func lstatInto(path string, si *statInfo) error {
	for {
		err := syscall.Lstat(path, &si.st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "lstat", Path: path, Err: err}
		}
		si.path = path
		return nil
	}
}

// fstatInto is an fstat of fd, the open file at path, into si, answering
// as lstatInto does for that path.
func fstatInto(fd int, path string, si *statInfo) error {
	for {
		err := syscall.Fstat(fd, &si.st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "fstat", Path: path, Err: err}
		}
		si.path = path
		return nil
	}
}

func (si *statInfo) Name() string       { return filepath.Base(si.path) }
func (si *statInfo) Size() int64        { return si.st.Size }
func (si *statInfo) ModTime() time.Time { return time.Unix(si.st.Mtim.Unix()) }
func (si *statInfo) IsDir() bool        { return si.Mode().IsDir() }
func (si *statInfo) Sys() any           { return &si.st }

func (si *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(si.st.Mode & 0o777)
	switch si.st.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if si.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if si.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if si.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// opensFirst reports whether the first look at the path opens it: the
// resource manages the content of a regular file there.
func (obj *FileRes) opensFirst() bool {
	return obj.State != FileStateAbsent && !obj.rare().Symlink && !obj.keepsContent() && !obj.isDir() &&
		(obj.Content != nil || obj.rare().Source != "" || len(obj.rare().Fragments) > 0)
}

// firstLook looks at c.path into c.st: with an lstat, or, for a file whose
// content is managed (opensFirst), with an open that follows no link and
// waits for no writer of a FIFO, and an fstat of what it opened, kept open
// for the comparison of the content (c.fd) when it is a regular file. The
// open spares the second walk of the path that an lstat and then an open
// of the file made, at every check of a file found right, and the content
// compared is that of the file looked at, whatever replaces the path in
// between. A path the open refuses otherwise than as missing (a link, a
// file this process may not read) is looked at with lstat, as before.
func (obj *FileRes) firstLook(c *fileCheck) error {
	if !obj.opensFirst() {
		return lstatInto(c.path, &c.st)
	}
	fd, err := openNoFollow(c.path, syscall.O_RDONLY|syscall.O_NONBLOCK)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return err // as lstat's: nothing there
		}
		return lstatInto(c.path, &c.st)
	}
	if err := fstatInto(fd, c.path, &c.st); err != nil {
		syscall.Close(fd)
		return err
	}
	if c.st.st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd) // a directory, a FIFO, a device: not read
		return nil
	}
	c.fd, c.hasFD = fd, true
	return nil
}

// contentFD returns the open file of the first look, when fi still
// describes it, or -1.
func (c *fileCheck) contentFD() int {
	if c.hasFD && c.fi == os.FileInfo(&c.st) {
		return c.fd
	}
	return -1
}

// closeFD closes the file the first look opened, if any.
func (c *fileCheck) closeFD() {
	if c.hasFD {
		syscall.Close(c.fd)
		c.hasFD = false
	}
}
