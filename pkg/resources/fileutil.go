package resources

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mgmtpipe/mgmt/internal/account"
	"github.com/mgmtpipe/mgmt/internal/dirents"
)

// tmpMarker is part of the name of every temporary file written before an
// atomic rename, so that stray ones are easy to recognise.
const tmpMarker = ".mgmt-tmp-"

// staleTempAge is how old a temporary file must be before it is taken for
// the leftover of a killed process when its lock cannot tell (a file
// system without locks, or a file this process may not open).
const staleTempAge = 10 * time.Minute

// cleanedDirs holds the directories already swept for stale temporary
// files by this process.
var cleanedDirs struct {
	mu sync.Mutex
	m  map[string]bool // a sync.Map would box each file's directory to look it up
}

// sweepStaleTemps removes, once per directory and process, the temporary
// files of atomic writes that a killed process left in dir. It costs one
// directory read of the names alone (neither sorted nor made into strings,
// but those of temporary files: a directory of many managed files is read
// at the start of every run, and hardly any of its names is a temporary
// file's), and an lstat of each name that is one; errors are ignored (the
// sweep is only tidying).
func sweepStaleTemps(dir string, now time.Time) {
	cleanedDirs.mu.Lock()
	done := cleanedDirs.m[dir]
	if !done {
		if cleanedDirs.m == nil {
			cleanedDirs.m = map[string]bool{}
		}
		cleanedDirs.m[dir] = true
	}
	cleanedDirs.mu.Unlock()
	if done {
		return
	}
	var temps []string
	dirents.Each(dir, func(name []byte) bool {
		if name[0] == '.' && bytes.Contains(name, tmpMarkerBytes) {
			temps = append(temps, filepath.Join(dir, string(name)))
		}
		return true
	})
	for _, p := range temps {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			removeIfStale(p, now)
		}
	}
}

var tmpMarkerBytes = []byte(tmpMarker)

// removeIfStale removes the temporary file path if no live process is
// writing it. Its writer holds a lock on it from before it has its name
// to after its rename (createTemp, keepLock), which the kernel drops when
// the writer dies: a file whose lock is free is a leftover, removed at
// once. A file this process may not open, or on a file system without
// locks, must be staleTempAge old.
func removeIfStale(path string, now time.Time) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) > staleTempAge {
			os.Remove(path)
		}
		return
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return
	}
	switch err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB); {
	case err == nil, err != syscall.EWOULDBLOCK && now.Sub(time.Unix(st.Mtim.Unix())) > staleTempAge:
		os.Remove(path) // while holding the lock: no writer can take it
	}
}

// keepLock returns a function closing a second descriptor of the open file
// of fd, taken now: the lock createTemp took on the file stays while fd is
// closed (closing reports the errors of the writes) until the rename is
// done and the function called.
func keepLock(fd int) func() {
	lk, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return func() {}
	}
	return func() { syscall.Close(lk) }
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
func writeAtomic(ctx context.Context, path string, data []byte, perm uint32, uid, gid int) error {
	return writeAtomicChecked(ctx, path, data, perm, uid, gid, nil)
}

// writeAtomicChecked is writeAtomic with a check of the temporary file,
// complete with its bits and owner, before the rename: when check (if
// not nil) fails, path is left as it was.
func writeAtomicChecked(ctx context.Context, path string, data []byte, perm uint32, uid, gid int, check func(tmp string) error) error {
	return replaceAtomic(ctx, path, perm, uid, gid, nil, func(fd int, tmp string) error {
		return writeAll(ctx, fd, tmp, data)
	}, check)
}

// createAtomic is writeAtomicChecked for a path that was found absent:
// when there is no check, an unnamed temporary file is linked to path
// itself, with no temporary name and no rename, and linked (if not nil)
// is called at once. The link replaces nothing: should path have
// appeared since, the write goes on as writeAtomicChecked's.
func createAtomic(ctx context.Context, path string, data []byte, perm uint32, uid, gid int, check func(tmp string) error, linked func()) error {
	if linked == nil {
		linked = func() {}
	}
	return replaceAtomic(ctx, path, perm, uid, gid, linked, func(fd int, tmp string) error {
		return writeAll(ctx, fd, tmp, data)
	}, check)
}

