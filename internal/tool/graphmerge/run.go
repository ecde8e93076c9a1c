// Package graphmerge implements the graph-merge tool: Merge several graph document streams into one.
package graphmerge

import (
	"context"
	"io"

	"github.com/mgmtpipe/mgmt/internal/cli"
)

const name = "graph-merge"

type flags struct {
	cli.VersionFlag
}

// Run runs graph-merge with args and its streams and returns the exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f flags
	if _, code, done := cli.Parse(name, "Merge several graph document streams into one.", &f, args, stdout, stderr); done {
		return code
	}
	return cli.NotImplemented(name, stderr)
}
