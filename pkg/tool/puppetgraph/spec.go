package puppetgraph

import "github.com/mgmtpipe/mgmt/internal/cli"

// description is what --help says the tool does.
const description = "Translate Puppet manifests or catalogs into resource graph documents."

// Spec is the command line of the tool, for its manual page and
// completion.
func Spec() cli.Spec {
	return cli.Spec{Name: name, Description: description, Grammar: &flags{}}
}
