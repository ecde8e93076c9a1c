package resources

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// tmpMarker is part of the name of every temporary file written before an
// atomic rename, so that stray ones are easy to recognise.
const tmpMarker = ".mgmt-tmp-"

// staleTempAge is how old a temporary file must be before it is taken for
// the leftover of a killed process rather than a write in progress.
const staleTempAge = 10 * time.Minute

// cleanedDirs holds the directories already swept for stale temporary
// files by this process.
var cleanedDirs sync.Map

// sweepStaleTemps removes, once per directory and process, the temporary
// files of atomic writes that a killed process left in dir. It costs one
// directory read; errors are ignored (the sweep is only tidying).
func sweepStaleTemps(dir string, now time.Time) {
	if _, done := cleanedDirs.LoadOrStore(dir, true); done {
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, ".") || !strings.Contains(n, tmpMarker) || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > staleTempAge {
			os.Remove(filepath.Join(dir, n))
		}
	}
}

// writeAtomic replaces path with data: it writes a temporary file in the
// same directory, sets its permission bits and owner, and renames it over
// path. On any error, or when ctx is done before the rename, the temporary
// file is removed and path is left as it was. uid or gid -1 leave the
// temporary file's owner as created.
//
// It uses raw system calls, as sameContent does: an *os.File would add
// fcntl and epoll_ctl calls for a descriptor that is never polled, and
// os.Rename an lstat of path, on the path of every repair.
func writeAtomic(ctx context.Context, path string, data []byte, perm uint32, uid, gid int) (err error) {
	dir, base := filepath.Split(path)
	if len(base) > 64 {
		base = base[:64] // keep the temporary name within NAME_MAX
	}
	fd, tmp, err := createTemp(dir, "."+base+tmpMarker)
	if err != nil {
		return err
	}
	defer func() {
		if fd >= 0 {
			syscall.Close(fd)
		}
		if err != nil {
			syscall.Unlink(tmp)
		}
	}()
	if err = writeAll(ctx, fd, tmp, data); err != nil {
		return err
	}
	if err = syscall.Fchmod(fd, perm); err != nil {
		return &os.PathError{Op: "chmod", Path: tmp, Err: err}
	}
	if uid >= 0 || gid >= 0 {
		if err = syscall.Fchown(fd, uid, gid); err != nil {
			return &os.PathError{Op: "chown", Path: tmp, Err: err}
		}
	}
	err = syscall.Close(fd)
	fd = -1
	if err != nil {
		return &os.PathError{Op: "close", Path: tmp, Err: err}
	}
	if err = ctx.Err(); err != nil {
		return err
	}
	if err = syscall.Rename(tmp, path); err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
	}
	return nil
}

// createTemp creates a new file, readable and writable by its owner only,
// named prefix followed by a random number in dir, and returns its
// descriptor and path.
func createTemp(dir, prefix string) (int, string, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		fd, err := syscall.Open(name, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o600)
		if err == syscall.EINTR || err == syscall.EEXIST && try < 10000 {
			continue
		}
		if err != nil {
			return -1, "", &os.PathError{Op: "open", Path: name, Err: err}
		}
		return fd, name, nil
	}
}

// writeAll writes data to fd (open on path) in chunks, giving up when ctx
// is done.
func writeAll(ctx context.Context, fd int, path string, data []byte) error {
	const chunk = 1 << 20
	for len(data) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := syscall.Write(fd, data[:min(len(data), chunk)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "write", Path: path, Err: err}
		}
		data = data[n:]
	}
	return nil
}

var readBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// sameContent reports whether the regular file at path, whose size is
// size, holds exactly want. It reads the file only when the sizes match,
// in chunks through a pooled buffer, stopping at the first difference.
func sameContent(path string, size int64, want []byte) (bool, error) {
	if size != int64(len(want)) {
		return false, nil
	}
	// Raw system calls: os.Open would add an fstat and allocations, on
	// the path every converged file takes.
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	bp := readBufs.Get().(*[]byte)
	defer readBufs.Put(bp)
	buf := *bp
	for len(want) > 0 {
		n, err := syscall.Read(fd, buf[:min(len(buf), len(want))])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return false, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return false, nil // shrank since the stat
		}
		if !bytes.Equal(buf[:n], want[:n]) {
			return false, nil
		}
		want = want[n:]
	}
	return true, nil
}

// statBits returns the permission bits (07777), uid and gid of fi.
func statBits(fi os.FileInfo) (perm uint32, uid, gid int) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return uint32(fi.Mode().Perm()), -1, -1
	}
	return st.Mode & 07777, int(st.Uid), int(st.Gid)
}

