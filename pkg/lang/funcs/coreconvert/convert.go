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
	}, funcs.Doc(`The str "true" or "false".`, "convert.format_bool(true)"))
	funcs.Register("convert", "parse_bool", "func(a str) bool", func(ctx context.Context, a []values.Value) (values.Value, error) {
		b, err := strconv.ParseBool(string(a[0].(values.Str)))
		if err != nil {
			return nil, funcs.Catchablef("parse_bool: %v", err)
		}
		return values.Bool(b), nil
	}, funcs.Doc(`Parses "true", "false", "1", "0" and the other spellings Go's strconv.ParseBool accepts; bad input is an error <|> can catch.`, `convert.parse_bool("true")`))
	funcs.Register("convert", "int_to_str", "func(a int) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(strconv.FormatInt(int64(a[0].(values.Int)), 10)), nil
	}, funcs.Doc("An int in decimal.", "convert.int_to_str(42)"))
	funcs.Register("convert", "str_to_int", "func(a str) int", func(ctx context.Context, a []values.Value) (values.Value, error) {
		n, err := strconv.ParseInt(string(a[0].(values.Str)), 10, 64)
		if err != nil {
			return nil, funcs.Catchablef("str_to_int: %v", err)
		}
		return values.Int(n), nil
	}, funcs.Doc("Parses a decimal int; bad input is an error <|> can catch.", `convert.str_to_int("42")`))
	funcs.Register("convert", "str_to_float", "func(a str) float", func(ctx context.Context, a []values.Value) (values.Value, error) {
		f, err := strconv.ParseFloat(string(a[0].(values.Str)), 64)
		if err != nil {
			return nil, funcs.Catchablef("str_to_float: %v", err)
		}
		return values.Float(f), nil
	}, funcs.Doc("Parses a float; bad input is an error <|> can catch.", `convert.str_to_float("2.5")`))
	funcs.Register("convert", "to_float", "func(a int) float", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Float(a[0].(values.Int)), nil
	}, funcs.Doc("An int as a float (mcl never mixes the two implicitly).", "convert.to_float(3)"))
	funcs.Register("convert", "to_int", "func(a float) int", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Int(a[0].(values.Float)), nil
	}, funcs.Doc("A float as an int, truncated toward zero.", "convert.to_int(2.7)"))
}
