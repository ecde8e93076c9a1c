package mgmtcluster

import "github.com/mgmtpipe/mgmt/internal/cli"

// description is what --help says the tool does.
const description = `Run or query the embedded etcd cluster that holds the shared world.

With --debug, run logs etcd's own messages from level info up; without
it, only etcd's fatal ones.`

// Spec is the command line of the tool, for its manual page and
// completion.
func Spec() cli.Spec {
	return cli.Spec{Name: name, Description: description, Grammar: &flags{}}
}
