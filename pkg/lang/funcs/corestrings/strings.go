// Package corestrings holds the mcl module "strings".
package corestrings

import (
	"context"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func init() {
	funcs.Register("strings", "to_upper", "func(s str) str", func(ctx context.Context, args []values.Value) (values.Value, error) {
		return values.Str(strings.ToUpper(string(args[0].(values.Str)))), nil
	})
}
