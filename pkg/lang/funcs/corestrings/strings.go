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
	}, funcs.Doc("A str in upper case.", `strings.to_upper("web")`))
	funcs.Register("strings", "to_lower", "func(a str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(strings.ToLower(s(a[0]))), nil
	}, funcs.Doc("A str in lower case.", `strings.to_lower("WEB")`))
	funcs.Register("strings", "trim_space", "func(a str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(strings.TrimSpace(s(a[0]))), nil
	}, funcs.Doc("A str without leading and trailing white space.", `strings.trim_space("  web \n")`))
	funcs.Register("strings", "contains", "func(s str, substr str) bool", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Bool(strings.Contains(s(a[0]), s(a[1]))), nil
	}, funcs.Doc("Whether s contains substr.", `strings.contains("webserver", "web")`))
	funcs.Register("strings", "has_prefix", "func(s str, prefix str) bool", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Bool(strings.HasPrefix(s(a[0]), s(a[1]))), nil
	}, funcs.Doc("Whether s starts with prefix.", `strings.has_prefix("web1", "web")`))
	funcs.Register("strings", "has_suffix", "func(s str, suffix str) bool", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Bool(strings.HasSuffix(s(a[0]), s(a[1]))), nil
	}, funcs.Doc("Whether s ends with suffix.", `strings.has_suffix("a.conf", ".conf")`))
	funcs.Register("strings", "replace_all", "func(s str, old str, new str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(strings.ReplaceAll(s(a[0]), s(a[1]), s(a[2]))), nil
	}, funcs.Doc("Replaces every occurrence of old in s by new.", `strings.replace_all("a-b-c", "-", "_")`))
	funcs.Register("strings", "split", "func(a str, b str) []str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		l := values.NewList(types.Str)
		for _, x := range strings.Split(s(a[0]), s(a[1])) {
			l.V = append(l.V, values.Str(x))
		}
		return l, nil
	}, funcs.Doc("Splits a str at every separator.", `strings.split("a,b,c", ",")`))
	funcs.Register("strings", "join_nonempty", "func(s []str, sep str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		var parts []string
		for _, x := range a[0].(*values.List).V {
			if v := s(x); v != "" {
				parts = append(parts, v)
			}
		}
		return values.Str(strings.Join(parts, s(a[1]))), nil
	}, funcs.Doc("Joins the non-empty strings of a list with a separator.", `strings.join_nonempty(["a", "", "b"], ",")`))
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
	funcs.Register("strings", "left_pad", "func(s str, pad str, len int) str", pad(true), funcs.Doc("Prepends pad to s until s is at least len bytes long.", `strings.left_pad("7", "0", 3)`))
	funcs.Register("strings", "right_pad", "func(s str, pad str, len int) str", pad(false), funcs.Doc("Appends pad to s until s is at least len bytes long.", `strings.right_pad("ab", ".", 5)`))
	funcs.Register("strings", "substr", "func(s str, low int, high int) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		str, lo, hi := s(a[0]), int(a[1].(values.Int)), int(a[2].(values.Int))
		if lo < 0 || hi > len(str) || lo > hi {
			return nil, funcs.Catchablef("substr [%d:%d] out of range for length %d", lo, hi, len(str))
		}
		return values.Str(str[lo:hi]), nil
	}, funcs.Doc("The bytes of s from low up to, not including, high; out of range is an error <|> can catch.", `strings.substr("hello", 1, 3)`))
}
