package sem

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
)

// Stage names the compiler stage an error belongs to.
type Stage string

// The stages, as printed in "FILE:LINE:COL: STAGE error: message".
const (
	StageSyntax  Stage = "syntax"
	StageScope   Stage = "scope"
	StageType    Stage = "type"
	StageRuntime Stage = "runtime"
)

// An Error is a positioned compiler error of one stage.
type Error struct {
	Pos   ast.Pos
	Stage Stage
	Msg   string
}

func (e *Error) Error() string {
	if e.Pos.Line == 0 {
		return fmt.Sprintf("%s error: %s", e.Stage, e.Msg)
	}
	return fmt.Sprintf("%s: %s error: %s", e.Pos, e.Stage, e.Msg)
}

func errAt(pos ast.Pos, stage Stage, format string, args ...any) *Error {
	return &Error{Pos: pos, Stage: stage, Msg: fmt.Sprintf(format, args...)}
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

func (s Stage) String() string { return string(s) }
