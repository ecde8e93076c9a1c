// Command mgmt-apply: Run the reactive engine on the graph documents read from stdin.
package main

import (
	"context"
	"os"

	"github.com/mgmtpipe/mgmt/internal/cli"
	"github.com/mgmtpipe/mgmt/pkg/tool/mgmtapply"
)

func main() {
	ctx, stop := cli.SignalContext(context.Background())
	code := mgmtapply.RunToExit(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
