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
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if dec.Decode(&m) != nil {
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
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if dec.Decode(&m) != nil {
			return
		}
		var flat flatParams
		var in inlineParams
		errF, errI := engine.DecodeParams(&flat, m), engine.DecodeParams(&in, m)
		if msg(errF) != msg(errI) {
			t.Fatalf("errors %q (flat) and %q (inline)", msg(errF), msg(errI))
		}
		if errF != nil {
			return
		}
		ef, err := engine.EncodeParams(&flat)
		if err != nil {
			t.Fatal(err)
		}
		ei, err := engine.EncodeParams(&in)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ef, ei) {
			t.Fatalf("encoded %v (flat) and %v (inline)", ef, ei)
		}
	})
}
