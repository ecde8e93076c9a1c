package resources

import (
	"bufio"
	"context"
	"crypto/sha256"
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

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// This file holds what tar and gzip share: the record of what an output
// was made from, kept in the resource's vardir, and the atomic writing of
// an output computed as a stream.

// Files of the record in the resource's vardir.
const (
	recordInput  = "input.sha256"  // sha256 of what the output was made from
	recordOutput = "output.sha256" // sha256 of the output as written
)

// An outputRecord remembers, in a vardir, what an output file was made
// from and what it held, so that an output is rebuilt only when its inputs
// or the output itself changed.
type outputRecord struct {
	dir string
}

// newOutputRecord finds the vardir of the resource.
func newOutputRecord(init *engine.Init) (*outputRecord, error) {
	if init == nil {
		return nil, fmt.Errorf("no vardir to record the output in")
	}
	d, err := init.VarDir("")
	if errors.Is(err, engine.ErrNoVarDir) {
		return nil, fmt.Errorf("no vardir to record the output in")
	}
	if err != nil {
		return nil, err
	}
	return &outputRecord{dir: d}, nil
}

// load returns the recorded input and output sums ("" when missing).
func (o *outputRecord) load() (in, out string) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(o.dir, name))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	return read(recordInput), read(recordOutput)
}

// save records the input and output sums.
func (o *outputRecord) save(ctx context.Context, in, out string) error {
	// The output sum first: a crash in between leaves a record whose
	// input sum is stale, which only costs a rebuild.
	if err := writeAtomic(ctx, filepath.Join(o.dir, recordOutput), []byte(out+"\n"), 0o600, -1, -1); err != nil {
		return err
	}
	return writeAtomic(ctx, filepath.Join(o.dir, recordInput), []byte(in+"\n"), 0o600, -1, -1)
}

// upToDate reports whether the output at path is the one recorded for the
// input sum in: the record matches and the file still holds what was
// written.
func (o *outputRecord) upToDate(ctx context.Context, path, in string) (bool, error) {
	recIn, recOut := o.load()
	if recIn == "" || recIn != in {
		return false, nil
	}
	have, err := hashOutput(ctx, path)
	if err != nil {
		return false, err
	}
	return have == recOut, nil
}

// hashOutput returns the sha256 of the regular file at path (reached
// through trusted links), or "" when it does not exist.
func hashOutput(ctx context.Context, path string) (string, error) {
	r, err := resolveTrusted(path)
	if err != nil {
		return "", missingDir(path, err)
	}
	defer r.close()
	f, err := os.OpenFile(r.at(), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("opening %s: %v", r.path, bareErr(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", r.path)
	}
	h := sha256.New()
	if err := copyCtx(ctx, h, f); err != nil {
		return "", fmt.Errorf("reading %s: %v", r.path, bareErr(err))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// copyCtx copies src to dst, giving up when ctx is done.
func copyCtx(ctx context.Context, dst io.Writer, src io.Reader) error {
	bp := readBufs.Get().(*[]byte)
	defer readBufs.Put(bp)
	buf := *bp
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
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
}

// writeOutput replaces the file at path (reached through trusted links)
// with what write produces, atomically: the data goes to a temporary file
// in the same directory, which is synced, given the mode and owner of the
// file it replaces (a new file: mode 0600, the engine's user) and renamed
// over it. A failed or cancelled write removes the temporary file and
// leaves path as it was, so a crash never leaves a partial output. It
// returns the sha256 of what was written.
func writeOutput(ctx context.Context, path string, write func(w io.Writer) error) (string, error) {
	r, err := resolveTrusted(path)
	if err != nil {
		return "", missingDir(path, err)
	}
	defer r.close()
	var old os.FileInfo
	if fi, err := os.Lstat(r.at()); err == nil {
		if !fi.Mode().IsRegular() {
			return "", fmt.Errorf("%s is not a regular file", r.path)
		}
		old = fi
	}
	perm, uid, gid := keptAttrs(old, &newFileAttrs{perm: 0o600, uid: -1, gid: -1})
	base := r.base
	if len(base) > 64 {
		base = base[:64]
	}
	fd, tmp, _, err := createTemp(filepath.Dir(r.at()), "."+base+tmpMarker, 0o600)
	if err != nil {
		return "", fmt.Errorf("creating a temporary file beside %s: %v", r.path, bareErr(err))
	}
	defer keepLock(fd)() // until the rename
	f := os.NewFile(uintptr(fd), tmp)
	sum, err := fillOutput(ctx, f, write, perm, uid, gid)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = os.Rename(tmp, r.at())
	}
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("writing %s: %v", r.path, bareErr(err))
	}
	return sum, nil
}

// fillOutput writes the output to f through a hash, syncs it and sets its
// mode and owner.
func fillOutput(ctx context.Context, f *os.File, write func(w io.Writer) error, perm uint32, uid, gid int) (string, error) {
	h := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(f, h), 64<<10)
	if err := write(&ctxWriter{ctx: ctx, w: bw}); err != nil {
		return "", err
	}
	if err := bw.Flush(); err != nil {
		return "", err
	}
	if err := syscall.Fchmod(int(f.Fd()), perm); err != nil {
		return "", &os.PathError{Op: "chmod", Path: f.Name(), Err: err}
	}
	if uid >= 0 || gid >= 0 {
		if err := f.Chown(uid, gid); err != nil {
			return "", err
		}
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// A ctxWriter stops writing once its context is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c *ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// sumWriter hashes the lines of a record of inputs.
type sumWriter struct{ h hash.Hash }

func newSumWriter() *sumWriter { return &sumWriter{h: sha256.New()} }

func (s *sumWriter) line(format string, v ...any) {
	fmt.Fprintf(s.h, format+"\n", v...)
}

func (s *sumWriter) sum() string { return hex.EncodeToString(s.h.Sum(nil)) }

// openInput opens a regular file to read it into an output, through
// trusted links only (a link another user made could put a file they may
// not read into the output).
func openInput(path string) (*os.File, os.FileInfo, error) {
	r, err := resolveTrusted(path)
	if err != nil {
		return nil, nil, err
	}
	defer r.close()
	f, err := os.OpenFile(r.at(), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("input %s: %v", path, bareErr(err))
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("input %s is not a regular file", path)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}
