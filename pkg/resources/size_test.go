package resources

import (
	"testing"
	"unsafe"
)

// TestFileResSize keeps the file resource, of which a graph holds one per
// file, at 416 bytes on 64-bit platforms: a size class of Go's allocator,
// so that a field more moves every file resource to the next class (448
// bytes).
func TestFileResSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes are those of 64-bit platforms")
	}
	if got := unsafe.Sizeof(FileRes{}); got != 416 {
		t.Errorf("FileRes is %d bytes, want 416", got)
	}
}
