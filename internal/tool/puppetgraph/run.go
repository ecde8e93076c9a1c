// Package puppetgraph implements the puppet-graph tool: Translate Puppet manifests or catalogs into resource graph documents.
package puppetgraph

import (
	"context"
	"io"

	"github.com/mgmtpipe/mgmt/internal/cli"
)

const name = "puppet-graph"

type flags struct {
	cli.VersionFlag
}

// Run runs puppet-graph with args and its streams and returns the exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f flags
	if _, code, done := cli.Parse(name, "Translate Puppet manifests or catalogs into resource graph documents.", &f, args, stdout, stderr); done {
		return code
	}
	return cli.NotImplemented(name, stderr)
}
