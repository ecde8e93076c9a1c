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
// one of any, str, int, float and bool is set; when none is, the key is
// removed. It sends the value stored as "any", for a receiving
// resource's parameter of that value's type.
type ValueRes struct {
	traits.Base
	traits.Recvable
	traits.Sendable

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
	// Any stores a value of any type, as JSON (value.get with the type
	// annotated reads it).
	Any *any `lang:"any" yaml:"any"`

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
	if obj.Any != nil && *obj.Any == nil {
		return fmt.Errorf("any must hold a value")
	}
	for _, set := range []bool{obj.Any != nil, obj.Str != nil, obj.Int != nil, obj.Float != nil, obj.Bool != nil} {
		if set {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("set at most one of any, str, int, float and bool")
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
	case obj.Any != nil:
		b, err := json.Marshal(*obj.Any)
		if err != nil {
			return nil, fmt.Errorf("any: %v", err)
		}
		return b, nil
	}
	return nil, nil
}

// ValueSends is what a value resource sends.
type ValueSends struct {
	// Any is the value stored (nil when none is), of its own type.
	Any *any `lang:"any"`
}

// Sends returns the keys value sends.
func (obj *ValueRes) Sends() any { return &ValueSends{} }

// send sends the value stored, decoded from its JSON as parameters are.
func (obj *ValueRes) send(b []byte) error {
	if obj.init == nil {
		return nil
	}
	st := &ValueSends{}
	if b != nil {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return err
		}
		st.Any = &v
	}
	return obj.init.Send(st)
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
			return true, obj.send(nil)
		}
		if !apply {
			return false, nil
		}
		if err := os.Remove(obj.file); err != nil {
			return false, err
		}
		return false, obj.send(nil)
	}
	if exists && bytes.Equal(have, want) {
		return true, obj.send(want)
	}
	if !apply {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(obj.file), 0o755); err != nil {
		return false, err
	}
	if err := writeAtomic(ctx, obj.file, want, 0o644, -1, -1); err != nil {
		return false, err
	}
	return false, obj.send(want)
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
