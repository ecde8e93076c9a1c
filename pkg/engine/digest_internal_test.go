package engine

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// TestDigestParamsAgreesWithDeepEqual checks, on every pair of a set of
// parameter values, that two digests are equal exactly when
// reflect.DeepEqual finds the parameters equal, which is what a graph swap
// compared before parameters were let go of.
func TestDigestParamsAgreesWithDeepEqual(t *testing.T) {
	values := []any{
		nil, "", "a", "a\xff", "a\xfe", "\ufffd", "1", true, false,
		json.Number("1"), json.Number("1.0"), json.Number("01"), 1, int64(1), uint64(1), 1.0, -0.5,
		[]any(nil), []any{}, []any{"a"}, []any{"a", "b"}, []any{"ab"}, []any{[]any{"a"}},
		map[string]any(nil), map[string]any{}, map[string]any{"a": "b"}, map[string]any{"ab": ""},
		map[string]any{"a": "b", "c": "d"}, map[string]any{"a": map[string]any{"b": []any{json.Number("2")}}},
	}
	var sets []map[string]any
	sets = append(sets, nil, map[string]any{})
	for _, v := range values {
		sets = append(sets, map[string]any{"p": v}, map[string]any{"p": v, "q": "x"})
	}
	for i, a := range sets {
		da := digestParams(a)
		if !da.ok {
			t.Fatalf("no digest for %#v", a)
		}
		for j, b := range sets {
			db := digestParams(b)
			if same, want := da == db, reflect.DeepEqual(a, b); same != want {
				t.Errorf("sets %d and %d: digests equal %v, DeepEqual %v:\n%#v\n%#v", i, j, same, want, a, b)
			}
		}
	}
}

// TestDigestParamsRefusesUnknownValues checks that values a decoder never
// gives, and NaN (unequal to itself), leave no usable digest: the swap
// then asks the resource's Cmp.
func TestDigestParamsRefusesUnknownValues(t *testing.T) {
	for _, v := range []any{math.NaN(), struct{}{}, []string{"a"}, map[string]string{}, []any{int32(1)}} {
		if d := digestParams(map[string]any{"p": v}); d.ok {
			t.Errorf("digest of %#v is usable", v)
		}
	}
}

// TestDigesterReused checks that one digester, as Build uses for every
// resource of a graph, gives each parameter set the digest a fresh one
// gives it, after sets of nested maps and after a set it refused midway.
func TestDigesterReused(t *testing.T) {
	sets := []map[string]any{
		{"a": map[string]any{"y": "2", "x": map[string]any{"q": "1", "p": []any{"0"}}}, "b": map[string]any{"z": "3", "w": "4"}, "c": "5"},
		{"p": "x"},
		{"a": map[string]any{"k": "v", "l": math.NaN()}, "b": "c"},
		{"a": map[string]any{"k": "v"}, "b": "c"},
		nil,
		{"q": []any{map[string]any{"b": "1", "a": "2"}, map[string]any{"d": "3", "c": "4"}}},
	}
	var d digester
	for round := 0; round < 2; round++ {
		for i, s := range sets {
			if got, want := d.params(s), digestParams(s); got != want {
				t.Errorf("round %d, set %d: reused digester gives %x (ok %v), a fresh one %x (ok %v)", round, i, got.sum, got.ok, want.sum, want.ok)
			}
		}
	}
}
