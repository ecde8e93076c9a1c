// Package sys adds to the mcl module "sys" (the rest is in coresys):
// hostname, streamed. It emits the kernel's hostname now and again each
// time /etc/hostname changes (hostnamectl and the hostname resource write
// it; the file is watched through fswatch). A hostname given to the
// compiler (funcs.Env.Hostname) that differs from the kernel's wins: it is
// emitted once and the stream closes.
package sys

import (
	"context"
	"os"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs/library/fswatch"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"

	// Registers the other sys functions first, so the check below sees
	// whether the core ever takes over hostname.
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coresys"
)

// hostnameFile is the file whose changes make hostname re-read.
var hostnameFile = "/etc/hostname"

func init() {
	if _, dup := funcs.Lookup("sys", "hostname"); !dup {
		funcs.RegisterStream("sys", "hostname", "func() str", hostname)
	}
}

func hostname(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
	if c.Env != nil && c.Env.Hostname != "" {
		if h, err := os.Hostname(); err != nil || h != c.Env.Hostname {
			emit(values.Str(c.Env.Hostname))
			return nil
		}
	}
	return fswatch.Watch(ctx, hostnameFile, func() error {
		h, err := os.Hostname()
		if err != nil {
			return err
		}
		emit(values.Str(h))
		return nil
	})
}
