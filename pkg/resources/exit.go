package resources

import (
	"context"
	"fmt"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("exit", func() engine.Res { return &ExitRes{} })
}

// maxExitCode is the largest code an exit resource may ask for: above it,
// shells give codes their own meanings (126 and 127: a command that could
// not run, 128+N: killed by signal N).
const maxExitCode = 125

// reservedExitCodes are the codes mgmt-apply gives its own outcomes: 1 an
// error or a failed resource, 2 a usage error, and with
// --detailed-exitcodes 2 changes, 4 failures and 6 both. An exit resource
// may not ask for them, so that a caller can tell its request from them.
var reservedExitCodes = map[int]string{
	1: "an error or a failed resource",
	2: "a usage error, or changes with --detailed-exitcodes",
	4: "failures with --detailed-exitcodes",
	6: "changes and failures with --detailed-exitcodes",
}

// ExitRes makes the program running the engine stop, after a clean
// shutdown, with an exit code. See the package documentation.
type ExitRes struct {
	traits.Base
	traits.Stateless

	init  *engine.Init
	asked bool // a CheckApply with apply asked to exit

	// Code is the exit code, 0 to 125, except the codes mgmt-apply gives
	// its own outcomes (1, 2, 4 and 6).
	Code int `lang:"code" yaml:"code"`
}

// Default returns an exit resource.
func (x *ExitRes) Default() engine.Res { return &ExitRes{} }

// Validate checks the code.
func (x *ExitRes) Validate() error {
	if x.Code < 0 || x.Code > maxExitCode {
		return fmt.Errorf("code %d must be between 0 and %d", x.Code, maxExitCode)
	}
	if why, ok := reservedExitCodes[x.Code]; ok {
		return fmt.Errorf("code %d is what mgmt-apply exits with on %s: choose 0, 3, 5, or 7 to %d", x.Code, why, maxExitCode)
	}
	return nil
}

// Init keeps the handle.
func (x *ExitRes) Init(init *engine.Init) error {
	x.init = init
	return nil
}

// Cleanup does nothing.
func (x *ExitRes) Cleanup() error { return nil }

// Watch has nothing to follow.
func (x *ExitRes) Watch(ctx context.Context) error {
	x.init.Running()
	<-ctx.Done()
	return nil
}

// CheckApply asks the program to exit with the code. Without apply (noop)
// it only reports that it would.
func (x *ExitRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	if !apply {
		return false, nil
	}
	if x.init == nil || x.init.Exit == nil {
		return false, fmt.Errorf("this program cannot be asked to exit")
	}
	x.init.Logf("asking %s to exit with code %d", x.init.Program, x.Code)
	x.asked = true
	return false, nil
}

// ExitAsked reports the code once a CheckApply has asked for it: the
// engine forwards it to the program after logging and counting that
// CheckApply, so the log and the summary show the request.
func (x *ExitRes) ExitAsked() (int, bool) { return x.Code, x.asked }

// Collectable reports false: an exit resource from another host would let
// that host stop this one's engine.
func (x *ExitRes) Collectable() bool { return false }

// Cmp compares two exit resources.
func (x *ExitRes) Cmp(r engine.Res) error {
	return cmpParams(x, r)
}
