package resources

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mgmtpipe/mgmt/internal/fswatch"
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("tar", func() engine.Res { return &TarRes{} })
}

// TarRes keeps a tar archive of local files and directories up to date.
// See the package documentation.
type TarRes struct {
	traits.Base
	traits.Edgeable

	init *engine.Init
	rec  *outputRecord

	// Path is the archive; it defaults to the resource name (a collected
	// one must equal it).
	Path string `lang:"path" yaml:"path" collect:"name"`
	// Inputs are absolute paths of files and directories; a directory
	// ending in "/" puts its contents at the top of the archive. They read
	// the collecting host's files: an exporter may not set them.
	Inputs []string `lang:"inputs" yaml:"inputs" collect:"local"`
	// Format is the header format: 0 (chosen per entry), 2 (USTAR), 4
	// (PAX) or 8 (GNU).
	Format int `lang:"format" yaml:"format"`
}

// Default returns a tar resource.
func (t *TarRes) Default() engine.Res { return &TarRes{} }

func (t *TarRes) path() string {
	if t.Path != "" {
		return t.Path
	}
	return t.Name()
}

// Consts names the formats: $const.res.tar.format.gnu and the others.
func (t *TarRes) Consts() map[string]map[string]any {
	return map[string]map[string]any{"format": {
		"unknown": int64(tar.FormatUnknown),
		"ustar":   int64(tar.FormatUSTAR),
		"pax":     int64(tar.FormatPAX),
		"gnu":     int64(tar.FormatGNU),
	}}
}

// Validate checks the paths and the format.
func (t *TarRes) Validate() error {
	if err := validEditPath("path", t.path(), false); err != nil {
		return err
	}
	switch tar.Format(t.Format) {
	case tar.FormatUnknown, tar.FormatUSTAR, tar.FormatPAX, tar.FormatGNU:
	default:
		return fmt.Errorf("format %d must be 0 (any), 2 (ustar), 4 (pax) or 8 (gnu)", t.Format)
	}
	for _, in := range t.Inputs {
		c := filepath.Clean(in)
		if !filepath.IsAbs(in) || c != strings.TrimSuffix(in, "/") && in != "/" {
			return fmt.Errorf("input %q must be an absolute, clean path", in)
		}
		if c == t.path() || strings.HasPrefix(t.path(), strings.TrimSuffix(c, "/")+"/") {
			return fmt.Errorf("the archive %s lies in its input %s", t.path(), in)
		}
	}
	return nil
}

// Init finds the vardir that records what the archive was made from.
func (t *TarRes) Init(init *engine.Init) error {
	t.init = init
	sweepBeside(t.path())
	rec, err := newOutputRecord(init)
	t.rec = rec
	return err
}

// Cleanup does nothing.
func (t *TarRes) Cleanup() error { return nil }

// Watch follows the archive and every input, at any depth.
func (t *TarRes) Watch(ctx context.Context) error {
	paths := []string{t.path()}
	for _, in := range t.Inputs {
		paths = append(paths, filepath.Clean(in))
	}
	return watchFiles(ctx, t.init, paths, fswatch.Options{Contents: true, Recursive: true})
}

// CheckApply rebuilds the archive when its inputs differ from those it was
// made from, or when it was changed or removed.
func (t *TarRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	in, err := t.walk(ctx, nil)
	if err != nil {
		return false, err
	}
	ok, err := t.rec.upToDate(ctx, t.path(), in)
	if err != nil || ok {
		return ok, err
	}
	if !apply {
		return false, nil
	}
	out, err := writeOutput(ctx, t.path(), func(w io.Writer) error {
		tw := tar.NewWriter(w)
		sum, err := t.walk(ctx, tw)
		if err != nil {
			return err
		}
		in = sum // what went in, should an input have changed meanwhile
		return tw.Close()
	})
	if err != nil {
		return false, err
	}
	if err := t.rec.save(ctx, in, out); err != nil {
		return false, err
	}
	if t.init != nil {
		t.init.Logf("wrote %s", t.path())
	}
	return false, nil
}

// walk goes through the inputs in order, writing each entry to tw (when
// it is not nil), and returns the sha256 of a record of every entry: its
// header fields and the sha256 of its content.
func (t *TarRes) walk(ctx context.Context, tw *tar.Writer) (string, error) {
	rec := newSumWriter()
	rec.line("tar format %d", t.Format)
	seen := map[string]string{}
	add := func(name, p string, fi os.FileInfo) error {
		if prev, dup := seen[name]; dup {
			return fmt.Errorf("%s and %s would both be %s in the archive", prev, p, name)
		}
		seen[name] = p
		return t.entry(ctx, tw, rec, name, p, fi)
	}
	for _, in := range t.Inputs {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if err := t.input(in, add); err != nil {
			return "", err
		}
	}
	return rec.sum(), nil
}

