package mgmtapply

import (
	"fmt"
	"sync"
	"time"

	"github.com/mgmtpipe/mgmt/internal/cli"
	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// statusLoop refreshes the live status line (converged/total, running,
// failed) every 200 ms when the log goes to a terminal; the returned
// function stops it and clears the line.
func statusLoop(lg *cli.Logger, e *engine.Engine) func() {
	if !lg.Terminal() {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			st := e.Status()
			lg.SetStatus(fmt.Sprintf("[%d/%d converged, %d running, %d failed]", st.Converged, st.Total, st.Running, st.Failed))
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		lg.SetStatus("")
	}
}
