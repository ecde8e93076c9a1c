// Package sys adds to the mcl module "sys" (the rest is in coresys):
// hostname, streamed. It emits the kernel's hostname now and again each
// time it may have changed: when the kernel flags the sysctl
// /proc/sys/kernel/hostname (poll with POLLPRI, on every sethostname in
// the UTS namespace) and when /etc/hostname changes (watched through
// fswatch; hostnamectl and the hostname resource write it). Both files are
// read under funcs.Env.Root. A hostname given to the compiler
// (funcs.Env.Hostname) that differs from the kernel's wins: it is emitted
// once and the stream closes. The stream ends only after the two watching
// goroutines it starts have.
package sys

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/mgmtpipe/mgmt/internal/fswatch"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"

	// Registers the other sys functions first, so the check below sees
	// whether the core ever takes over hostname.
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coresys"
)

// hostnameFile is the file whose changes make hostname re-read.
const hostnameFile = "/etc/hostname"

func init() {
	if _, dup := funcs.Lookup("sys", "hostname"); !dup {
		funcs.RegisterStream("sys", "hostname", "func() str", hostname, funcs.Doc("The host's name, following changes.", "sys.hostname()"))
	}
}

func hostname(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
	if c.Env != nil && c.Env.Hostname != "" {
		if h, err := os.Hostname(); err != nil || h != c.Env.Hostname {
			emit(values.Str(c.Env.Hostname))
			return nil
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	changed := make(chan struct{}, 1)
	errc := make(chan error, 2)
	wg.Go(func() { errc <- notifySysctl(ctx, c.Env.HostPath(kernelHostname), changed) })
	wg.Go(func() {
		errc <- fswatch.Follow(ctx, c.Env.HostPath(hostnameFile), func() error {
			select {
			case changed <- struct{}{}:
			default:
			}
			return nil
		})
	})
	for {
		h, err := os.Hostname()
		if err != nil {
			return err
		}
		emit(values.Str(h))
		select {
		case <-ctx.Done():
			return nil
		case err := <-errc:
			if err != nil && ctx.Err() == nil {
				return fmt.Errorf("sys.hostname: %v", err)
			}
			if ctx.Err() != nil {
				return nil
			}
		case <-changed:
		}
	}
}
