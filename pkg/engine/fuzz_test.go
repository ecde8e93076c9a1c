package engine_test

import (
	"bytes"
	"encoding/json"
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
