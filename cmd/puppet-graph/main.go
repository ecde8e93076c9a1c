// Command puppet-graph: Translate Puppet manifests or catalogs into resource graph documents.
package main

import (
	"context"
	"os"

	"github.com/mgmtpipe/mgmt/internal/cli"
	"github.com/mgmtpipe/mgmt/pkg/tool/puppetgraph"
)

func main() {
	ctx, stop := cli.SignalContext(context.Background())
	code := puppetgraph.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
