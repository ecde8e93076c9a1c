package resources

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mgmtpipe/mgmt/internal/account"
	"github.com/mgmtpipe/mgmt/internal/fswatch"
	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// This file holds what the kinds that edit part of a file (line,
// ssh:authorized_key, sysctl's conf file, json:edit) and the kinds that
// write a whole file they compute (tar, gzip) share: resolving the path
// through trusted symbolic links only, reading the file whole within a
// bound, and replacing it atomically with its mode and owner kept.

// maxEditSize bounds the size of a file read whole to be edited.
const maxEditSize = 64 << 20

// A resolved is where an absolute path leads once the symbolic links
// along it are followed: an open directory and the name of the final
// entry in it (which may not exist). Reads and writes through at() act on
// the opened directory whatever is renamed meanwhile, so that a directory
// swapped for a link between the check and the write cannot redirect it.
type resolved struct {
	dir  *os.File // opened with O_PATH
	path string   // the resolved path, for messages and watches
	base string
}

// at returns a path naming the entry in the opened directory.
func (r *resolved) at() string {
	return "/proc/self/fd/" + strconv.Itoa(int(r.dir.Fd())) + "/" + r.base
}

// close releases the directory.
func (r *resolved) close() { r.dir.Close() }

// resolveTrusted follows the absolute path p one component at a time,
// each directory opened relative to the previous one without following
// links, and follows only the symbolic links linkTrusted accepts. A
// missing directory along the path is an error; a missing final entry is
// not.
func resolveTrusted(p string) (*resolved, error) {
	if !filepath.IsAbs(p) {
		return nil, fmt.Errorf("path %q is not absolute", p)
	}
	const dirFlags = unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := unix.Open("/", dirFlags, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: "/", Err: err}
	}
	done, rest, links := "/", splitPath(p), 0
	enter := func(name, next string) error {
		nfd, err := unix.Openat(fd, name, dirFlags, 0)
		if err != nil {
			return &os.PathError{Op: "open", Path: next, Err: err}
		}
		unix.Close(fd)
		fd, done = nfd, next
		return nil
	}
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		if c == "." {
			continue
		}
		if c == ".." {
			if err := enter("..", filepath.Dir(done)); err != nil {
				unix.Close(fd)
				return nil, err
			}
			continue
		}
		next := filepath.Join(done, c)
		var st unix.Stat_t
		err := unix.Fstatat(fd, c, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			err = followLink(fd, c, next, st.Uid, &links, &rest)
			if err == nil && len(rest) > 0 && rest[0] == "/" {
				rest = rest[1:]
				err = enter("/", "/")
			}
			if err != nil {
				unix.Close(fd)
				return nil, err
			}
			continue
		}
		if len(rest) == 0 && (err == nil || err == unix.ENOENT) {
			return &resolved{dir: os.NewFile(uintptr(fd), done), path: next, base: c}, nil
		}
		if err == nil {
			err = enter(c, next)
		} else {
			err = &os.PathError{Op: "lstat", Path: next, Err: err}
		}
		if err != nil {
			unix.Close(fd)
			return nil, err
		}
	}
	unix.Close(fd)
	return nil, fmt.Errorf("%s names a directory", p)
}

// followLink checks the link name (at path next) in the directory fd,
// owned by uid, and puts its target's components in front of rest (after
// a "/" when the target is absolute).
func followLink(fd int, name, next string, uid uint32, links *int, rest *[]string) error {
	if *links++; *links > maxLinkHops {
		return fmt.Errorf("%s: too many levels of symbolic links", next)
	}
	var dir unix.Stat_t
	if err := unix.Fstat(fd, &dir); err != nil {
		return &os.PathError{Op: "stat", Path: filepath.Dir(next), Err: err}
	}
	if err := linkTrusted(next, uid, &dir); err != nil {
		return err
	}
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(fd, name, buf)
	if err != nil {
		return &os.PathError{Op: "readlink", Path: next, Err: err}
	}
	if n == len(buf) {
		return fmt.Errorf("%s: link target too long", next)
	}
	target := string(buf[:n])
	comps := splitPath(target)
	if filepath.IsAbs(target) {
		comps = append([]string{"/"}, comps...)
	}
	*rest = append(comps, *rest...)
	return nil
}