// writeAtomicFrom replaces path with what r reads, as writeAtomic does,
// streaming: the size is not bounded by memory.
func writeAtomicFrom(ctx context.Context, path string, r io.Reader, perm uint32) error {
	return replaceAtomic(ctx, path, perm, -1, -1, nil, func(fd int, tmp string) error {
		bp := readBufs.Get().(*[]byte)
		defer readBufs.Put(bp)
		for {
			n, err := r.Read(*bp)
			if n > 0 {
				if werr := writeAll(ctx, fd, tmp, (*bp)[:n]); werr != nil {
					return werr
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}, nil)
}

// replaceAtomic is writeAtomic with the writing of the temporary file's
// content left to fill and, if check is not nil, the temporary file
// checked before the rename. The temporary file (see filetemp.go) is made
// with its final mode when it keeps the owner and group it is made with,
// so that no chmod follows; a chown comes before the chmod, which sets
// again the set-id bits a chown clears. With linked not nil (path was
// found absent) and no check, the complete file is first offered to path
// itself (tempFile.linkNew), and linked is called when path took it.
func replaceAtomic(ctx context.Context, path string, perm uint32, uid, gid int, linked func(), fill func(fd int, tmp string) error, check func(tmp string) error) (err error) {
	dir, base := filepath.Split(path)
	if len(base) > 64 {
		base = base[:64] // keep the temporary name within NAME_MAX
	}
	prefix := "." + base + tmpMarker
	t, err := newTemp(dir, prefix, tempMode(perm, uid, gid))
	if err != nil {
		return err
	}
	chown := uid >= 0 && uint32(uid) != t.st.Uid || gid >= 0 && uint32(gid) != t.st.Gid
	if chown && t.st.Mode&0o077 != 0 && !t.unnamed {
		// Made with another group than the process's (in a set-group-ID
		// directory): others may have opened it before its chown, so
		// it is not used.
		t.end(true)
		fd, tmp, st, err := createTemp(dir, prefix, 0o600)
		if err != nil {
			return err
		}
		t = &tempFile{fd: fd, name: tmp, st: st}
	}
	defer func() {
		if cerr := t.end(err != nil); err == nil {
			err = cerr
		}
	}()
	if err = fill(t.fd, t.label(path)); err != nil {
		return err
	}
	if chown {
		if err = syscall.Fchown(t.fd, uid, gid); err != nil {
			return &os.PathError{Op: "chown", Path: t.label(path), Err: err}
		}
	}
	if t.st.Mode&07777 != perm {
		if err = syscall.Fchmod(t.fd, perm); err != nil {
			return &os.PathError{Op: "chmod", Path: t.label(path), Err: err}
		}
	}
	if linked != nil && check == nil {
		if err = ctx.Err(); err != nil {
			return err
		}
		if t.linkNew(path) {
			linked()
			return nil
		}
	}
	if err = t.ready(); err != nil {
		return err
	}
	if check != nil {
		if err = check(t.name); err != nil {
			return err
		}
	}
	if err = ctx.Err(); err != nil {
		return err
	}
	if err = syscall.Rename(t.name, path); err != nil {
		return &os.LinkError{Op: "rename", Old: t.name, New: path, Err: err}
	}
	return nil
}

// The process's effective user and group, which the tools never change.
var procUID, procGID = os.Geteuid(), os.Getegid()

// tempMode returns the mode to make the temporary file of a write with:
// the final permission bits when the file is to keep the owner and group
// the process gives it, 0600 when a chown follows (nobody else may open
// it before). The set-id bits come with the chmod after the write.
func tempMode(perm uint32, uid, gid int) uint32 {
	if uid >= 0 && uid != procUID || gid >= 0 && gid != procGID {
		return 0o600
	}
	return perm & 0o777
}

// createTemp creates a new file with the permission bits mode (less the
// umask), named prefix followed by a random number in dir, and returns its
// descriptor, path and status. The file is locked (flock) for as long as
// its open file lives, which tells sweepers (removeIfStale) that it is in
// use: the caller keeps the lock until the file is renamed or removed
// (keepLock).
func createTemp(dir, prefix string, mode uint32) (int, string, syscall.Stat_t, error) {
	var st syscall.Stat_t
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		fd, err := syscall.Open(name, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, mode)
		if err == syscall.EINTR || err == syscall.EEXIST && try < 10000 {
			continue
		}
		if err != nil {
			return -1, "", st, &os.PathError{Op: "open", Path: name, Err: err}
		}
		if !lockedNew(fd, name, &st) && try < 10000 {
			syscall.Close(fd)
			continue
		}
		return fd, name, st, nil
	}
}

// lockedNew locks the file just created as name on fd, reads its status
// into st, and reports whether name is still that file, locked or on a
// file system without locks. A sweeper that saw the file in the instant
// between its creation and its lock holds the lock (and will remove the
// file) or has removed it: the caller then takes another name.
func lockedNew(fd int, name string, st *syscall.Stat_t) bool {
	lockErr := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
	if lockErr == syscall.EWOULDBLOCK || syscall.Fstat(fd, st) != nil {
		return false
	}
	if lockErr != nil {
		return true // no locks here: sweepers go by age
	}
	var b syscall.Stat_t
	return syscall.Lstat(name, &b) == nil && st.Dev == b.Dev && st.Ino == b.Ino
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
// size, holds exactly want: the file open as fd, from its start, or, when
// fd is -1, the file it opens at path (and closes). It reads the file only
// when the sizes match, in chunks through a pooled buffer, stopping at the
// first difference; the last read asks for one byte more than is left, so
// that a file that grew since the stat differs without another read (a
// small file is one read).
func sameContent(path string, fd int, size int64, want []byte) (bool, error) {
	if size != int64(len(want)) {
		return false, nil
	}
	if fd < 0 {
		// Raw system calls: os.Open would add an fstat and
		// allocations. It waits for no writer of a FIFO that replaced
		// a file since its stat.
		var err error
		if fd, err = openNoFollow(path, syscall.O_RDONLY|syscall.O_NONBLOCK); err != nil {
			return false, err
		}
		defer syscall.Close(fd)
	}
	bp := readBufs.Get().(*[]byte)
	defer readBufs.Put(bp)
	buf := *bp
	for {
		n, err := syscall.Read(fd, buf[:min(len(buf), len(want)+1)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return false, &os.PathError{Op: "read", Path: path, Err: err}
		}
		switch {
		case n > len(want) || !bytes.Equal(buf[:n], want[:n]):
			return false, nil // grew since the stat, or differs
		case n == len(want) && n < len(buf):
			return true, nil // a short read: the end of the file
		case n == 0:
			return false, nil // shrank since the stat
		}
		want = want[n:]
	}
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
	u, err := account.Lookup(s)
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
	g, err := account.LookupGroup(s)
	if err != nil {
		return -1, fmt.Errorf("unknown group %q", s)
	}
	return strconv.Atoi(g.Gid)
}

// readRegular reads the whole of the regular file at path, following a
// last symbolic link unless noFollow, for a source or a fragment. A FIFO,
// a device, a socket or a directory is refused before anything is read
// from it (it is opened without waiting for a writer), where reading it
// would wait for ever or never end (source => "/dev/zero").
func readRegular(path string, noFollow bool) ([]byte, error) {
	flags := syscall.O_RDONLY | syscall.O_NONBLOCK
	var fd int
	var err error
	if noFollow {
		fd, err = openNoFollow(path, flags)
	} else {
		for {
			fd, err = syscall.Open(path, flags|syscall.O_CLOEXEC|syscall.O_NOCTTY, 0)
			if err != syscall.EINTR {
				break
			}
		}
		if err != nil {
			err = &os.PathError{Op: "open", Path: path, Err: err}
		}
	}
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file but %s", path, modeKind(fi.Mode()))
	}
	return io.ReadAll(f)
}

// modeKind names the kind of file of a mode that is not a regular file's.
func modeKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "of type " + m.Type().String()
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
			b, err := readRegular(p, false)
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
			b, err := readRegular(filepath.Join(p, e.Name()), false)
			if err != nil {
				return nil, fmt.Errorf("fragment: %w", err)
			}
			buf.Write(b)
		}
	}
	return buf.Bytes(), nil
}

