// Package util holds the mcl module "util": hostname_mapper(m) picks the
// value of m for this host. It looks up the full hostname, then its first
// label (the short name), then the key "" as a default; with none of them
// present it is a catchable error, so `<|>` can supply a fallback.
package util

import (
	"context"
	"os"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func init() {
	if funcs.IsModule("util") {
		return // registered by another package already (the core's packages initialise first)
	}
	funcs.RegisterFunc(&funcs.Func{Module: "util", Name: "hostname_mapper", Sigs: funcs.Sigs("func(m map{str: str}) str"),
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			host := ""
			if c.Env != nil {
				host = c.Env.Hostname
			}
			if host == "" {
				h, err := os.Hostname()
				if err != nil {
					return nil, err
				}
				host = h
			}
			return Map(c.Args[0].(*values.Map), host)
		}, Doc: `The value of a map for this host: its full name, else its short name, else the key ""; none is an error <|> can catch.`, Example: `util.hostname_mapper({"web1" => "a", "" => "default"})`})
}

// Map returns the value of m for host (see the package comment).
func Map(m *values.Map, host string) (values.Value, error) {
	short, _, _ := strings.Cut(host, ".")
	for _, k := range []string{host, short, ""} {
		if v, ok := m.Lookup(values.Str(k)); ok {
			return v, nil
		}
	}
	return nil, funcs.Catchablef("hostname_mapper: no entry for host %q and no default", host)
}
