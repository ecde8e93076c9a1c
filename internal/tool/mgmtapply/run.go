// Package mgmtapply implements the mgmt-apply tool: Run the reactive engine on the graph documents read from stdin.
package mgmtapply

import (
	"context"
	"io"

	"github.com/mgmtpipe/mgmt/internal/cli"
)

const name = "mgmt-apply"

type flags struct {
	cli.VersionFlag
}

// Run runs mgmt-apply with args and its streams and returns the exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f flags
	if _, code, done := cli.Parse(name, "Run the reactive engine on the graph documents read from stdin.", &f, args, stdout, stderr); done {
		return code
	}
	return cli.NotImplemented(name, stderr)
}
