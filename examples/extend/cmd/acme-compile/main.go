// Command acme-compile is mcl-compile with the acme:stamp resource kind and
// the acme functions.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	_ "example.com/acme/stamp" // the acme:stamp kind and the acme functions
	"github.com/mgmtpipe/mgmt/pkg/tool/mclcompile"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := mclcompile.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
