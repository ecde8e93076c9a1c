package resources

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/internal/fswatch"
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("value", func() engine.Res { return &ValueRes{} })
}

// ValueRes stores one key of the local value store that mcl's value.get*
// functions read (see the package documentation for the layout). At most
// one of str, int, float and bool is set; when none is, the key is removed.
type ValueRes struct {
	traits.Base
	traits.Recvable

	init *engine.Init

	// Key defaults to the resource name; a collected one must equal it.
	Key string `lang:"key" yaml:"key" collect:"name"`
	// Str stores a str value (value.get_str reads it).
	Str *string `lang:"str" yaml:"str"`
	// Int stores an int value (value.get_int reads it).
	Int *int64 `lang:"int" yaml:"int"`
	// Float stores a float value (value.get_float reads it).
	Float *float64 `lang:"float" yaml:"float"`
	// Bool stores a bool value (value.get_bool reads it).
	Bool *bool `lang:"bool" yaml:"bool"`

	file string
}

// Default returns a value resource.
func (obj *ValueRes) Default() engine.Res { return &ValueRes{} }

func (obj *ValueRes) key() string {
	if obj.Key != "" {
		return obj.Key
	}
	return obj.Name()
}

// ValuePath returns the file of key in the value store under prefix.
func ValuePath(prefix, key string) string {
	return filepath.Join(prefix, "value", url.PathEscape(key))
}

// Validate checks that at most one value is set.
func (obj *ValueRes) Validate() error {
	switch obj.key() {
	case "":
		return fmt.Errorf("empty key")
	case ".", "..":
		return fmt.Errorf("invalid key %q", obj.key())
	}
	n := 0
	for _, set := range []bool{obj.Str != nil, obj.Int != nil, obj.Float != nil, obj.Bool != nil} {
		if set {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("set at most one of str, int, float and bool")
	}
	if obj.Float != nil && (math.IsNaN(*obj.Float) || math.IsInf(*obj.Float, 0)) {
		return fmt.Errorf("float %v cannot be stored", *obj.Float)
	}
	return nil
}

// encode returns the JSON encoding of the value, or nil when none is set.
func (obj *ValueRes) encode() ([]byte, error) {
	switch {
	case obj.Str != nil:
		return json.Marshal(*obj.Str)
	case obj.Int != nil:
		return []byte(strconv.FormatInt(*obj.Int, 10)), nil
	case obj.Float != nil:
		s := strconv.FormatFloat(*obj.Float, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0" // keep floats recognisable
		}
		return []byte(s), nil
	case obj.Bool != nil:
		return json.Marshal(*obj.Bool)
	}
	return nil, nil
}

// Init finds the file of the key.
func (obj *ValueRes) Init(init *engine.Init) error {
	obj.init = init
	if init.Prefix == "" {
		return fmt.Errorf("no prefix for the value store")
	}
	obj.file = ValuePath(init.Prefix, obj.key())
	return nil
}

// Cleanup does nothing: the value stays stored.
func (obj *ValueRes) Cleanup() error { return nil }

// Watch follows the key's file.
func (obj *ValueRes) Watch(ctx context.Context) error {
	w, err := fswatch.Default()
	if err != nil {
		return err
	}
	s, err := w.Subscribe(obj.file, fswatch.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	obj.init.Running()
	return forwardEvents(ctx, []*fswatch.Sub{s}, obj.init.Event)
}

// CheckApply writes (or removes) the key's file.
func (obj *ValueRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	want, err := obj.encode()
	if err != nil {
		return false, err
	}
	have, err := os.ReadFile(obj.file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	exists := err == nil
	if want == nil {
		if !exists {
			return true, nil
		}
		if !apply {
			return false, nil
		}
		return false, os.Remove(obj.file)
	}
	if exists && bytes.Equal(have, want) {
		return true, nil
	}
	if !apply {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(obj.file), 0o755); err != nil {
		return false, err
	}
	return false, writeAtomic(ctx, obj.file, want, 0o644, -1, -1)
}

// Cmp compares two value resources.
func (obj *ValueRes) Cmp(r engine.Res) error {
	res, ok := r.(*ValueRes)
	if !ok {
		return fmt.Errorf("not a %T", obj)
	}
	if obj.key() != res.key() {
		return fmt.Errorf("the key differs")
	}
	a, _ := obj.encode()
	b, _ := res.encode()
	if !bytes.Equal(a, b) || (obj.Str == nil) != (res.Str == nil) {
		return fmt.Errorf("the value differs")
	}
	return nil
}
