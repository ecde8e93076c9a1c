package resources

import (
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
