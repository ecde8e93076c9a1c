package graph

import "unsafe"

// A slab allocates the many small objects of a big document in blocks:
// strings out of shared byte chunks, resources and edges out of arrays.
// This turns a million allocations into a few hundred; a block lives as
// long as anything in it is referenced.
type slab struct {
	bytes []byte
	res   []Resource
	edges []Edge
}

const (
	slabBytes  = 64 << 10
	slabObject = 256
	slabMaxStr = 1 << 10 // longer strings get their own allocation
)

// str returns a string holding a copy of b. The chunk's bytes are never
// written again once a string refers to them.
func (s *slab) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > slabMaxStr {
		return string(b)
	}
	if cap(s.bytes)-len(s.bytes) < len(b) {
		s.bytes = make([]byte, 0, slabBytes)
	}
	start := len(s.bytes)
	s.bytes = append(s.bytes, b...)
	return unsafe.String(&s.bytes[start], len(b))
}

func (s *slab) resource() *Resource {
	if len(s.res) == cap(s.res) {
		s.res = make([]Resource, 0, slabObject)
	}
	s.res = s.res[:len(s.res)+1]
	return &s.res[len(s.res)-1]
}

func (s *slab) edge() *Edge {
	if len(s.edges) == cap(s.edges) {
		s.edges = make([]Edge, 0, slabObject)
	}
	s.edges = s.edges[:len(s.edges)+1]
	return &s.edges[len(s.edges)-1]
}
