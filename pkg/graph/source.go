package graph

import (
	"bytes"
	"io"
	"os"
)

// source is the Decoder's buffered reader. Unlike bufio.Reader it grows
// its buffer to hold a whole document, so that a framed JSON document is a
// slice of the buffer, parsed without being copied.
type source struct {
	rd   io.Reader
	buf  []byte
	r, w int   // unread data is buf[r:w]
	err  error // sticky read error
}

const minSourceBuf = 64 << 10

// maxSizeHint bounds the buffer allocated up front from a size hint.
const maxSizeHint = 1 << 30

// newSource returns a source reading rd. When rd tells its size (a
// regular file, or a reader with a Len method such as bytes.Reader), the
// buffer is made big enough for all of it at once, which spares the
// copies of growing it.
func newSource(rd io.Reader) *source {
	size := int64(0)
	switch v := rd.(type) {
	case interface{ Len() int }:
		size = int64(v.Len())
	case *os.File:
		if fi, err := v.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
	}
	n := minSourceBuf
	if size+1 > int64(n) && size < maxSizeHint {
		n = int(size) + 1
	}
	return &source{rd: rd, buf: make([]byte, n)}
}

// release lets go of a buffer larger than minSourceBuf that holds no
// unread data: the buffer of a whole file read at once (newSource) is not
// kept while the program works on the document decoded from it. The next
// read makes a small one.
func (s *source) release() {
	if s.r == s.w && len(s.buf) > minSourceBuf {
		s.buf, s.r, s.w = nil, 0, 0
	}
}

// unread returns the buffered data not consumed yet.
func (s *source) unread() []byte { return s.buf[s.r:s.w] }

// discard consumes n bytes of unread data.
func (s *source) discard(n int) { s.r += n }

// fill returns the unread data, reading more only if there is none.
func (s *source) fill() ([]byte, error) {
	if s.r == s.w {
		if err := s.more(); err != nil {
			return nil, err
		}
	}
	return s.unread(), nil
}

// more reads more data after the unread data, keeping all of it: it moves
// the unread data to the front of the buffer, or doubles the buffer when
// the unread data fills it. It returns an error only when nothing could be
// read.
func (s *source) more() error {
	if s.err != nil {
		return s.err
	}
	if s.r == s.w {
		s.r, s.w = 0, 0
	}
	if s.buf == nil {
		s.buf = make([]byte, minSourceBuf)
	}
	if s.w == len(s.buf) {
		if s.r > len(s.buf)/2 {
			s.w = copy(s.buf, s.buf[s.r:s.w])
			s.r = 0
		} else {
			nb := make([]byte, 2*len(s.buf))
			s.w = copy(nb, s.buf[s.r:s.w])
			s.r = 0
			s.buf = nb
		}
	}
	for tries := 0; tries < 100; tries++ {
		n, err := s.rd.Read(s.buf[s.w:])
		s.w += n
		if err != nil {
			s.err = err
		}
		if n > 0 {
			return nil
		}
		if err != nil {
			return err
		}
	}
	s.err = io.ErrNoProgress
	return s.err
}

// readLine returns the next line without its newline and consumes it; eof
// is set when the stream ended without a newline (the line may still hold
// the last bytes). The line is valid until the next call. A line longer
// than max bytes is consumed without being kept: readLine returns long and
// no line, having held at most about max bytes of it at once.
func (s *source) readLine(max int) (line []byte, eof, long bool, err error) {
	j := 0
	for {
		data := s.unread()
		if i := bytes.IndexByte(data[j:], '\n'); i >= 0 {
			s.discard(j + i + 1)
			if long || j+i > max {
				return nil, false, true, nil
			}
			return data[:j+i], false, false, nil
		}
		j = len(data)
		if j > max {
			s.discard(j)
			j, long = 0, true
		}
		if err := s.more(); err != nil {
			s.discard(j)
			if long {
				data = nil
			}
			if err == io.EOF {
				return data, true, long, nil
			}
			return data, true, long, err
		}
	}
}