// lookupUID resolves a user name or numeric id.
func lookupUID(s string) (int, error) {
	if n, err := strconv.Atoi(s); err == nil && n >= 0 {
		return n, nil
	}
	u, err := user.Lookup(s)
	if err != nil {
		return -1, fmt.Errorf("unknown user %q", s)
	}
	return strconv.Atoi(u.Uid)
}

// lookupGID resolves a group name or numeric id.
func lookupGID(s string) (int, error) {
	if n, err := strconv.Atoi(s); err == nil && n >= 0 {
		return n, nil
	}
	g, err := user.LookupGroup(s)
	if err != nil {
		return -1, fmt.Errorf("unknown group %q", s)
	}
	return strconv.Atoi(g.Gid)
}

// readFragments concatenates the fragments: a file contributes its
// content, a directory the content of its regular files in name order.
func readFragments(frags []string) ([]byte, error) {
	var buf bytes.Buffer
	for _, p := range frags {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("fragment: %w", err)
		}
		if !fi.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, fmt.Errorf("fragment: %w", err)
			}
			buf.Write(b)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("fragment: %w", err)
		}
		sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
		for _, e := range ents {
			if !e.Type().IsRegular() {
				continue
			}
			b, err := os.ReadFile(filepath.Join(p, e.Name()))
			if err != nil {
				return nil, fmt.Errorf("fragment: %w", err)
			}
			buf.Write(b)
		}
	}
	return buf.Bytes(), nil
}

// syncTree makes the directory dst hold copies of the entries of src
// (regular files with their content and permission bits, directories,
// symbolic links); with recurse it descends into subdirectories, without it
// only the top level is copied. Entries of dst absent from src are kept. It
// returns the paths it changed (or, with apply false, would change).
func syncTree(ctx context.Context, src, dst string, recurse, apply bool) ([]string, error) {
	var changed []string
	ents, err := os.ReadDir(src)
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return changed, err
		}
		s, d := filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())
		si, err := os.Lstat(s)
		if err != nil {
			return changed, fmt.Errorf("source: %w", err)
		}
		var sub []string
		switch {
		case si.IsDir():
			if recurse {
				sub, err = syncDir(ctx, s, d, si, apply)
			}
		case si.Mode()&os.ModeSymlink != 0:
			sub, err = syncLink(s, d, apply)
		case si.Mode().IsRegular():
			sub, err = syncFile(ctx, s, d, si, apply)
		}
		changed = append(changed, sub...)
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// syncDir makes d a directory and copies the tree of s into it.
func syncDir(ctx context.Context, s, d string, si os.FileInfo, apply bool) ([]string, error) {
	var changed []string
	di, derr := os.Lstat(d)
	if derr != nil || !di.IsDir() {
		changed = append(changed, d+"/")
		if !apply {
			return changed, nil
		}
		if derr == nil {
			if err := os.RemoveAll(d); err != nil {
				return changed, err
			}
		}
		perm, _, _ := statBits(si)
		if err := os.Mkdir(d, os.FileMode(perm&0o777)); err != nil {
			return changed, err
		}
	}
	sub, err := syncTree(ctx, s, d, true, apply)
	return append(changed, sub...), err
}

// syncLink makes d a symbolic link with the target of the link s.
func syncLink(s, d string, apply bool) ([]string, error) {
	target, err := os.Readlink(s)
	if err != nil {
		return nil, err
	}
	if have, err := os.Readlink(d); err == nil && have == target {
		return nil, nil
	}
	if !apply {
		return []string{d}, nil
	}
	os.RemoveAll(d)
	return []string{d}, os.Symlink(target, d)
}

// syncFile makes d a regular file with the content and permission bits of
// s.
func syncFile(ctx context.Context, s, d string, si os.FileInfo, apply bool) ([]string, error) {
	want, err := os.ReadFile(s)
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	perm, _, _ := statBits(si)
	di, derr := os.Lstat(d)
	if derr == nil && di.Mode().IsRegular() {
		dperm, _, _ := statBits(di)
		same, err := sameContent(d, di.Size(), want)
		if err != nil {
			return nil, err
		}
		if same && dperm == perm {
			return nil, nil
		}
	}
	if !apply {
		return []string{d}, nil
	}
	if derr == nil && di.IsDir() {
		if err := os.RemoveAll(d); err != nil {
			return []string{d}, err
		}
	}
	return []string{d}, writeAtomic(ctx, d, want, perm, -1, -1)
}
