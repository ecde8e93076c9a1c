// Package coremap holds the mcl module "map".
package coremap

import (
	"context"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs/builtin"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func init() {
	funcs.RegisterFunc(&funcs.Func{Module: "map", Name: "lookup", Pure: true,
		Sigs: []*types.Type{types.MustParse("func(map map{?1: ?2}, key ?1) ?2")},
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			return builtin.MapLookup(c.Args[0].(*values.Map), c.Args[1])
		}, Doc: "The value of a map at a key; a missing key is an error <|> can catch.", Example: `map.lookup({"a" => 1}, "a")`})
	funcs.RegisterFunc(&funcs.Func{Module: "map", Name: "keys", Pure: true,
		Sigs: []*types.Type{types.MustParse("func(x map{?1: ?2}) []?1")},
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			m := c.Args[0].(*values.Map)
			return &values.List{T: c.Type.Out, V: append([]values.Value(nil), m.Keys...)}, nil
		}, Doc: "The keys of a map, sorted.", Example: `map.keys({"b" => 1, "a" => 2})`})
	funcs.RegisterFunc(&funcs.Func{Module: "map", Name: "values", Pure: true,
		Sigs: []*types.Type{types.MustParse("func(x map{?1: ?2}) []?2")},
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			m := c.Args[0].(*values.Map)
			return &values.List{T: c.Type.Out, V: append([]values.Value(nil), m.Vals...)}, nil
		}, Doc: "The values of a map, in the order of its sorted keys.", Example: `map.values({"b" => 1, "a" => 2})`})
}
