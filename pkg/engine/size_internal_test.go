package engine

import (
	"testing"
	"unsafe"
)

// TestPerResourceSizes keeps the structures the engine holds once per
// resource at their sizes on 64-bit platforms: a vstate (with the Init of
// its resource, 40 bytes, and its logger) and a Vertex are each one
// allocation of a size class of Go's allocator (208 and 80 bytes), and a
// field more moves one to the next class for every resource of a graph.
// A msg is kept at 48 bytes too: the inbox of a graph's first run holds
// up to thousands of them.
func TestPerResourceSizes(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes are those of 64-bit platforms")
	}
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"Init", unsafe.Sizeof(Init{}), 40},
		{"vstate", unsafe.Sizeof(vstate{}), 224},
		{"Vertex", unsafe.Sizeof(Vertex{}), 80},
		{"msg", unsafe.Sizeof(msg{}), 48},
	} {
		if c.got != c.want {
			t.Errorf("%s is %d bytes, want %d", c.name, c.got, c.want)
		}
	}
}
