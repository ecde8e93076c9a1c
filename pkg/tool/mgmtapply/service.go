package mgmtapply

import (
	"fmt"
	"os"

	"github.com/mgmtpipe/mgmt/internal/cli"
	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// notifyLoaded tells the service manager, if any, that the engine enforces g:
// the tool is ready (the first time: systemd's start job ends here) and
// its status line names the graph.
func notifyLoaded(g *engine.Graph) {
	cli.Notify("READY=1", fmt.Sprintf("STATUS=enforcing graph %q seq %d", g.Name, g.Seq))
}

// reloadOnHangup handles SIGHUP, a service manager's reload, until the
// returned function is called (which waits for a reload in progress): with
// --file, it reads the file again from its start and loads each graph it
// holds, as at start; from stdin there is nothing to read again (a
// producer that reloads, such as mcl-compile, sends its new graph down the
// same pipe), which it logs.
func reloadOnHangup(path string, read func(in *os.File), lg *cli.Logger) func() {
	return cli.OnHangup(func() {
		if path == "" || path == "-" {
			lg.Infof("SIGHUP: the input is stdin: nothing to read again")
			return
		}
		fh, err := os.Open(path)
		if err != nil {
			lg.Errorf("SIGHUP: %v (keeping the last good graph)", err)
			return
		}
		defer fh.Close()
		cli.Notify("RELOADING=1")
		lg.Infof("SIGHUP: reading %s again", path)
		read(fh)
		cli.Notify("READY=1")
	})
}
