package sem

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
)

// The stages of the compiler, as printed in "FILE:LINE:COL: STAGE error:
// message"; every error of Check and Run is a *graph.PosError of one.
const (
	StageSyntax  = graph.StageSyntax
	StageScope   = graph.StageScope
	StageType    = graph.StageType
	StageRuntime = graph.StageRuntime
)

// errAt returns the error of stage at pos (a zero pos is unknown).
func errAt(pos ast.Pos, stage graph.Stage, format string, args ...any) *graph.PosError {
	return graph.Errorf(posString(pos), stage, format, args...)
}

// posString returns pos as FILE:LINE:COL, or "" when it names no line.
func posString(pos ast.Pos) string {
	if pos.Line == 0 {
		return ""
	}
	return pos.String()
}

// suggest returns ` (did you mean "x"?)` for the closest of names to name.
func suggest(name string, names []string) string {
	best, bestD := "", 1<<30
	sort.Strings(names)
	for _, n := range names {
		if strings.HasPrefix(n, "_") {
			continue
		}
		d := graph.EditDistance(name, n)
		if d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" || bestD > len(name)/2+1 {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}
