// Package corelist holds the mcl module "list".
package corelist

import (
	"context"
	"fmt"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs/builtin"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func init() {
	funcs.RegisterFunc(&funcs.Func{Module: "list", Name: "lookup", Pure: true,
		Sigs: []*types.Type{types.MustParse("func(list []?1, index int) ?1")},
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			return builtin.ListLookup(c.Args[0].(*values.List), int64(c.Args[1].(values.Int)))
		}, Doc: "The element of a list at an index; a missing one is an error <|> can catch.", Example: `list.lookup(["a", "b"], 0)`})
	funcs.RegisterPoly("list", "concat", func(ic *funcs.InferCtx) error {
		if len(ic.Args) == 0 {
			return fmt.Errorf("concat needs at least one list")
		}
		for _, a := range ic.Args {
			if err := ic.Unify(a, ic.Out); err != nil {
				return err
			}
		}
		return ic.Unify(ic.Out, types.NewList(types.NewVar()))
	}, func(*types.Type) (funcs.Impl, error) {
		return func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			out := &values.List{T: c.Type.Out}
			for _, a := range c.Args {
				out.V = append(out.V, a.(*values.List).V...)
			}
			return out, nil
		}, nil
	}, funcs.Doc("Joins lists of the same type, in order.", `list.concat(["a"], ["b", "c"])`), funcs.Shape("func(lists []?1...) []?1"))
}
