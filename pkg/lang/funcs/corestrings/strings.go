// Package corestrings holds the mcl module "strings".
package corestrings

import (
	"context"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func s(v values.Value) string { return string(v.(values.Str)) }

func init() {
	funcs.Register("strings", "to_upper", "func(s str) str", func(ctx context.Context, args []values.Value) (values.Value, error) {
		return values.Str(strings.ToUpper(s(args[0]))), nil
	})
	funcs.Register("strings", "to_lower", "func(a str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(strings.ToLower(s(a[0]))), nil
	})
	funcs.Register("strings", "trim_space", "func(a str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(strings.TrimSpace(s(a[0]))), nil
	})
	funcs.Register("strings", "contains", "func(s str, substr str) bool", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Bool(strings.Contains(s(a[0]), s(a[1]))), nil
	})
	funcs.Register("strings", "has_prefix", "func(s str, prefix str) bool", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Bool(strings.HasPrefix(s(a[0]), s(a[1]))), nil
	})
	funcs.Register("strings", "has_suffix", "func(s str, suffix str) bool", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Bool(strings.HasSuffix(s(a[0]), s(a[1]))), nil
	})
	funcs.Register("strings", "replace_all", "func(s str, old str, new str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(strings.ReplaceAll(s(a[0]), s(a[1]), s(a[2]))), nil
	})
	funcs.Register("strings", "split", "func(a str, b str) []str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		l := values.NewList(types.Str)
		for _, x := range strings.Split(s(a[0]), s(a[1])) {
			l.V = append(l.V, values.Str(x))
		}
		return l, nil
	})
	funcs.Register("strings", "join_nonempty", "func(s []str, sep str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		var parts []string
		for _, x := range a[0].(*values.List).V {
			if v := s(x); v != "" {
				parts = append(parts, v)
			}
		}
		return values.Str(strings.Join(parts, s(a[1]))), nil
	})
	pad := func(left bool) func(ctx context.Context, a []values.Value) (values.Value, error) {
		return func(ctx context.Context, a []values.Value) (values.Value, error) {
			str, p, n := s(a[0]), s(a[1]), int(a[2].(values.Int))
			if p == "" {
				return values.Str(str), nil
			}
			for len(str) < n {
				if left {
					str = p + str
				} else {
					str += p
				}
			}
			return values.Str(str), nil
		}
	}
	funcs.Register("strings", "left_pad", "func(s str, pad str, len int) str", pad(true))
	funcs.Register("strings", "right_pad", "func(s str, pad str, len int) str", pad(false))
	funcs.Register("strings", "substr", "func(s str, low int, high int) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		str, lo, hi := s(a[0]), int(a[1].(values.Int)), int(a[2].(values.Int))
		if lo < 0 || hi > len(str) || lo > hi {
			return nil, funcs.Catchablef("substr [%d:%d] out of range for length %d", lo, hi, len(str))
		}
		return values.Str(str[lo:hi]), nil
	})
}
