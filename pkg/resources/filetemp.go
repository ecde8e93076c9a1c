package resources

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// The temporary file of an atomic write
//
// Where the file system allows it, the temporary file is made without a
// name (O_TMPFILE), locked, written and given its mode and owner, and only
// then linked to its temporary name and renamed over the path: nobody can
// open it before it is complete, no sweeper can see it before it is
// locked, and the directory reports no write to it (one event less for
// every watcher of the directory, on the path of every repair). A file
// that was absent is linked to the path itself instead (linkNew), which
// replaces nothing: no temporary name, no rename. On file systems that
// refuse unnamed files, it is created with its name at once (createTemp).
//
// A descriptor's close reports the errors of the writes on some file
// systems (NFS, FUSE), and the rename must not install a file whose
// writes failed. On the local file systems where close reports nothing
// (closeCannotFail), the descriptor stays open, holding the lock, until
// the rename is done; elsewhere it is closed before the rename, and a
// second descriptor keeps the lock (keepLock).

// A tempFile is the temporary file of an atomic write.
type tempFile struct {
	fd      int    // -1 once closed
	name    string // of an unnamed file: "" until link names it
	dir     string // of an unnamed file: where to name it, and how
	prefix  string
	st      syscall.Stat_t // its status as made (of an unnamed file: its mode and owner only)
	mnt     uint64         // the unique ID of its mount (unnamed files), 0 when unknown
	unnamed bool           // made with O_TMPFILE and not linked to name yet
	release func()         // drops the lock kept past the close (keepLock), or nil
}

// noTmpfile holds the directories whose file system refused an unnamed
// file: their temporary files are made with their names at once.
var noTmpfile sync.Map

// emptyPathLink is cleared once linkat with AT_EMPTY_PATH was refused
// (before Linux 6.10 it needs CAP_DAC_READ_SEARCH): unnamed files are then
// linked through /proc/self/fd.
var emptyPathLink atomic.Bool

func init() { emptyPathLink.Store(true) }

// procFD reports whether /proc/self/fd is there to link an unnamed file
// through, should AT_EMPTY_PATH be refused. Without it, unnamed files are
// not used at all: one that could not be linked would lose its content.
var procFD = sync.OnceValue(func() bool {
	fi, err := os.Stat("/proc/self/fd")
	return err == nil && fi.IsDir()
})

// newTemp makes the temporary file of an atomic write in dir, locked,
// with the permission bits mode (less the umask), and a name made of
// prefix and a random number: unnamed until link where the file system
// allows it, otherwise created with that name (createTemp).
func newTemp(dir, prefix string, mode uint32) (*tempFile, error) {
	if _, refused := noTmpfile.Load(dir); !refused && procFD() {
		if t, ok := openUnnamed(dir, prefix, mode); ok {
			return t, nil
		}
	}
	fd, name, st, err := createTemp(dir, prefix, mode)
	if err != nil {
		return nil, err
	}
	return &tempFile{fd: fd, name: name, st: st}, nil
}

// openUnnamed makes an unnamed file in dir, locked, and reports whether
// it could: when the file system refuses, dir is recorded in noTmpfile
// (any other error is left to createTemp to report).
func openUnnamed(dir, prefix string, mode uint32) (*tempFile, bool) {
	if dir == "" {
		dir = "."
	}
	fd, err := syscall.Open(dir, unix.O_TMPFILE|syscall.O_RDWR|syscall.O_CLOEXEC, mode)
	for err == syscall.EINTR {
		fd, err = syscall.Open(dir, unix.O_TMPFILE|syscall.O_RDWR|syscall.O_CLOEXEC, mode)
	}
	switch err {
	case nil:
	case syscall.EOPNOTSUPP, syscall.EISDIR, syscall.EINVAL:
		noTmpfile.Store(dir, true)
		return nil, false
	default:
		return nil, false
	}
	t := &tempFile{fd: fd, unnamed: true, dir: dir, prefix: prefix}
	if t.stat() != nil {
		syscall.Close(fd)
		return nil, false
	}
	// Its temporary name is chosen by link, when it needs one: a file
	// linked to its path at once (linkNew) never does.
	return t, true
}

// statxWant is what stat asks statx for: the mode and owner of the file,
// and the unique ID of its mount, which Linux never gives another mount
// (6.8 and later).
const statxWant = unix.STATX_TYPE | unix.STATX_MODE | unix.STATX_UID | unix.STATX_GID | unix.STATX_MNT_ID_UNIQUE

// stat records the mode and owner of the unnamed file and, where the
// kernel tells, the unique ID of its mount (closeCannotFail), in one
// system call; fstat where statx is refused.
func (t *tempFile) stat() error {
	var sx unix.Statx_t
	err := unix.Statx(t.fd, "", unix.AT_EMPTY_PATH|unix.AT_STATX_SYNC_AS_STAT, statxWant, &sx)
	const basic = unix.STATX_TYPE | unix.STATX_MODE | unix.STATX_UID | unix.STATX_GID
	if err != nil || sx.Mask&basic != basic {
		return syscall.Fstat(t.fd, &t.st)
	}
	t.st = syscall.Stat_t{Mode: uint32(sx.Mode), Uid: sx.Uid, Gid: sx.Gid}
	if sx.Mask&unix.STATX_MNT_ID_UNIQUE != 0 {
		t.mnt = sx.Mnt_id
	}
	return nil
}

