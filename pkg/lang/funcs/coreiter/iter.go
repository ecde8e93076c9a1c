// Package coreiter holds the mcl module "iter": map, filter, reduce, zip,
// flatten and range. The functions taking a function value call it once
// per element with funcs.WithKey, so streams inside it stay distinct.
package coreiter

import (
	"context"
	"fmt"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func sigs(s ...string) []*types.Type {
	out := make([]*types.Type, len(s))
	for i, x := range s {
		out[i] = types.MustParse(x)
	}
	return out
}

func init() {
	funcs.RegisterFunc(&funcs.Func{Module: "iter", Name: "map",
		Sigs: sigs("func(inputs []?1, function func(?1) ?2) []?2"),
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			in := c.Args[0].(*values.List)
			f := c.Args[1].(*values.Func)
			out := &values.List{T: c.Type.Out, V: make([]values.Value, len(in.V))}
			for i, x := range in.V {
				v, err := f.Call(funcs.WithKey(ctx, i), x)
				if err != nil {
					return nil, err
				}
				out.V[i] = v
			}
			return out, nil
		}, Doc: "The list of a function's results on each element of a list.", Example: `iter.map(["a", "b"], func($x) { $x + "!" })`})
	funcs.RegisterFunc(&funcs.Func{Module: "iter", Name: "filter",
		Sigs: sigs("func(inputs []?1, function func(?1) bool) []?1"),
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			in := c.Args[0].(*values.List)
			f := c.Args[1].(*values.Func)
			out := &values.List{T: c.Type.Out}
			for i, x := range in.V {
				v, err := f.Call(funcs.WithKey(ctx, i), x)
				if err != nil {
					return nil, err
				}
				if v.(values.Bool) {
					out.V = append(out.V, x)
				}
			}
			return out, nil
		}, Doc: "The elements of a list for which a function returns true.", Example: "iter.filter([1, 2, 3], func($x) { $x > 1 })"})
	funcs.RegisterFunc(&funcs.Func{Module: "iter", Name: "reduce",
		Sigs: sigs("func(inputs []?1, function func(x ?1, y ?1) ?1) ?1", "func(initval ?2, inputs []?1, function func(x ?2, y ?1) ?2) ?2"),
		Impl: reduce, Doc: "Folds a list with a function, from an initial value (or from the first element).", Example: "iter.reduce(0, [1, 2, 3], func($acc, $x) { $acc + $x })"})
	funcs.RegisterFunc(&funcs.Func{Module: "iter", Name: "zip",
		Sigs: sigs("func(inputs1 []?1, inputs2 []?2, function func(x ?1, y ?2) ?3) []?3"),
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			a, b := c.Args[0].(*values.List), c.Args[1].(*values.List)
			f := c.Args[2].(*values.Func)
			n := min(len(a.V), len(b.V))
			out := &values.List{T: c.Type.Out, V: make([]values.Value, n)}
			for i := 0; i < n; i++ {
				v, err := f.Call(funcs.WithKey(ctx, i), a.V[i], b.V[i])
				if err != nil {
					return nil, err
				}
				out.V[i] = v
			}
			return out, nil
		}, Doc: "The list of a function's results on the elements of two lists taken in pairs (as long as the shorter).", Example: `iter.zip(["a", "b"], [1, 2], func($k, $v) { $k })`})
	funcs.RegisterFunc(&funcs.Func{Module: "iter", Name: "flatten", Pure: true,
		Sigs: sigs("func(inputs [][]?1) []?1"),
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			out := &values.List{T: c.Type.Out}
			for _, l := range c.Args[0].(*values.List).V {
				out.V = append(out.V, l.(*values.List).V...)
			}
			return out, nil
		}, Doc: "Joins a list of lists into one list.", Example: "iter.flatten([[1], [2, 3]])"})
	funcs.RegisterFunc(&funcs.Func{Module: "iter", Name: "range", Pure: true,
		Sigs: sigs("func(int) []int", "func(int, int) []int", "func(int, int, int) []int"),
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			start, stop, step := int64(0), int64(0), int64(1)
			a := make([]int64, len(c.Args))
			for i, v := range c.Args {
				a[i] = int64(v.(values.Int))
			}
			switch len(a) {
			case 1:
				stop = a[0]
			case 2:
				start, stop = a[0], a[1]
			case 3:
				start, stop, step = a[0], a[1], a[2]
			}
			if step == 0 {
				return nil, fmt.Errorf("range step cannot be zero")
			}
			out := values.NewList(types.Int)
			for i := start; step > 0 && i < stop || step < 0 && i > stop; i += step {
				out.V = append(out.V, values.Int(i))
				if len(out.V) > 10_000_000 {
					return nil, fmt.Errorf("range too long")
				}
			}
			return out, nil
		}, Doc: "The ints from start (default 0) up to, not including, stop, by step (default 1), as Python's range.", Example: "iter.range(1, 10, 2)"})
}

func reduce(ctx context.Context, c *funcs.Call) (values.Value, error) {
	var acc values.Value
	var in *values.List
	var f *values.Func
	if len(c.Args) == 3 {
		acc, in, f = c.Args[0], c.Args[1].(*values.List), c.Args[2].(*values.Func)
	} else {
		in, f = c.Args[0].(*values.List), c.Args[1].(*values.Func)
		if len(in.V) == 0 {
			return values.Zero(c.Type.Out)
		}
		acc, in = in.V[0], &values.List{T: in.T, V: in.V[1:]}
	}
	for i, x := range in.V {
		v, err := f.Call(funcs.WithKey(ctx, i), acc, x)
		if err != nil {
			return nil, err
		}
		acc = v
	}
	return acc, nil
}
