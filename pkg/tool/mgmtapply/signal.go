package mgmtapply

import (
	"context"

	"github.com/mgmtpipe/mgmt/internal/cli"
	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// exitCodes is the part of --help about the exit codes (the README says
// the same).
const exitCodes = `Exit codes: 0 on success: converged with nothing failed (--converged-timeout),
--max-runtime reached, or stopped by a signal while everything was converged
and nothing had failed. 1 when a resource failed for good (--converged-timeout),
when the input ended without any valid graph, or on another error; 2 for a
usage error. 130 for SIGINT and 143 for SIGTERM (128 plus the signal's number,
as shells report it) when the signal stopped a graph not converged (changes in
progress) or with a failed resource. With --detailed-exitcodes, a run that
ends normally exits as Puppet's do instead: 0 nothing changed (with --noop:
nothing would change), 2 changes, 4 failures, 6 both.`

// stopped logs why the run stops on a signal and returns its exit code.
// A signal that finds the graph converged, nothing failed, stops a run
// that had done its work: 0, as a graceful stop of a service should be. A
// signal that interrupts changes in progress (or a graph that never got
// valid, or one with failed resources) gives 128 plus the signal's number,
// so that scripts and service managers see that the run did not finish.
func stopped(ctx context.Context, eng *engine.Engine, lg *cli.Logger) int {
	sig, ok := cli.Signaled(ctx)
	if !ok {
		lg.Infof("interrupted: stopping")
		return cli.ExitFail
	}
	if eng != nil {
		if st := eng.Status(); st.Loaded && !st.Since.IsZero() && st.Failed == 0 {
			lg.Infof("%v: stopping (everything was converged)", sig)
			return cli.ExitOK
		}
	}
	code := cli.ExitSignal(sig)
	lg.Infof("%v: stopping before convergence (exit %d)", sig, code)
	return code
}