// tempName returns a new random temporary name in dir.
func tempName(dir, prefix string) string {
	return filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
}

// link gives an unnamed file its name, a new one should the name be
// taken.
func (t *tempFile) link() error {
	if !t.unnamed {
		return nil
	}
	// The lock is taken before the file has a name, so no sweeper can
	// take it first: a lock refused (a file system without locks) is
	// no reason not to write. A file linked to its path at once
	// (linkNew) never has a temporary name, and needs no lock.
	_ = syscall.Flock(t.fd, syscall.LOCK_EX|syscall.LOCK_NB)
	t.name = tempName(t.dir, t.prefix)
	for try := 0; ; try++ {
		err := t.linkTo(t.name)
		if err == syscall.EEXIST && try < 10000 {
			t.name = tempName(t.dir, t.prefix)
			continue
		}
		if err != nil {
			return &os.LinkError{Op: "link", Old: "/proc/self/fd/" + strconv.Itoa(t.fd), New: t.name, Err: err}
		}
		t.unnamed = false
		return nil
	}
}

// linkTo links the open file to name: with AT_EMPTY_PATH, or through
// /proc/self/fd when the process may not.
func (t *tempFile) linkTo(name string) error {
	if emptyPathLink.Load() {
		err := unix.Linkat(t.fd, "", unix.AT_FDCWD, name, unix.AT_EMPTY_PATH)
		if err != syscall.ENOENT && err != syscall.EPERM {
			return err
		}
		// ENOENT is also what a removed directory gives: only a
		// link through /proc that works tells that AT_EMPTY_PATH
		// was refused.
		if err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(t.fd), unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW); err != nil {
			return err
		}
		emptyPathLink.Store(false)
		return nil
	}
	return unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(t.fd), unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
}

// closeSafe holds, by unique mount ID, what closeCannotFail found for
// the mounts seen: the file system of a mount never changes, and its
// unique ID is never reused, so one fstatfs per mount is enough.
var closeSafe struct {
	sync.Mutex
	mounts map[uint64]bool
}

// closeCannotFail reports whether the file system of the file is one
// whose close never reports an error of the writes (no flush operation):
// ext2/3/4, XFS, Btrfs and tmpfs.
func (t *tempFile) closeCannotFail() bool {
	if t.mnt != 0 {
		closeSafe.Lock()
		safe, known := closeSafe.mounts[t.mnt]
		closeSafe.Unlock()
		if known {
			return safe
		}
	}
	var fs unix.Statfs_t
	if unix.Fstatfs(t.fd, &fs) != nil {
		return false // not recorded: the next write asks again
	}
	safe := false
	switch uint32(fs.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC:
		safe = true
	}
	if t.mnt != 0 {
		closeSafe.Lock()
		if closeSafe.mounts == nil {
			closeSafe.mounts = map[uint64]bool{}
		}
		closeSafe.mounts[t.mnt] = safe
		closeSafe.Unlock()
	}
	return safe
}

// linkNew gives an unnamed file whose close cannot fail the name path,
// which must not exist, and reports whether it did: the link never
// replaces a file (EEXIST), and the file, complete with its mode and
// owner, appears at path at once, as a rename would install it. When it
// did not (path exists, or the file is named or its close could fail),
// the file is left as it was, for ready and a rename.
func (t *tempFile) linkNew(path string) bool {
	if !t.unnamed || !t.closeCannotFail() || t.linkTo(path) != nil {
		return false
	}
	t.unnamed = false
	t.name = path
	return true
}

// ready names the file and, unless its close cannot fail, closes it
// (keeping its lock), so that a failed write is known before the rename.
func (t *tempFile) ready() error {
	keepOpen := t.unnamed && t.closeCannotFail()
	if err := t.link(); err != nil {
		return err
	}
	if keepOpen {
		return nil
	}
	t.release = keepLock(t.fd)
	err := syscall.Close(t.fd)
	t.fd = -1
	if err != nil {
		return &os.PathError{Op: "close", Path: t.name, Err: err}
	}
	return nil
}

// label returns what errors about t name: its name, or path (what it is
// written for) while it has none.
func (t *tempFile) label(path string) string {
	if t.name == "" {
		return path
	}
	return t.name
}

// end closes what is left open of t, removing its name when failed is
// set (the write failed or was abandoned), and drops its lock. It returns
// the error of a close left until after the rename.
func (t *tempFile) end(failed bool) error {
	var err error
	if t.fd >= 0 {
		if cerr := syscall.Close(t.fd); cerr != nil {
			err = &os.PathError{Op: "close", Path: t.name, Err: cerr}
		}
		t.fd = -1
	}
	if failed && !t.unnamed {
		syscall.Unlink(t.name)
	}
	if t.release != nil {
		t.release()
	}
	return err
}
