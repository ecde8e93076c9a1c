package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
)

// A paramsDigest identifies the parameters of a resource as its document
// gave them, so that a graph swap can tell an unchanged resource without
// keeping the parameters themselves (Graph.Compact lets go of them). It
// keeps the first 128 bits of the SHA-256, as many as a UUID (two sets of
// parameters that differ share them with a chance of 2^-128), so that a
// Vertex, one per resource, is 80 bytes rather than 96.
type paramsDigest struct {
	sum [16]byte
	ok  bool // false: some value is of a type digestParams does not know
}

// digestParams returns the SHA-256 of an encoding of params that differs
// whenever reflect.DeepEqual would find two parameter sets different:
// every value is written with its type and every length is written, so no
// two values write the same bytes. Values of other types than a decoder
// gives leave the digest unusable (ok false), and the swap then asks the
// resource's Cmp.
func digestParams(params map[string]any) paramsDigest {
	var d digester
	return d.params(params)
}

// A digester takes the digests of parameters, one set after another with
// the same buffers (Build digests every resource of a graph with one). It
// writes the encoding of a set into one buffer and hashes it at once: a
// resource's few parameters encode in some tens of bytes, which one call
// hashes faster than a call per value.
type digester struct {
	b    []byte   // the encoding of the parameters being digested
	keys []string // the sorted keys of the maps being hashed, outer ones first
}

// maxDigestBuf is the largest buffer a digester keeps from one set of
// parameters to the next: a rare large value (a file's content) does not
// hold its copy for the rest of the graph's resources.
const maxDigestBuf = 64 << 10

// params returns the digest of params, as digestParams does.
func (d *digester) params(params map[string]any) paramsDigest {
	d.b = d.b[:0]
	d.keys = d.keys[:0]
	var out paramsDigest
	if d.value(params) {
		sum := sha256.Sum256(d.b)
		out.ok = true
		copy(out.sum[:], sum[:])
	}
	if cap(d.b) > maxDigestBuf {
		d.b = nil
	}
	return out
}

func (d *digester) tag(t byte, n uint64) {
	d.b = append(d.b, t)
	d.b = binary.LittleEndian.AppendUint64(d.b, n)
}

func (d *digester) str(t byte, s string) {
	d.tag(t, uint64(len(s)))
	d.b = append(d.b, s...)
}

func (d *digester) value(v any) bool {
	switch v := v.(type) {
	case nil:
		d.tag('z', 0)
	case string:
		d.str('s', v)
	case json.Number:
		d.str('n', string(v))
	case bool:
		n := uint64(0)
		if v {
			n = 1
		}
		d.tag('b', n)
	case int:
		d.tag('i', uint64(v))
	case int64:
		d.tag('I', uint64(v))
	case uint64:
		d.tag('u', v)
	case float64:
		if math.IsNaN(v) {
			return false // DeepEqual finds NaN unequal to itself
		}
		d.tag('f', math.Float64bits(v))
	case []any:
		if v == nil {
			d.tag('A', 0)
			return true
		}
		d.tag('a', uint64(len(v)))
		for _, e := range v {
			if !d.value(e) {
				return false
			}
		}
	case map[string]any:
		if v == nil {
			d.tag('M', 0)
			return true
		}
		// The keys go on d.keys above those of the maps around v, and
		// are read back by index: a map within v may grow d.keys.
		start := len(d.keys)
		for k := range v {
			d.keys = append(d.keys, k)
		}
		slices.Sort(d.keys[start:])
		d.tag('m', uint64(len(v)))
		for i := start; i < start+len(v); i++ {
			k := d.keys[i]
			d.str('k', k)
			if !d.value(v[k]) {
				return false
			}
		}
		clear(d.keys[start:])
		d.keys = d.keys[:start]
	default:
		return false
	}
	return true
}
