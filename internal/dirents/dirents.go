// Package dirents reads the names of a directory's entries without making
// a string of each: a directory of many managed files is read at the start
// of every run (its watch, the sweep of leftover temporary files), and
// os.File.Readdirnames makes a string per entry, garbage the collector must
// then find, for names that are nearly all looked at once and dropped.
package dirents

import (
	"bytes"
	"encoding/binary"
	"os"
	"sync"
	"syscall"
)

// bufSize is the size of the buffer the entries are read into, per
// getdents call: about a thousand entries of short names.
const bufSize = 32 << 10

var bufs = sync.Pool{New: func() any { b := make([]byte, bufSize); return &b }}

// The layout of a struct linux_dirent64: inode (8 bytes), offset (8),
// record length (2), type (1), then the name, ended by a NUL within the
// record.
const (
	reclenOff = 16
	nameOff   = 19
)

// Each calls f with the name of each entry of the directory dir, "." and
// ".." left out, in the order the file system gives them, until f returns
// false. The name's bytes are valid only during the call. dir is opened
// as os.Open does (a symbolic link to a directory is followed); the error
// is an *os.PathError, from opening or reading it.
func Each(dir string, f func(name []byte) bool) error {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer syscall.Close(fd)
	bp := bufs.Get().(*[]byte)
	defer bufs.Put(bp)
	buf := *bp
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			return nil
		}
		if !parse(buf[:n], f) {
			return nil
		}
	}
}

// parse calls f with the name of each record of b, as Each does, and
// reports whether f asked for more.
func parse(b []byte, f func(name []byte) bool) bool {
	for len(b) >= nameOff {
		reclen := int(binary.NativeEndian.Uint16(b[reclenOff:]))
		if reclen < nameOff || reclen > len(b) {
			return true // not a record: what is left is dropped
		}
		name := b[nameOff:reclen]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		b = b[reclen:]
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		if !f(name) {
			return false
		}
	}
	return true
}