// treeAttrs are the mode and owner a recursive file resource gives to the
// entries below its directory. A nil mode keeps the permission bits of the
// source (or, without a source, the entry's own); uid or gid -1 leave the
// owner alone.
type treeAttrs struct {
	mode     *fileMode
	uid, gid int
}

// perm returns the wanted permission bits of an entry whose source (or
// current) bits are cur. As in Puppet, an octal mode gives a directory
// the search bit wherever it gives the read bit, so that "0644" on a tree
// leaves its subdirectories usable.
func (a treeAttrs) perm(cur uint32, isDir bool) uint32 {
	if a.mode == nil {
		return cur & 07777
	}
	p := a.mode.apply(cur, isDir)
	if isDir && a.mode.octal {
		p |= (p & 0o444) >> 2
	}
	return p
}

// fix gives the existing entry d (described by di) the wanted bits perm
// and the wanted owner, and reports whether anything differed. Links get
// only their owner (a link has no mode of its own). The changes go through
// a descriptor of the entry, which is left alone if it is no longer the
// entry di describes.
func (a treeAttrs) fix(d string, di os.FileInfo, perm uint32, apply bool) (bool, error) {
	have, uid, gid := statBits(di)
	link := di.Mode()&os.ModeSymlink != 0
	modeOK := link || have == perm
	ownerOK := (a.uid < 0 || a.uid == uid) && (a.gid < 0 || a.gid == gid)
	if modeOK && ownerOK {
		return false, nil
	}
	if !apply {
		return true, nil
	}
	e, err := openEntry(d)
	if err != nil {
		return true, err
	}
	defer e.close()
	if !sameInode(&e.st, di) {
		return true, fmt.Errorf("%s was replaced while being checked", d)
	}
	if !ownerOK {
		if err := e.chown(a.uid, a.gid); err != nil {
			return true, err
		}
	}
	if !modeOK || !ownerOK && !link {
		return true, e.chmod(perm) // again after a chown, which may clear set-id bits
	}
	return true, nil
}

