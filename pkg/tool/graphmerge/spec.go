package graphmerge

import "github.com/mgmtpipe/mgmt/internal/cli"

// Spec is the command line of the tool, for its manual page and
// completion.
func Spec() cli.Spec {
	return cli.Spec{Name: name, Description: description, Grammar: &flags{}}
}
