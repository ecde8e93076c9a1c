// Package coreexample holds the mcl modules "example" and
// "example/nested": small functions showing the function API.
package coreexample

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func init() {
	funcs.Register("example/nested", "hello", "func() str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str("Hello!"), nil
	}, funcs.Doc(`Returns "hello" (the language's own tests use it).`, "nested.hello()"))
	funcs.Register("example", "answer", "func() int", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Int(42), nil
	}, funcs.Doc("Returns 42 (the language's own tests use it).", "example.answer()"))
	funcs.Register("example", "plus", "func(y str, z str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(string(a[0].(values.Str)) + "+" + string(a[1].(values.Str))), nil
	}, funcs.Doc("Joins two strings (the language's own tests use it).", `example.plus("a", "b")`))
	funcs.Register("example", "int2str", "func(a int) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(strconv.FormatInt(int64(a[0].(values.Int)), 10)), nil
	}, funcs.Doc("An int as a str (the language's own tests use it).", "example.int2str(7)"))
	funcs.Register("example", "str2int", "func(a str) int", func(ctx context.Context, a []values.Value) (values.Value, error) {
		n, err := strconv.ParseInt(string(a[0].(values.Str)), 10, 64)
		if err != nil {
			return values.Int(0), nil
		}
		return values.Int(n), nil
	}, funcs.Doc("Parses an int, 0 on bad input (the language's own tests use it).", `example.str2int("7")`))
	funcs.Register("example", "errorbool", "func(a bool) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		if a[0].(values.Bool) {
			return nil, fmt.Errorf("we errored on request")
		}
		return values.Str("set input to true to generate an error"), nil
	}, funcs.Doc("Fails for true and returns a message for false (the language's own tests use it).", "example.errorbool(false)"))
	funcs.RegisterStream("example", "flipflop", "func() bool", func(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
		v := false
		for {
			emit(values.Bool(v))
			v = !v
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(time.Second):
			}
		}
	}, funcs.Doc("Alternates between true and false over time (the language's own tests use it).", "example.flipflop()"))
}
