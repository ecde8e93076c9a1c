package resources

import (
	"bufio"
	"crypto/md5"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// bucketDigests are the digests a file bucket may be laid out by: the
// values of Puppet's digest_algorithm.
var bucketDigests = map[string]func() hash.Hash{
	"md5":    md5.New,
	"sha224": sha256.New224,
	"sha256": sha256.New,
	"sha384": sha512.New384,
	"sha512": sha512.New,
}

// validateBackup checks backup, backup_digest and backup_puppetconf.
func (obj *FileRes) validateBackup() error {
	if obj.rare().Backup != BackupPuppet && obj.rare().BackupPuppetConf != "" {
		return fmt.Errorf("backup_puppetconf needs backup %q", BackupPuppet)
	}
	switch obj.rare().Backup {
	case "":
		if obj.rare().BackupDigest != "" {
			return fmt.Errorf("backup_digest needs backup")
		}
		return nil
	case BackupPuppet:
		if obj.rare().BackupDigest != "" {
			return fmt.Errorf("backup_digest cannot be combined with backup %q, which uses Puppet's digest_algorithm", BackupPuppet)
		}
		if c := obj.rare().BackupPuppetConf; c != "" && (!filepath.IsAbs(c) || filepath.Clean(c) != c || strings.IndexByte(c, 0) >= 0) {
			return fmt.Errorf("backup_puppetconf %q must be a clean absolute path", c)
		}
	default:
		if !filepath.IsAbs(obj.rare().Backup) || filepath.Clean(obj.rare().Backup) != obj.rare().Backup {
			return fmt.Errorf("backup %q must be a clean absolute directory or %q", obj.rare().Backup, BackupPuppet)
		}
		if strings.IndexByte(obj.rare().Backup, 0) >= 0 {
			return fmt.Errorf("backup %q holds a NUL byte", obj.rare().Backup)
		}
		if _, ok := bucketDigests[obj.backupDigest()]; !ok {
			return fmt.Errorf("backup_digest %q must be md5, sha224, sha256, sha384 or sha512", obj.rare().BackupDigest)
		}
	}
	if obj.rare().Symlink {
		return fmt.Errorf("backup cannot be combined with symlink")
	}
	return nil
}

func (obj *FileRes) backupDigest() string {
	if obj.rare().BackupDigest == "" {
		return "sha256"
	}
	return obj.rare().BackupDigest
}

// backupOld stores the content of the entry c checked in the file bucket,
// before it is replaced or removed, as Puppet's file type does with a
// local filebucket: a regular file at the managed path is stored; a
// symbolic link (or a file reached through one) is not; a directory is
// stored only when nothing below it would be lost otherwise (with
// recurse, Puppet stores nothing either), else the change is refused.
func (obj *FileRes) backupOld(c *fileCheck) error {
	if obj.rare().Backup == "" || c.fi == nil || c.path != obj.cleanPath() {
		return nil
	}
	switch {
	case c.fi.Mode().IsRegular():
		dir, digest, err := obj.bucket(c.ctx)
		if err != nil {
			return fmt.Errorf("backing up %s: %w", c.path, err)
		}
		sum, err := bucketSave(dir, digest, c.path)
		if err != nil {
			return fmt.Errorf("backing up %s: %w", c.path, err)
		}
		c.change(fmt.Sprintf("stored the old content in the file bucket %s with sum %s", dir, sum))
	case c.fi.IsDir() && !obj.rare().Recurse:
		return fmt.Errorf("refusing to remove the directory %s: backup stores files, not directory trees", c.path)
	}
	return nil
}

// bucketSave stores the content of the regular file at path in the
// Puppet file bucket dir, laid out as Puppet's local bucket is (so that
// `puppet filebucket -l` lists and restores it): the content in
// <d0>/<d1>/.../<d7>/<digest>/contents (mode 0440), the original paths,
// one a line, in paths beside it (0640), the directories made group-
// accessible as Puppet makes them (0770), the bucket itself 0750 when it
// has to be created. The bucket must be a directory of this user that no
// one else may write to. It returns the digest.
func bucketSave(dir, digest, path string) (string, error) {
	if err := bucketRoot(dir); err != nil {
		return "", err
	}
	tmp, sum, err := bucketCopy(dir, digest, path)
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp) // gone already once renamed
	sub := dir
	for _, d := range append(strings.Split(sum[:8], ""), sum) {
		sub = filepath.Join(sub, d)
		if err := os.Mkdir(sub, 0o770); err == nil {
			if err := os.Chmod(sub, 0o770); err != nil {
				return "", err
			}
		} else if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	pf, err := os.OpenFile(filepath.Join(sub, "paths"), os.O_RDWR|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW, 0o640)
	if err != nil {
		return "", err
	}
	defer pf.Close()
	if err := syscall.Flock(int(pf.Fd()), syscall.LOCK_EX); err != nil {
		return "", &os.PathError{Op: "flock", Path: pf.Name(), Err: err}
	}
	listed, err := bucketHasPath(pf, path)
	if err != nil {
		return "", err
	}
	contents := filepath.Join(sub, "contents")
	if _, err := os.Lstat(contents); err == nil && listed {
		return sum, nil // stored before, for this path: Puppet leaves it be
	}
	if err := bucketContents(contents, tmp, digest, sum); err != nil || listed {
		return sum, err
	}
	_, err = pf.WriteString(path + "\n")
	return sum, err
}

// bucketRoot checks the bucket directory, or creates it (0750) when it
// is missing and its parent exists.
func bucketRoot(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(dir, 0o750); err != nil {
			return fmt.Errorf("file bucket: %w", err)
		}
		if err := os.Chmod(dir, 0o750); err != nil {
			return err
		}
		fi, err = os.Lstat(dir)
	}
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("file bucket %s is not a directory", dir)
	case ok && int(st.Uid) != os.Geteuid():
		return fmt.Errorf("file bucket %s belongs to uid %d, not to this user (%d)", dir, st.Uid, os.Geteuid())
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("file bucket %s may be written by others (mode %04o)", dir, fi.Mode().Perm())
	}
	return nil
}

