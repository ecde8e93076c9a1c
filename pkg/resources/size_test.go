package resources

import (
	"testing"
	"unsafe"
)

// TestFileResSize keeps the file resource, of which a graph holds one per
// file, at 176 bytes on 64-bit platforms: a size class of Go's allocator,
// so that a field more moves every file resource to the next class (192
// bytes). What few files need is kept apart: the parameters few files
// set in a FileRare, a resolved owner and group and a reversal's state
// in a fileExtra.
func TestFileResSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes are those of 64-bit platforms")
	}
	if got := unsafe.Sizeof(FileRes{}); got != 176 {
		t.Errorf("FileRes is %d bytes, want 176", got)
	}
}
