package bounded

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestBounded(t *testing.T) {
	const max = 1 << 20
	var tl *TooLarge
	if _, err := readAll(zeros{}, "-", max); !errors.As(err, &tl) || err.Error() != "-: larger than 1 MiB, the largest input read whole" {
		t.Errorf("an endless stream: %v", err)
	}
	if b, err := readAll(io.LimitReader(zeros{}, max), "-", max); err != nil || len(b) != max {
		t.Errorf("a stream of the limit's size: %d bytes, %v", len(b), err)
	}
	if _, err := readFile("/dev/zero", max); !errors.As(err, &tl) || tl.Name != "/dev/zero" {
		t.Errorf("/dev/zero: %v", err)
	}
	// A sparse file as large as Max and one byte more: refused from its
	// size, nothing read.
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	fh, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	fh.Truncate(Max + 1)
	fh.Close()
	if _, err := ReadFile(big); !errors.As(err, &tl) || !strings.Contains(err.Error(), "larger than 256 MiB") {
		t.Errorf("a file over Max: %v", err)
	}
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("x := 1\n"), 0o644)
	if b, err := ReadFile(small); err != nil || string(b) != "x := 1\n" {
		t.Errorf("a small file: %q, %v", b, err)
	}
	if _, err := ReadFile(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}
