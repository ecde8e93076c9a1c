package engine_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// FuzzDecodeParams feeds arbitrary JSON objects to DecodeParams: it must
// return an error or fill the struct, never panic, and what it filled must
// encode back.
func FuzzDecodeParams(f *testing.F) {
	for _, s := range []string{
		`{"want":"x","sleep":3,"rate":1.5}`,
		`{"in":null,"after":["a","b"],"tags":{"k":1}}`,
		`{"extra":{"a":"b"},"fail":-1}`,
		`{"sleep":1e400}`,
		`{"tags":{"k":"v"}}`,
		`{"group":true,"after":[1]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, ok := jsonObject(data)
		if !ok {
			return
		}
		r := &tval{}
		if err := engine.DecodeParams(r, m); err != nil {
			return
		}
		if _, err := engine.EncodeParams(r); err != nil {
			t.Fatalf("encode after decode: %v", err)
		}
	})
}

// FuzzDecodeInline decodes arbitrary JSON objects into a struct with
// inline fields and into one that declares the same parameters itself:
// both must give the same error, or encode back to the same parameters.
func FuzzDecodeInline(f *testing.F) {
	for _, s := range []string{
		`{"path":"/a","mode":"0644","last":3}`,
		`{"src":"/s","deep":true,"selinux":""}`,
		`{"fragments":["a"],"tags":{"x":1},"inner":{"a":2}}`,
		`{"mode":3}`,
		`{"sourc":"x","fragments":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, ok := jsonObject(data)
		if !ok {
			return
		}
		d := decodeBoth(t, m)
		if d.errF != d.errI {
			t.Fatalf("errors %q (flat) and %q (inline)", d.errF, d.errI)
		}
		if d.errF == "" && !reflect.DeepEqual(d.encF, d.encI) {
			t.Fatalf("encoded %v (flat) and %v (inline)", d.encF, d.encI)
		}
	})
}

// jsonObject decodes data as a JSON object, numbers kept as json.Number
// as the graph decoder keeps them; ok is false when data is not one.
func jsonObject(data []byte) (m map[string]any, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return m, dec.Decode(&m) == nil
}

// bothDecoded is what the parameters m decode into as a flatParams and as
// an inlineParams: the messages of the two errors and, when neither
// failed, the parameters each encodes back to.
type bothDecoded struct {
	flat       flatParams
	in         inlineParams
	errF, errI string
	encF, encI map[string]any
}

func decodeBoth(t *testing.T, m map[string]any) bothDecoded {
	t.Helper()
	var d bothDecoded
	d.errF, d.errI = msg(engine.DecodeParams(&d.flat, m)), msg(engine.DecodeParams(&d.in, m))
	if d.errF != "" || d.errI != "" {
		return d
	}
	var err error
	if d.encF, err = engine.EncodeParams(&d.flat); err != nil {
		t.Fatal(err)
	}
	if d.encI, err = engine.EncodeParams(&d.in); err != nil {
		t.Fatal(err)
	}
	return d
}
