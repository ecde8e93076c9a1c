// Command mgmt-apply: Run the reactive engine on the graph documents read from stdin.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mgmtpipe/mgmt/internal/tool/mgmtapply"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := mgmtapply.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
