package resources

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStatInfoAsLstat compares what lstatInto says of a regular file, a
// file with the setuid, setgid and sticky bits, a directory, a symbolic
// link, a FIFO, a socket, a character device and a missing path with what
// os.Lstat says.
func TestStatInfoAsLstat(t *testing.T) {
	k := pathsOfEveryKind(t)
	odd := filepath.Join(filepath.Dir(k.reg), "odd")
	if err := os.WriteFile(odd, []byte("some content\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(odd, 0o755|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky); err != nil {
		t.Fatal(err)
	}
	reg, sub, link, fifo, sock, dir := k.reg, k.sub, k.link, k.fifo, k.sock, filepath.Dir(k.reg)
	for _, p := range []string{reg, odd, "/", sub, link, fifo, sock, "/dev/null", filepath.Join(dir, "missing"), filepath.Join(reg, "below")} {
		want, werr := os.Lstat(p)
		var si statInfo
		err := lstatInto(p, &si)
		if (err == nil) != (werr == nil) {
			t.Fatalf("%s: error %v, os.Lstat's %v", p, err, werr)
		}
		if err != nil {
			var pe, wpe *fs.PathError
			if !errors.As(err, &pe) || !errors.As(werr, &wpe) || *pe != *wpe {
				t.Errorf("%s: error %#v, os.Lstat's %#v", p, err, werr)
			}
			continue
		}
		var got os.FileInfo = &si
		if got.Name() != want.Name() || got.Size() != want.Size() || got.Mode() != want.Mode() ||
			!got.ModTime().Equal(want.ModTime()) || got.IsDir() != want.IsDir() ||
			!reflect.DeepEqual(got.Sys(), want.Sys()) {
			t.Errorf("%s: %s %d %v %v %v, os.Lstat: %s %d %v %v %v", p,
				got.Name(), got.Size(), got.Mode(), got.ModTime(), got.IsDir(),
				want.Name(), want.Size(), want.Mode(), want.ModTime(), want.IsDir())
		}
	}
}

// TestFirstLookAsLstat: the first look of a check of a file whose content
// is managed, which opens the path, says of a regular file, a directory, a
// symbolic link, a FIFO (without waiting for a writer), a socket, a
// character device, a missing path and a path below a file what os.Lstat
// says, and keeps open the regular file alone.
func TestFirstLookAsLstat(t *testing.T) {
	k := pathsOfEveryKind(t)
	reg, sub, link, fifo, sock, dir := k.reg, k.sub, k.link, k.fifo, k.sock, filepath.Dir(k.reg)
	obj := &FileRes{State: FileStateExists, Content: strp("x\n")}
	if !obj.opensFirst() {
		t.Fatal("a file with content is not opened first")
	}
	for _, p := range []string{reg, sub, link, fifo, sock, "/dev/null", filepath.Join(dir, "missing"), filepath.Join(reg, "below")} {
		want, werr := os.Lstat(p)
		c := &fileCheck{path: p}
		err := obj.firstLook(c)
		kept := c.hasFD
		c.closeFD()
		if (err == nil) != (werr == nil) || err != nil && errors.Is(err, fs.ErrNotExist) != errors.Is(werr, fs.ErrNotExist) {
			t.Fatalf("%s: error %v, os.Lstat's %v", p, err, werr)
		}
		if err != nil {
			continue
		}
		var got os.FileInfo = &c.st
		if got.Name() != want.Name() || got.Size() != want.Size() || got.Mode() != want.Mode() ||
			!got.ModTime().Equal(want.ModTime()) || !reflect.DeepEqual(got.Sys(), want.Sys()) {
			t.Errorf("%s: %s %d %v %v, os.Lstat: %s %d %v %v", p,
				got.Name(), got.Size(), got.Mode(), got.ModTime(), want.Name(), want.Size(), want.Mode(), want.ModTime())
		}
		if kept != (p == reg) {
			t.Errorf("%s: kept open %v", p, kept)
		}
	}
}

// TestFileContentOnFIFO: a FIFO where a file's content is managed is
// refused as not a regular file, at once: the check opens no FIFO in a way
// that waits for a writer, nor reads it.
func TestFileContentOnFIFO(t *testing.T) {
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "f")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	f := newFile(t, h, p, &FileRes{State: "exists", Content: strp("x\n")})
	done := make(chan error, 1)
	go func() {
		_, err := f.CheckApply(context.Background(), true)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("CheckApply on a FIFO: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("CheckApply on a FIFO has not returned")
	}
}

// kindPaths are paths of every kind of file, in one temporary directory.
type kindPaths struct{ reg, sub, link, fifo, sock string }

// pathsOfEveryKind makes a regular file, a directory, a symbolic link to
// the file, a FIFO and a socket (bound until the test ends).
func pathsOfEveryKind(t *testing.T) kindPaths {
	t.Helper()
	dir := t.TempDir()
	k := kindPaths{reg: filepath.Join(dir, "reg"), sub: filepath.Join(dir, "sub"), link: filepath.Join(dir, "link"),
		fifo: filepath.Join(dir, "fifo"), sock: filepath.Join(dir, "sock")}
	if err := os.WriteFile(k.reg, []byte("some content\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(k.sub, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(k.reg, k.link); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(k.fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: k.sock}); err != nil {
		t.Fatal(err)
	}
	return k
}
