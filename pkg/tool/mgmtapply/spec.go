package mgmtapply

import "github.com/mgmtpipe/mgmt/internal/cli"

// description is what --help says the tool does.
const description = "Run the reactive engine on the graph documents read from stdin.\n\n" + exitCodes

// Spec is the command line of the tool, for its manual page and
// completion.
func Spec() cli.Spec {
	return cli.Spec{Name: name, Description: description, Grammar: &flags{}}
}
