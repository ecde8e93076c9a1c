// Package value holds the mcl module "value": get, get_str, get_int,
// get_float and get_bool read keys of the local value store that the value
// resource writes, and stream a new struct{value; ready} each time the key
// changes.
//
// The store (see pkg/resources) keeps key K in <prefix>/value/<escaped K>
// as the JSON encoding of its value, replaced atomically. Each call site
// watches that file through fswatch (inotify on its directory, or on the
// closest existing ancestor while the store does not exist yet) and
// re-reads it on every change. A missing file gives ready false and the
// zero value, and so does an empty file (the store never writes one, but a
// writer that does not rename shows it for a moment). A value of another type than the call site's is a runtime
// error, except an int read as a float. The prefix is the compiler's
// --prefix, /var/lib/mgmt when unset (mgmt-apply's default).
package value

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	"github.com/mgmtpipe/mgmt/internal/fswatch"
	"github.com/mgmtpipe/mgmt/internal/statedir"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// DefaultPrefix is the state directory used when the compiler has none
// (the tools always give one: --prefix, or the user's default).
const DefaultPrefix = statedir.System

func init() {
	if funcs.IsModule("value") {
		return // registered by another package already (the core's packages initialise first)
	}
	funcs.RegisterFunc(&funcs.Func{Module: "value", Name: "get", Infer: inferGet, Stream: get,
		Doc: "A key of the local value store (the value resource writes it), following changes; ready is false until it is set.", Example: `$count struct{value int; ready bool} = value.get("count")`, Shape: "func(key str) struct{value ?1; ready bool}"})
	for name, t := range map[string]string{"get_str": "str", "get_int": "int", "get_float": "float", "get_bool": "bool"} {
		doc := fmt.Sprintf("The %s value of a key of the local value store (the value resource writes it), following changes; ready is false until it is set.", t)
		funcs.RegisterStream("value", name, "func(key str) struct{value "+t+"; ready bool}", get,
			funcs.Doc(doc, `value.`+name+`("count")`))
	}
}

func inferGet(ic *funcs.InferCtx) error {
	if len(ic.Args) != 1 {
		return fmt.Errorf("got %d args, want 1", len(ic.Args))
	}
	if err := ic.Unify(ic.Args[0], types.Str); err != nil {
		return fmt.Errorf("key: %v", err)
	}
	v := types.NewVar()
	if err := ic.Unify(ic.Out, types.NewStruct(types.Field{Name: "value", Type: v}, types.Field{Name: "ready", Type: types.Bool})); err != nil {
		return err
	}
	if !v.IsConcrete() {
		if ic.Final {
			return fmt.Errorf("the type of the value is unknown; use get_str, get_int, get_float or get_bool, or annotate the result")
		}
		return funcs.ErrDefer
	}
	if v.Prune().Kind == types.KindFunc {
		return fmt.Errorf("the value store holds no functions")
	}
	return nil
}

// Path returns the file holding key in the value store under prefix.
func Path(prefix, key string) string {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return filepath.Join(prefix, "value", url.PathEscape(key))
}

func get(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
	key := string(c.Args[0].(values.Str))
	if key == "" {
		return fmt.Errorf("value: empty key")
	}
	prefix := ""
	if c.Env != nil {
		prefix = c.Env.Prefix
	}
	if prefix != "" && !filepath.IsAbs(prefix) {
		abs, err := filepath.Abs(prefix)
		if err != nil {
			return err
		}
		prefix = abs
	}
	out := c.Out().Resolve()
	p := Path(prefix, key)
	return fswatch.Follow(ctx, p, func() error {
		v, err := Read(p, out)
		if err != nil {
			return fmt.Errorf("value %q: %v", key, err)
		}
		emit(v)
		return nil
	})
}

// Read reads the store file p into a struct{value T; ready bool} of type
// out.
func Read(p string, out *types.Type) (values.Value, error) {
	vt, _ := out.Field("value")
	s := &values.Struct{T: out, V: make([]values.Value, 2)}
	b, err := os.ReadFile(p)
	ready := err == nil && len(bytes.TrimSpace(b)) > 0
	var v values.Value
	switch {
	case errors.Is(err, fs.ErrNotExist) || err == nil && !ready:
		if v, err = values.Zero(vt); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	default:
		if v, err = decode(b, vt); err != nil {
			return nil, err
		}
	}
	for i, f := range out.Fields {
		if f.Name == "value" {
			s.V[i] = v
		} else {
			s.V[i] = values.Bool(ready)
		}
	}
	return s, nil
}

func decode(b []byte, t *types.Type) (values.Value, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return nil, fmt.Errorf("malformed stored value: %v", err)
	}
	v, err := values.FromGo(x, t)
	if err != nil {
		return nil, fmt.Errorf("stored value %s is not a %s", bytes.TrimSpace(b), t)
	}
	return v, nil
}
