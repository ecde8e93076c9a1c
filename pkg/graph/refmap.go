package graph

// A refMap maps refs to values. It keeps one map per kind, keyed by name:
// Go's maps hash string keys much faster than struct keys holding two
// strings, and graphs have few kinds.
type refMap[V any] struct {
	kinds map[string]map[string]V
	hint  int // size of the first kind's map

	lastKind string // the kind of the last lookup, and its map
	last     map[string]V
}

func newRefMap[V any]() *refMap[V] {
	return &refMap[V]{kinds: map[string]map[string]V{}}
}

// newRefMapSize returns a refMap expecting about n refs, most of one kind.
func newRefMapSize[V any](n int) *refMap[V] {
	return &refMap[V]{kinds: map[string]map[string]V{}, hint: n}
}

func (m *refMap[V]) byKind(kind string, create bool) map[string]V {
	if m.last != nil && kind == m.lastKind {
		return m.last
	}
	names, ok := m.kinds[kind]
	if !ok {
		if !create {
			return nil
		}
		names = make(map[string]V, m.hint)
		m.hint = 0
		m.kinds[kind] = names
	}
	m.lastKind, m.last = kind, names
	return names
}

// get returns the value of r.
func (m *refMap[V]) get(r Ref) (V, bool) {
	v, ok := m.byKind(r.Kind, false)[r.Name]
	return v, ok
}

// set sets the value of r.
func (m *refMap[V]) set(r Ref, v V) {
	m.byKind(r.Kind, true)[r.Name] = v
}
