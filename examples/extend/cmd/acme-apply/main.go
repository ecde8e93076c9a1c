// Command acme-apply is mgmt-apply with the acme:stamp resource kind.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	_ "example.com/acme/stamp" // the acme:stamp kind and the acme functions
	"github.com/mgmtpipe/mgmt/pkg/tool/mgmtapply"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := mgmtapply.RunToExit(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
