// Command puppet-graph: Translate Puppet manifests or catalogs into resource graph documents.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mgmtpipe/mgmt/pkg/tool/puppetgraph"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := puppetgraph.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
