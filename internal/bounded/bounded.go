// Package bounded reads the programs, manifests and catalogs the tools
// take whole, up to a size: a path that names a device or a fifo that
// never ends, or a producer on stdin that writes without end, gets an
// error instead of all of the host's memory.
package bounded

import (
	"fmt"
	"io"
	"os"
)

// Max is the size of the largest input read whole: 256 MiB, some 50 times
// the largest program or manifest the project measures itself on, and the
// graph documents' default limit (--max-document-mib).
const Max = 256 << 20

// A TooLarge error names an input larger than the limit.
type TooLarge struct {
	Name string
	Max  int64
}

func (e *TooLarge) Error() string { return e.Name + ": " + e.Reason() }

// Reason is the error without the input's name, for an error positioned
// at the input.
func (e *TooLarge) Reason() string {
	return fmt.Sprintf("larger than %s, the largest input read whole", size(e.Max))
}

func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadAll reads r to its end, named name in the error when it holds more
// than Max bytes.
func ReadAll(r io.Reader, name string) ([]byte, error) { return readAll(r, name, Max) }

// ReadFile reads the file at path, refusing one larger than Max: a regular
// file at once from its size, anything else once Max bytes are read.
func ReadFile(path string) ([]byte, error) { return readFile(path, Max) }

func readAll(r io.Reader, name string, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, &TooLarge{Name: name, Max: max}
	}
	return b, nil
}

func readFile(path string, max int64) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err == nil && fi.Mode().IsRegular() {
		if fi.Size() > max {
			return nil, &TooLarge{Name: path, Max: max}
		}
		// Read as os.ReadFile does: in one buffer of the file's size.
		b := make([]byte, 0, fi.Size()+1)
		for {
			n, err := fh.Read(b[len(b):cap(b)])
			b = b[:len(b)+n]
			if err == io.EOF {
				return b, nil
			}
			if err != nil {
				return nil, err
			}
			if int64(len(b)) > max {
				return nil, &TooLarge{Name: path, Max: max}
			}
			if len(b) == cap(b) {
				b = append(b, 0)[:len(b)] // the file grew
			}
		}
	}
	return readAll(fh, path, max)
}
