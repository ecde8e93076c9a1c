// Package coreconvert holds the mcl module "convert".
package coreconvert

import (
	"context"
	"strconv"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func init() {
	funcs.Register("convert", "format_bool", "func(a bool) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(strconv.FormatBool(bool(a[0].(values.Bool)))), nil
	})
	funcs.Register("convert", "parse_bool", "func(a str) bool", func(ctx context.Context, a []values.Value) (values.Value, error) {
		b, err := strconv.ParseBool(string(a[0].(values.Str)))
		if err != nil {
			return nil, funcs.Catchablef("parse_bool: %v", err)
		}
		return values.Bool(b), nil
	})
	funcs.Register("convert", "int_to_str", "func(a int) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(strconv.FormatInt(int64(a[0].(values.Int)), 10)), nil
	})
	funcs.Register("convert", "str_to_int", "func(a str) int", func(ctx context.Context, a []values.Value) (values.Value, error) {
		n, err := strconv.ParseInt(string(a[0].(values.Str)), 10, 64)
		if err != nil {
			return nil, funcs.Catchablef("str_to_int: %v", err)
		}
		return values.Int(n), nil
	})
	funcs.Register("convert", "str_to_float", "func(a str) float", func(ctx context.Context, a []values.Value) (values.Value, error) {
		f, err := strconv.ParseFloat(string(a[0].(values.Str)), 64)
		if err != nil {
			return nil, funcs.Catchablef("str_to_float: %v", err)
		}
		return values.Float(f), nil
	})
	funcs.Register("convert", "to_float", "func(a int) float", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Float(a[0].(values.Int)), nil
	})
	funcs.Register("convert", "to_int", "func(a float) int", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Int(a[0].(values.Float)), nil
	})
}