// input adds one input: a file under its base name, or a directory's tree
// (under its base name, or at the top with a trailing slash).
func (t *TarRes) input(in string, add func(name, p string, fi os.FileInfo) error) error {
	r, err := resolveTrusted(filepath.Clean(in))
	if err != nil {
		return fmt.Errorf("input %s: %v", in, err)
	}
	root := r.path
	r.close()
	fi, err := os.Lstat(root)
	if err != nil {
		return fmt.Errorf("input %s: %v", in, bareErr(err))
	}
	contents := strings.HasSuffix(in, "/")
	if !fi.IsDir() {
		if contents {
			return fmt.Errorf("input %s is not a directory", in)
		}
		return add(filepath.Base(root), root, fi)
	}
	prefix := ""
	if !contents {
		prefix = filepath.Base(root) + "/"
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("input %s: %v", in, err)
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			if prefix == "" {
				return nil
			}
			rel = ""
		}
		fi, err := d.Info()
		if err != nil {
			return fmt.Errorf("input %s: %v", p, err)
		}
		name := prefix + filepath.ToSlash(rel)
		if fi.IsDir() && !strings.HasSuffix(name, "/") {
			name += "/"
		}
		return add(name, p, fi)
	})
}

// entry records (and, with tw, writes) one entry. Regular files,
// directories and symbolic links (stored as links) are archived; other
// kinds of files are refused.
func (t *TarRes) entry(ctx context.Context, tw *tar.Writer, rec *sumWriter, name, p string, fi os.FileInfo) error {
	link := ""
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		l, err := os.Readlink(p)
		if err != nil {
			return err
		}
		link = l
	case !fi.IsDir() && !fi.Mode().IsRegular():
		return fmt.Errorf("%s is a %s: only files, directories and symbolic links are archived", p, fi.Mode().Type())
	}
	hdr, err := tar.FileInfoHeader(fi, link)
	if err != nil {
		return err
	}
	hdr.Name = name
	hdr.Format = tar.Format(t.Format)
	hdr.AccessTime, hdr.ChangeTime = time.Time{}, time.Time{} // reading a file must not change the archive
	if hdr.Format != tar.FormatPAX {
		hdr.ModTime = hdr.ModTime.Truncate(time.Second) // what the header keeps
	}
	sum := ""
	if fi.Mode().IsRegular() {
		if sum, err = t.content(ctx, tw, hdr, p); err != nil {
			return err
		}
	} else if tw != nil {
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("%s: %v", p, err)
		}
	}
	rec.line("%q %c %o %d %d %q %q %d %q %d %s", hdr.Name, hdr.Typeflag, hdr.Mode, hdr.Uid, hdr.Gid,
		hdr.Uname, hdr.Gname, hdr.ModTime.UnixNano(), hdr.Linkname, hdr.Size, sum)
	return nil
}

// content hashes the regular file p (and, with tw, writes its header and
// content), checking that it still has the size of its header.
func (t *TarRes) content(ctx context.Context, tw *tar.Writer, hdr *tar.Header, p string) (string, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	var dst io.Writer = h
	if tw != nil {
		if err := tw.WriteHeader(hdr); err != nil {
			return "", fmt.Errorf("%s: %v", p, err)
		}
		dst = io.MultiWriter(h, tw)
	}
	n, err := io.CopyN(&ctxWriter{ctx: ctx, w: dst}, f, hdr.Size)
	if errors.Is(err, io.EOF) || err == nil && n == hdr.Size && moreData(f) {
		return "", fmt.Errorf("%s changed size while being read", p)
	}
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// moreData reports whether f has data left to read.
func moreData(f *os.File) bool {
	var b [1]byte
	n, _ := f.Read(b[:])
	return n > 0
}

// UIDs returns the archive's UID and that of a file resource of its
// path, so that what reads the archive (a gzip of it) waits for it.
func (t *TarRes) UIDs() []engine.ResUID {
	return []engine.ResUID{&engine.BaseUID{Kind: t.Kind(), Name: t.Name()}, newFileUID(t.path(), false)}
}

// AutoEdges makes the archive wait for the file resources of its inputs,
// of itself and of the nearest directory above it.
func (t *TarRes) AutoEdges() (engine.AutoEdge, error) {
	var extra []engine.ResUID
	for _, in := range t.Inputs {
		extra = append(extra, newFileUID(in, false))
	}
	return fileAutoEdges(t.path(), extra...), nil
}

// Cmp compares two tar resources.
func (t *TarRes) Cmp(r engine.Res) error {
	return cmpParams(t, r)
}
