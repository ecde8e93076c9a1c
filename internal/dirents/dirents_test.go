package dirents

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestEach: every entry of a real directory, as Readdirnames lists them,
// names long and short among them, across several reads of the buffer.
func TestEach(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for i := range 3000 {
		name := fmt.Sprintf("f%d", i)
		if i%7 == 0 {
			name = fmt.Sprintf("%0200d", i) // a long name
		}
		if i%11 == 0 {
			name = ".hidden" + name
		}
		want = append(want, name)
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	want = append(want, "sub")
	var got []string
	if err := Each(dir, func(name []byte) bool { got = append(got, string(name)); return true }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("got %d names, want %d (first %q, %q)", len(got), len(want), got[:3], want[:3])
	}
	// A stop after the first name.
	n := 0
	if err := Each(dir, func([]byte) bool { n++; return false }); err != nil || n != 1 {
		t.Errorf("stopped at once: %d calls, %v", n, err)
	}
}

// TestEachErrors: a missing directory, and a regular file, are errors
// about their paths, as os.Open's and Readdirnames' are.
func TestEachErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	err := Each(missing, func([]byte) bool { return true })
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Path != missing || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing directory: %v", err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Each(file, func([]byte) bool { return true }); !errors.As(err, &pe) || pe.Path != file {
		t.Errorf("a regular file: %v", err)
	}
}

// TestEachAllocs: reading a directory of 1,000 entries allocates nothing
// per entry.
func TestEachAllocs(t *testing.T) {
	dir := t.TempDir()
	for i := range 1000 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprint("f", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	allocs := testing.AllocsPerRun(5, func() {
		Each(dir, func([]byte) bool { n++; return true })
	})
	if allocs > 4 {
		t.Errorf("%v allocations per read of 1,000 entries", allocs)
	}
}
