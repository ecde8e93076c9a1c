package eval

// An attrSet holds the attributes of a resource body in their order. A
// set of a few is searched in order, with no map; a larger one gets an
// index, so that a body of thousands of attributes (a splat of a large
// hash) stays linear.
type attrSet struct {
	keys  []string
	vals  []any
	index map[string]int // key -> position, made past attrIndexed keys
	// the first attrInline keys and values, allocated with the set
	keyBuf [attrInline]string
	valBuf [attrInline]any
}

// attrIndexed is the number of attributes searched in order.
const attrIndexed = 8

// attrInline is the number of attributes a set holds without allocating
// lists of its own: most resource bodies have no more.
const attrInline = 6

func newAttrSet(n int) *attrSet {
	a := &attrSet{}
	if n <= attrInline {
		a.keys, a.vals = a.keyBuf[:0], a.valBuf[:0]
	} else {
		a.keys, a.vals = make([]string, 0, n), make([]any, 0, n)
	}
	return a
}

// find returns the position of k, or -1.
func (a *attrSet) find(k string) int {
	if a.index != nil {
		if i, ok := a.index[k]; ok {
			return i
		}
		return -1
	}
	for i, x := range a.keys {
		if x == k {
			return i
		}
	}
	return -1
}

// has reports whether k is set (to undef included).
func (a *attrSet) has(k string) bool { return a.find(k) >= 0 }

// add appends k, which the set does not hold.
func (a *attrSet) add(k string, v any) {
	a.keys = append(a.keys, k)
	a.vals = append(a.vals, v)
	switch {
	case a.index != nil:
		a.index[k] = len(a.keys) - 1
	case len(a.keys) > attrIndexed:
		a.index = make(map[string]int, 2*len(a.keys))
		for i, x := range a.keys {
			a.index[x] = i
		}
	}
}

// set sets k to v, in its place when the set holds it, else last.
func (a *attrSet) set(k string, v any) {
	if i := a.find(k); i >= 0 {
		a.vals[i] = v
		return
	}
	a.add(k, v)
}

// toMap returns the attributes as a new map.
func (a *attrSet) toMap() map[string]any {
	m := make(map[string]any, len(a.keys))
	for i, k := range a.keys {
		m[k] = a.vals[i]
	}
	return m
}
