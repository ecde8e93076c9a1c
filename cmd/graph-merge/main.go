// Command graph-merge: Merge several graph document streams into one.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mgmtpipe/mgmt/pkg/tool/graphmerge"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := graphmerge.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