// splitPath returns the non-empty components of p.
func splitPath(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

// expandHome expands a leading "~/" (the engine's user's home) or
// "~name/" (that user's home) in p. Other paths are returned unchanged.
func expandHome(p string) (string, error) {
	if !strings.HasPrefix(p, "~") {
		return p, nil
	}
	name, rest, _ := strings.Cut(p[1:], "/")
	var u *user.User
	var err error
	if name == "" {
		u, err = user.Current()
	} else {
		u, err = account.Lookup(name)
	}
	if err != nil {
		return "", fmt.Errorf("expanding %s: %v", p, err)
	}
	if !filepath.IsAbs(u.HomeDir) {
		return "", fmt.Errorf("expanding %s: user %s has no absolute home directory", p, u.Username)
	}
	return filepath.Join(u.HomeDir, rest), nil
}

// validEditPath checks a path parameter of an editing kind: absolute (or,
// when tilde is set, starting with "~"), clean, and not a directory.
func validEditPath(param, p string, tilde bool) error {
	switch {
	case p == "":
		return fmt.Errorf("%s is empty", param)
	case strings.HasSuffix(p, "/"):
		return fmt.Errorf("%s %q names a directory", param, p)
	case tilde && strings.HasPrefix(p, "~"):
		return nil
	case !filepath.IsAbs(p):
		return fmt.Errorf("%s %q must be absolute", param, p)
	case filepath.Clean(p) != p:
		return fmt.Errorf("%s %q is not clean (want %q)", param, p, filepath.Clean(p))
	}
	return nil
}

// sweepBeside removes from the directory of path (when it is absolute)
// the temporary files of atomic writes that a killed process left, once
// per directory and process, as the file kind does.
func sweepBeside(path string) {
	if filepath.IsAbs(path) {
		sweepStaleTemps(filepath.Dir(path), time.Now())
	}
}

// newFileAttrs say how a missing file is created: with these permission
// bits, and with this owner and group (-1: the engine's). With always, an
// existing file that is rewritten gets them too (an owner or group of -1
// then keeps the file's own).
type newFileAttrs struct {
	perm     uint32
	uid, gid int
	always   bool
}

// A fileEdit computes the wanted content of a file from its current
// content (nil, exists false, for a missing file). For a missing file,
// returning nil means there is nothing to create.
type fileEdit func(old []byte, exists bool) ([]byte, error)

// An edited is what editFile found: whether the file's content differs
// from the wanted one, and both contents (old nil: no file).
type edited struct {
	changed  bool
	path     string // the resolved path
	old, new []byte
}

// change returns the change, described by what, for reportChanges.
func (e edited) change(what string) engine.Change {
	return textChange(what, e.path, e.old, e.new)
}

// editFile applies edit to the file at path (resolved through trusted
// links) and reports whether the content differs from the wanted one; when
// it does and apply is set, the file is replaced atomically (temporary
// file and rename) keeping its mode and owner. A missing file is passed to
// edit only when create says how to make it; otherwise it is an error.
//
// Edits of one file by resources of this process are serialised, so two
// resources editing one file cannot lose each other's change. A file that
// changes while it is edited (another program writing it in place, whose
// first event woke us between its truncation and its write) is read again
// before it is replaced, a few times at most.
func editFile(ctx context.Context, path string, apply bool, create *newFileAttrs, edit fileEdit) (edited, error) {
	r, err := resolveTrusted(path)
	if err != nil {
		return edited{}, missingDir(path, err)
	}
	defer r.close()
	defer lockPath(r.path)()
	for try := 0; ; try++ {
		old, fi, err := readEditable(r)
		if err != nil {
			return edited{}, err
		}
		if fi == nil && create == nil {
			return edited{}, fmt.Errorf("%s does not exist", path)
		}
		want, err := edit(old, fi != nil)
		if err != nil {
			return edited{}, err
		}
		if fi == nil && want == nil || fi != nil && bytes.Equal(old, want) {
			return edited{}, nil
		}
		if fi != nil && old == nil {
			old = []byte{} // an empty file, not a missing one
		}
		e := edited{changed: true, path: r.path, old: old, new: want}
		if !apply {
			return e, nil
		}
		if try < 3 && changedSince(r, fi) {
			continue
		}
		perm, uid, gid := keptAttrs(fi, create)
		if err := writeAtomic(ctx, r.at(), want, perm, uid, gid); err != nil {
			return e, fmt.Errorf("writing %s: %v", r.path, bareErr(err))
		}
		return e, nil
	}
}

// editLocks maps each edited file (its resolved path) to the mutex that
// serialises its edits within the process.
var editLocks sync.Map

// lockPath locks the edits of the file at p and returns the unlock.
func lockPath(p string) func() {
	m, _ := editLocks.LoadOrStore(p, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// changedSince reports whether the file r names is no longer the one fi
// described when it was read (nil: missing): another file, or another
// size or modification time.
func changedSince(r *resolved, fi os.FileInfo) bool {
	now, err := os.Lstat(r.at())
	if err != nil || fi == nil {
		return (err == nil) != (fi == nil)
	}
	return !os.SameFile(fi, now) || fi.Size() != now.Size() || !fi.ModTime().Equal(now.ModTime())
}

// bareErr returns the system error inside a path or link error, whose
// paths name the /proc/self/fd entry rather than the file, or err itself.
func bareErr(err error) error {
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// missingDir rewords the error of resolving path when a directory along
// it is missing.
func missingDir(path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) && errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: directory %s does not exist", path, pe.Path)
	}
	return err
}

// keptAttrs returns the permission bits, owner and group a replacement of
// the file described by fi gets: its own (nil, or create.always: those of
// create). An owner
// or group equal to the engine's is returned as -1 (nothing to change).
func keptAttrs(fi os.FileInfo, create *newFileAttrs) (uint32, int, int) {
	var perm uint32
	var uid, gid int
	switch {
	case fi == nil:
		perm, uid, gid = create.perm, create.uid, create.gid
	case create != nil && create.always:
		perm, uid, gid = statBits(fi)
		perm = create.perm
		if create.uid >= 0 {
			uid = create.uid
		}
		if create.gid >= 0 {
			gid = create.gid
		}
	default:
		perm, uid, gid = statBits(fi)
	}
	if uid == os.Geteuid() {
		uid = -1
	}
	if gid == os.Getegid() {
		gid = -1
	}
	return perm, uid, gid
}

// readEditable reads the regular file r names, without following a
// symbolic link there (resolveTrusted followed the trusted ones; one that
// appeared since is refused). A missing file returns (nil, nil, nil).
func readEditable(r *resolved) ([]byte, os.FileInfo, error) {
	f, err := os.OpenFile(r.at(), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, nil, fmt.Errorf("%s became a symbolic link", r.path)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("opening %s: %v", r.path, bareErr(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file", r.path)
	}
	if fi.Size() > maxEditSize {
		return nil, nil, fmt.Errorf("%s is %d bytes, more than the %d an edit reads", r.path, fi.Size(), maxEditSize)
	}
	var buf bytes.Buffer
	buf.Grow(int(fi.Size()))
	if _, err := buf.ReadFrom(io.LimitReader(f, maxEditSize+1)); err != nil {
		return nil, nil, fmt.Errorf("reading %s: %v", r.path, bareErr(err))
	}
	if buf.Len() > maxEditSize {
		return nil, nil, fmt.Errorf("%s grew past the %d bytes an edit reads", r.path, maxEditSize)
	}
	return buf.Bytes(), fi, nil
}

// watchFiles subscribes to each path (and, for one that leads elsewhere
// through trusted symbolic links when the watch starts, to where it
// leads), calls Running and forwards the events until ctx is done.
func watchFiles(ctx context.Context, init *engine.Init, paths []string, opts fswatch.Options) error {
	w, err := fswatch.Default()
	if err != nil {
		return err
	}
	var subs []*fswatch.Sub
	defer func() {
		for _, s := range subs {
			s.Close()
		}
	}()
	for _, p := range paths {
		list := []string{p}
		if r, err := resolveTrusted(p); err == nil {
			if r.path != p {
				list = append(list, r.path)
			}
			r.close()
		}
		for _, q := range list {
			s, err := w.Subscribe(q, opts)
			if err != nil {
				return err
			}
			subs = append(subs, s)
		}
	}
	init.Running()
	if len(subs) == 0 {
		<-ctx.Done()
		return nil
	}
	return forwardEvents(ctx, subs, init.Event)
}

// watchEditPath follows the file at path, which may start with "~": then
// it also follows the user database, and moves to the new path when a home
// directory changes or the user appears (a user made in the same run).
func watchEditPath(ctx context.Context, init *engine.Init, path string) error {
	if !strings.HasPrefix(path, "~") {
		return watchFiles(ctx, init, []string{path}, fswatch.Options{})
	}
	w, err := fswatch.Default()
	if err != nil {
		return err
	}
	passwd, err := w.Subscribe("/etc/passwd", fswatch.Options{})
	if err != nil {
		return err
	}
	defer passwd.Close()
	var cur string
	var sub *fswatch.Sub
	defer func() {
		if sub != nil {
			sub.Close()
		}
	}()
	follow := func() error {
		p, err := expandHome(path)
		if err != nil || p == cur {
			return nil // the user is not there (yet): /etc/passwd tells
		}
		if sub != nil {
			sub.Close()
			sub = nil
		}
		cur = p
		sub, err = w.Subscribe(p, fswatch.Options{})
		return err
	}
	if err := follow(); err != nil {
		return err
	}
	init.Running()
	for {
		var c <-chan struct{}
		if sub != nil {
			c = sub.C
		}
		select {
		case <-c:
		case <-passwd.C:
			if err := follow(); err != nil {
				return err
			}
		case <-ctx.Done():
			return nil
		}
		init.Event()
	}
}

// fileAutoEdges returns the automatic edges of a kind that edits or
// writes the file at path: the file resource of path itself and the
// nearest file resource of a directory above it, plus extra.
func fileAutoEdges(path string, extra ...engine.ResUID) engine.AutoEdge {
	if !filepath.IsAbs(path) {
		return &onceAutoEdge{uids: extra}
	}
	return newParentAutoEdge(append([]engine.ResUID{newFileUID(path, false)}, extra...), filepath.Clean(path))
}
