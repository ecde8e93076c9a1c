// Command mgmt-cluster: Run or query the embedded etcd cluster that holds the shared world.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mgmtpipe/mgmt/pkg/tool/mgmtcluster"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := mgmtcluster.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
