package resources

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/mgmtpipe/mgmt/internal/fswatch"
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("gzip", func() engine.Res { return &GzipRes{Level: gzip.DefaultCompression} })
}

// GzipRes keeps a gzip-compressed copy of a file, or of given content, up
// to date. See the package documentation.
type GzipRes struct {
	traits.Base
	traits.Edgeable

	init *engine.Init
	rec  *outputRecord

	// Path is the compressed file; it defaults to the resource name (a
	// collected one must equal it).
	Path string `lang:"path" yaml:"path" collect:"name"`
	// Input is the file to compress; without it, Content is compressed.
	// It reads the collecting host's files: an exporter may not set it.
	Input *string `lang:"input" yaml:"input" collect:"local"`
	// Content is the data to compress when there is no input.
	Content string `lang:"content" yaml:"content"`
	// Level is the compression level: -2 (Huffman only), -1 (default), 0
	// (none) to 9 (best).
	Level int `lang:"level" yaml:"level"`
}

// Consts names the levels: $const.res.gzip.level.best_compression and
// the others.
func (g *GzipRes) Consts() map[string]map[string]any {
	return map[string]map[string]any{"level": {
		"no_compression":      int64(gzip.NoCompression),
		"best_speed":          int64(gzip.BestSpeed),
		"best_compression":    int64(gzip.BestCompression),
		"default_compression": int64(gzip.DefaultCompression),
		"huffman_only":        int64(gzip.HuffmanOnly),
	}}
}

// Default returns a gzip resource with its defaults.
func (g *GzipRes) Default() engine.Res { return &GzipRes{Level: gzip.DefaultCompression} }

func (g *GzipRes) path() string {
	if g.Path != "" {
		return g.Path
	}
	return g.Name()
}

// Validate checks the paths, the source of the data and the level.
func (g *GzipRes) Validate() error {
	if err := validEditPath("path", g.path(), false); err != nil {
		return err
	}
	if g.Input != nil {
		if err := validEditPath("input", *g.Input, false); err != nil {
			return err
		}
		if *g.Input == g.path() {
			return fmt.Errorf("input and path are both %s", g.path())
		}
		if g.Content != "" {
			return fmt.Errorf("input and content cannot both be set")
		}
	}
	if g.Level < gzip.HuffmanOnly || g.Level > gzip.BestCompression {
		return fmt.Errorf("level %d must be between -2 and 9", g.Level)
	}
	return nil
}

// Init finds the vardir that records what the output was made from.
func (g *GzipRes) Init(init *engine.Init) error {
	g.init = init
	sweepBeside(g.path())
	rec, err := newOutputRecord(init)
	g.rec = rec
	return err
}

// Cleanup does nothing.
func (g *GzipRes) Cleanup() error { return nil }

// Watch follows the output and the input.
func (g *GzipRes) Watch(ctx context.Context) error {
	paths := []string{g.path()}
	if g.Input != nil {
		paths = append(paths, *g.Input)
	}
	return watchFiles(ctx, g.init, paths, fswatch.Options{})
}

// source opens the data to compress.
func (g *GzipRes) source() (io.ReadCloser, error) {
	if g.Input == nil {
		return io.NopCloser(strings.NewReader(g.Content)), nil
	}
	f, _, err := openInput(*g.Input)
	return f, err
}

// inputSum returns the sha256 of the level and the data to compress.
func (g *GzipRes) inputSum(ctx context.Context, data io.Reader) (string, error) {
	h := sha256.New()
	if err := copyCtx(ctx, h, data); err != nil {
		return "", err
	}
	return g.record(h.Sum(nil)), nil
}

// record returns the input sum of the level and the data of sha256 sum.
func (g *GzipRes) record(sum []byte) string {
	rec := newSumWriter()
	rec.line("gzip level %d %s", g.Level, hex.EncodeToString(sum))
	return rec.sum()
}

// CheckApply compresses the data again when it, or the level, differs
// from what the output was made from, or when the output was changed or
// removed.
func (g *GzipRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	src, err := g.source()
	if err != nil {
		return false, err
	}
	in, err := g.inputSum(ctx, src)
	src.Close()
	if err != nil {
		return false, err
	}
	ok, err := g.rec.upToDate(ctx, g.path(), in)
	if err != nil || ok {
		return ok, err
	}
	if !apply {
		return false, nil
	}
	out, err := writeOutput(ctx, g.path(), func(w io.Writer) error {
		src, err := g.source()
		if err != nil {
			return err
		}
		defer src.Close()
		// Hash what is compressed, should the input change meanwhile.
		h := sha256.New()
		zw, err := gzip.NewWriterLevel(w, g.Level)
		if err != nil {
			return err
		}
		if err := copyCtx(ctx, io.MultiWriter(zw, h), src); err != nil {
			return err
		}
		in = g.record(h.Sum(nil))
		return zw.Close()
	})
	if err != nil {
		return false, err
	}
	if err := g.rec.save(ctx, in, out); err != nil {
		return false, err
	}
	if g.init != nil {
		g.init.Logf("wrote %s", g.path())
	}
	return false, nil
}

// UIDs returns the resource's UID and that of a file resource of its
// path, so that what reads the output waits for it.
func (g *GzipRes) UIDs() []engine.ResUID {
	return []engine.ResUID{&engine.BaseUID{Kind: g.Kind(), Name: g.Name()}, newFileUID(g.path(), false)}
}

// AutoEdges makes the output wait for the file resources of its input, of
// itself and of the nearest directory above it.
func (g *GzipRes) AutoEdges() (engine.AutoEdge, error) {
	var extra []engine.ResUID
	if g.Input != nil {
		extra = append(extra, newFileUID(*g.Input, false))
	}
	return fileAutoEdges(g.path(), extra...), nil
}

// Cmp compares two gzip resources.
func (g *GzipRes) Cmp(r engine.Res) error {
	return cmpParams(g, r)
}
