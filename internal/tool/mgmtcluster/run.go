// Package mgmtcluster implements the mgmt-cluster tool: Run or query the embedded etcd cluster that holds the shared world.
package mgmtcluster

import (
	"context"
	"io"

	"github.com/mgmtpipe/mgmt/internal/cli"
)

const name = "mgmt-cluster"

type flags struct {
	cli.VersionFlag
}

// Run runs mgmt-cluster with args and its streams and returns the exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f flags
	if _, code, done := cli.Parse(name, "Run or query the embedded etcd cluster that holds the shared world.", &f, args, stdout, stderr); done {
		return code
	}
	return cli.NotImplemented(name, stderr)
}
