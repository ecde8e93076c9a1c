// Package coreencoding holds the mcl module "encoding": base64 and JSON.
package coreencoding

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func init() {
	funcs.Register("encoding", "base64_encode", "func(data str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(base64.StdEncoding.EncodeToString([]byte(a[0].(values.Str)))), nil
	}, funcs.Doc("Encodes a str as standard base64.", `encoding.base64_encode("hi")`))
	funcs.Register("encoding", "base64_decode", "func(data str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		b, err := base64.StdEncoding.DecodeString(string(a[0].(values.Str)))
		if err != nil {
			return nil, funcs.Catchablef("base64: %v", err)
		}
		return values.Str(b), nil
	}, funcs.Doc("Decodes standard base64; bad input is an error.", `encoding.base64_decode("aGk=")`))
	funcs.RegisterPoly("encoding", "decode_json", inferJSON, buildJSON(false), funcs.Doc("Decodes JSON into the mcl type the call site needs (from unification, or named by an optional second argument, a type as a str constant); a value of another type is an error.", `encoding.decode_json("[1, 2]", "[]int")`), funcs.Shape("func(data str[, type str]) ?1"))
	funcs.RegisterPoly("encoding", "decode_json_flexible", inferJSON, buildJSON(true), funcs.Doc("Like decode_json, but lenient: numbers convert between int and float, and missing struct fields take their zero value.", `encoding.decode_json_flexible("{\"a\": 1}", "struct{a int; b str}")`), funcs.Shape("func(data str[, type str]) ?1"))
}

// inferJSON types decode_json(data str[, type str]): the result type comes
// from the constant type string, or from the call's context.
func inferJSON(ic *funcs.InferCtx) error {
	if len(ic.Args) < 1 || len(ic.Args) > 2 {
		return fmt.Errorf("decode_json takes one or two arguments")
	}
	for _, a := range ic.Args {
		if err := ic.Unify(a, types.Str); err != nil {
			return err
		}
	}
	if len(ic.Args) == 2 {
		s, ok := ic.Consts[1].(values.Str)
		if !ok {
			return fmt.Errorf("the type argument of decode_json must be a constant string")
		}
		t, err := types.Parse(string(s))
		if err != nil {
			return err
		}
		return ic.Unify(ic.Out, t)
	}
	if !ic.Out.IsConcrete() {
		if ic.Final {
			return fmt.Errorf("cannot infer the type decode_json returns; give it as a second argument")
		}
		return funcs.ErrDefer
	}
	return nil
}

func buildJSON(flexible bool) func(*types.Type) (funcs.Impl, error) {
	return func(sig *types.Type) (funcs.Impl, error) {
		return func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			d := json.NewDecoder(bytes.NewReader([]byte(c.Args[0].(values.Str))))
			d.UseNumber()
			var x any
			if err := d.Decode(&x); err != nil {
				return nil, funcs.Catchablef("decode_json: %v", err)
			}
			v, err := fromJSON(x, c.Type.Out, flexible)
			if err != nil {
				return nil, funcs.Catchablef("decode_json: %v", err)
			}
			return v, nil
		}, nil
	}
}

// fromJSON converts decoded JSON to a value of type t; flexible mode
// accepts missing struct fields (zero values) and numbers for either int
// or float.
func fromJSON(x any, t *types.Type, flexible bool) (values.Value, error) {
	t = t.Prune()
	switch t.Kind {
	case types.KindMap:
		obj, ok := x.(map[string]any)
		if !ok {
			return values.FromGo(x, t)
		}
		m := values.NewMap(t.Resolve())
		for k, v := range obj {
			kv, err := fromJSON(k, t.Key, flexible)
			if err != nil {
				return nil, err
			}
			vv, err := fromJSON(v, t.Val, flexible)
			if err != nil {
				return nil, err
			}
			m.Set(kv, vv)
		}
		return m, nil
	case types.KindStruct:
		obj, ok := x.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("want an object for %s", t)
		}
		s := &values.Struct{T: t.Resolve(), V: make([]values.Value, len(t.Fields))}
		for i, f := range t.Fields {
			fv, ok := obj[f.Name]
			if !ok {
				if !flexible {
					return nil, fmt.Errorf("missing field %q", f.Name)
				}
				z, err := values.Zero(f.Type)
				if err != nil {
					return nil, err
				}
				s.V[i] = z
				continue
			}
			v, err := fromJSON(fv, f.Type, flexible)
			if err != nil {
				return nil, err
			}
			s.V[i] = v
		}
		return s, nil
	case types.KindList:
		arr, ok := x.([]any)
		if !ok {
			return nil, fmt.Errorf("want an array for %s", t)
		}
		l := &values.List{T: t.Resolve(), V: make([]values.Value, len(arr))}
		for i, e := range arr {
			v, err := fromJSON(e, t.Elem, flexible)
			if err != nil {
				return nil, err
			}
			l.V[i] = v
		}
		return l, nil
	case types.KindInt:
		if s, ok := x.(string); ok && flexible {
			x = json.Number(s)
		}
	}
	return values.FromGo(x, t)
}
