// Package coremath holds the mcl module "math".
package coremath

import (
	"context"
	"fmt"
	"math"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func finite(f float64, what string) (values.Value, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, funcs.Catchablef("%s is not a finite number", what)
	}
	return values.Float(f), nil
}

func init() {
	funcs.RegisterMulti("math", "fortytwo", []string{"func() int", "func() float"}, func(ctx context.Context, c *funcs.Call) (values.Value, error) {
		if c.Out().Prune().Kind == types.KindFloat {
			return values.Float(42), nil
		}
		return values.Int(42), nil
	}, funcs.Doc("Returns 42 as an int or a float, whichever the call site needs.", "math.fortytwo() + 1"))
	funcs.Register("math", "minus1", "func(x int) int", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return a[0].(values.Int) - 1, nil
	}, funcs.Doc("Its argument minus one.", "math.minus1(43)"))
	funcs.RegisterMulti("math", "mod", []string{"func(x int, y int) int", "func(x float, y float) float"}, func(ctx context.Context, c *funcs.Call) (values.Value, error) {
		switch x := c.Args[0].(type) {
		case values.Int:
			y := c.Args[1].(values.Int)
			if y == 0 {
				return nil, funcs.Catchablef("modulo by zero")
			}
			return x % y, nil
		case values.Float:
			return finite(math.Mod(float64(x), float64(c.Args[1].(values.Float))), "mod result")
		}
		return nil, fmt.Errorf("mod of %s", c.Args[0].Type())
	}, funcs.Doc("The remainder of x divided by y (ints or floats); by zero is an error <|> can catch.", "math.mod(7, 3)"))
	funcs.Register("math", "pow", "func(x float, y float) float", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return finite(math.Pow(float64(a[0].(values.Float)), float64(a[1].(values.Float))), "pow result")
	}, funcs.Doc("x to the power y; a NaN or infinite result is an error <|> can catch.", "math.pow(2.0, 10.0)"))
	funcs.Register("math", "sqrt", "func(x float) float", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return finite(math.Sqrt(float64(a[0].(values.Float))), "sqrt result")
	}, funcs.Doc("The square root; of a negative number is an error <|> can catch.", "math.sqrt(2.0)"))
}
