// Package mclcompile implements the mcl-compile tool: Compile an mcl program into a stream of resource graph documents.
package mclcompile

import (
	"context"
	"io"

	"github.com/mgmtpipe/mgmt/internal/cli"
)

const name = "mcl-compile"

type flags struct {
	cli.VersionFlag
}

// Run runs mcl-compile with args and its streams and returns the exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f flags
	if _, code, done := cli.Parse(name, "Compile an mcl program into a stream of resource graph documents.", &f, args, stdout, stderr); done {
		return code
	}
	return cli.NotImplemented(name, stderr)
}