// bucketCopy copies the regular file at path (never through a symbolic
// link) to a temporary file in the bucket and returns its name and the
// hex digest of what it copied.
func bucketCopy(dir, digest, path string) (string, string, error) {
	fd, err := openNoFollow(path, syscall.O_RDONLY)
	if err != nil {
		return "", "", err
	}
	src := os.NewFile(uintptr(fd), path)
	defer src.Close()
	if fi, err := src.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", "", fmt.Errorf("%s is not a regular file any more", path)
	}
	tmp, err := os.CreateTemp(dir, "."+tmpMarker+"bucket-")
	if err != nil {
		return "", "", err
	}
	h := bucketDigests[digest]()
	_, err = io.Copy(io.MultiWriter(tmp, h), src)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", "", err
	}
	return tmp.Name(), hex.EncodeToString(h.Sum(nil)), nil
}

// bucketContents makes tmp the bucket's contents file for sum, as
// Puppet does: an identical stored copy is only touched; a different one
// with the same digest is a collision and an error; a corrupted one
// (whose digest is not sum) is replaced.
func bucketContents(contents, tmp, digest, sum string) error {
	old, err := fileDigest(contents, digest)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case old == sum && sameFiles(contents, tmp):
		t := time.Now()
		return os.Chtimes(contents, t, t)
	case old == sum:
		return fmt.Errorf("the stored copy %s has the same %s sum and a different content: check it and remove it if it is wrong", contents, digest)
	}
	if err := os.Chmod(tmp, 0o440); err != nil {
		return err
	}
	return os.Rename(tmp, contents)
}

// fileDigest returns the hex digest of the file at path.
func fileDigest(path, digest string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := bucketDigests[digest]()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sameFiles reports whether the files a and b hold the same bytes.
func sameFiles(a, b string) bool {
	fa, err := os.Open(a)
	if err != nil {
		return false
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false
	}
	defer fb.Close()
	ra, rb := bufio.NewReader(fa), bufio.NewReader(fb)
	for {
		x, ea := ra.ReadByte()
		y, eb := rb.ReadByte()
		if ea != nil || eb != nil {
			return ea == io.EOF && eb == io.EOF
		}
		if x != y {
			return false
		}
	}
}

// bucketHasPath reports whether a line of the paths file pf names path.
func bucketHasPath(pf *os.File, path string) (bool, error) {
	if _, err := pf.Seek(0, io.SeekStart); err != nil {
		return false, err
	}
	sc := bufio.NewScanner(pf)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		if sc.Text() == path {
			return true, nil
		}
	}
	return false, sc.Err()
}
