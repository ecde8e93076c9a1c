// Command mcl-compile: Compile an mcl program into a stream of resource graph documents.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mgmtpipe/mgmt/pkg/tool/mclcompile"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := mclcompile.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