// A treeSync copies a source directory into a managed one.
type treeSync struct {
	ctx     context.Context
	apply   bool
	recurse bool
	attrs   treeAttrs
	changed []string // the paths it changed (or, with apply false, would change)
	// before, when set, is called before the entry d is created
	// (existed false) or changed: an error leaves it alone.
	before func(d string, existed bool) error
}

// will calls before, if set, when the entry d is about to be created or
// changed.
func (t *treeSync) will(d string, existed bool) error {
	if t.before == nil || !t.apply {
		return nil
	}
	return t.before(d, existed)
}

// fix gives the existing entry d the wanted bits and owner (see
// treeAttrs.fix) and records it as changed when anything differed; name is
// how it is recorded.
func (t *treeSync) fix(d, name string, di os.FileInfo, perm uint32) error {
	changed, err := t.attrs.fix(d, di, perm, false)
	if !changed || err != nil {
		return err
	}
	t.changed = append(t.changed, name)
	if err := t.will(d, true); err != nil {
		return err
	}
	_, err = t.attrs.fix(d, di, perm, t.apply)
	return err
}

// tree makes the directory dst hold copies of the entries of src (regular
// files with their content, directories, symbolic links), with the
// permission bits of the source unless a mode is given, and the owner
// given. With recurse it descends into subdirectories; without it only the
// top level is copied. Entries of dst absent from src are kept.
func (t *treeSync) tree(src, dst string) error {
	ents, err := os.ReadDir(src)
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	for _, e := range ents {
		if err := t.ctx.Err(); err != nil {
			return err
		}
		s, d := filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())
		si, err := os.Lstat(s)
		if err != nil {
			return fmt.Errorf("source: %w", err)
		}
		switch {
		case si.IsDir():
			if t.recurse {
				err = t.dir(s, d, si)
			}
		case si.Mode()&os.ModeSymlink != 0:
			err = t.link(s, d)
		case si.Mode().IsRegular():
			err = t.file(s, d, si)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// dir makes d a directory and copies the tree of s into it.
func (t *treeSync) dir(s, d string, si os.FileInfo) error {
	sp, _, _ := statBits(si)
	perm := t.attrs.perm(sp, true)
	di, derr := os.Lstat(d)
	switch {
	case derr != nil || !di.IsDir():
		t.changed = append(t.changed, d+"/")
		if !t.apply {
			return nil
		}
		if err := t.will(d, derr == nil); err != nil {
			return err
		}
		if derr == nil {
			if err := os.RemoveAll(d); err != nil {
				return err
			}
		}
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
		if err := setAttrs(d, perm, t.attrs.uid, t.attrs.gid); err != nil {
			return err
		}
	default:
		if err := t.fix(d, d+"/", di, perm); err != nil {
			return err
		}
	}
	return t.tree(s, d)
}

// link makes d a symbolic link with the target of the link s.
func (t *treeSync) link(s, d string) error {
	target, err := os.Readlink(s)
	if err != nil {
		return err
	}
	if have, err := os.Readlink(d); err == nil && have == target {
		di, err := os.Lstat(d)
		if err != nil {
			return err
		}
		return t.fix(d, d, di, 0)
	}
	t.changed = append(t.changed, d)
	if !t.apply {
		return nil
	}
	_, lerr := os.Lstat(d)
	if err := t.will(d, lerr == nil); err != nil {
		return err
	}
	os.RemoveAll(d)
	if err := os.Symlink(target, d); err != nil {
		return err
	}
	if t.attrs.uid >= 0 || t.attrs.gid >= 0 {
		return os.Lchown(d, t.attrs.uid, t.attrs.gid)
	}
	return nil
}

// file makes d a regular file with the content of s; a file with the
// right content but the wrong mode or owner is only chmodded or chowned.
func (t *treeSync) file(s, d string, si os.FileInfo) error {
	want, err := os.ReadFile(s)
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	sp, _, _ := statBits(si)
	perm := t.attrs.perm(sp, false)
	di, derr := os.Lstat(d)
	if derr == nil && di.Mode().IsRegular() {
		same, err := sameContent(d, -1, di.Size(), want)
		if err != nil {
			return err
		}
		if same {
			return t.fix(d, d, di, perm)
		}
	}
	t.changed = append(t.changed, d)
	if !t.apply {
		return nil
	}
	if err := t.will(d, derr == nil); err != nil {
		return err
	}
	if derr == nil && di.IsDir() {
		if err := os.RemoveAll(d); err != nil {
			return err
		}
	}
	return writeAtomic(t.ctx, d, want, perm, t.attrs.uid, t.attrs.gid)
}

// attrsBelow gives every entry below the directory dst, at every depth,
// the mode and owner of attrs: what recurse means for a directory that has
// no source. Temporary files of atomic writes in progress are skipped.
func (t *treeSync) attrsBelow(dst string) error {
	return filepath.WalkDir(dst, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while we walk
			}
			return err
		}
		if err := t.ctx.Err(); err != nil {
			return err
		}
		if p == dst || strings.Contains(e.Name(), tmpMarker) {
			return nil
		}
		di, err := e.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		cur, _, _ := statBits(di)
		name := p
		if di.IsDir() {
			name += "/"
		}
		return t.fix(p, name, di, t.attrs.perm(cur, di.IsDir()))
	})
}

// vanished reports whether err says that one of paths, or something
// below one of them, does not exist (any more).
func vanished(err error, paths ...string) bool {
	if err == nil {
		return false // without the allocation errors.As's target costs
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(pe.Err, fs.ErrNotExist) {
		return false
	}
	for _, p := range paths {
		if pe.Path == p || strings.HasPrefix(pe.Path, strings.TrimSuffix(p, "/")+"/") {
			return true
		}
	}
	return false
}

// missingParent rewords the error of a creation whose directory is
// missing.
func missingParent(path string, err error) error {
	dir := filepath.Dir(path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(dir); errors.Is(serr, fs.ErrNotExist) {
			return fmt.Errorf("cannot create %s: directory %s does not exist", path, dir)
		}
	}
	return err
}

// processUmask returns the umask of the process, read once from
// /proc/self/status (setting it to read it would race with the files
// other goroutines create); 022 where it cannot be read.
var processUmask = sync.OnceValue(func() uint32 {
	b, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "Umask:"); ok {
				if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil && m <= 0o777 {
					return uint32(m)
				}
			}
		}
	}
	return 0o022
})
