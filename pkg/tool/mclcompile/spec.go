package mclcompile

import "github.com/mgmtpipe/mgmt/internal/cli"

// description is what --help says the tool does.
const description = "Compile an mcl program into a stream of resource graph documents."

// Spec is the command line of the tool, for its manual page and
// completion.
func Spec() cli.Spec {
	return cli.Spec{Name: name, Description: description, Grammar: &flags{}}
}
