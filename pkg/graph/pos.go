package graph

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A Position is a place in an input stream: a file (or stream) name, a line
// and a column, both counted from 1. A zero Line means the position is
// unknown; a zero Col means only the line is known.
type Position struct {
	File string
	Line int
	Col  int
}

// IsValid reports whether p names at least a line.
func (p Position) IsValid() bool { return p.Line > 0 }

// String returns p as FILE:LINE:COL, FILE:LINE, or FILE when no line is
// known; "" for the zero Position.
func (p Position) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		if b.Len() > 0 {
			b.WriteByte(':')
		}
		b.WriteString(strconv.Itoa(p.Line))
		if p.Col > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(p.Col))
		}
	}
	return b.String()
}

// ParsePosition reads a position written by Position.String: FILE:LINE:COL
// or FILE:LINE (the file name may hold colons). It reports false when s
// names no line.
func ParsePosition(s string) (Position, bool) {
	num := func(t string) int {
		n, err := strconv.Atoi(t)
		if err != nil || n <= 0 || strconv.Itoa(n) != t {
			return 0
		}
		return n
	}
	rest, last, found := cutLast(s)
	if !found || num(last) == 0 {
		return Position{}, false
	}
	if file, line, ok := cutLast(rest); ok && num(line) > 0 {
		return Position{File: file, Line: num(line), Col: num(last)}, true
	}
	return Position{File: rest, Line: num(last)}, true
}

// cutLast cuts s around its last colon.
func cutLast(s string) (before, after string, found bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return "", s, s != ""
	}
	return s[:i], s[i+1:], true
}

// A Stage names the stage of a tool that found an error, printed as
// "POS: STAGE error: MSG". The compilers have four (syntax, scope, type,
// runtime); mgmt-apply reports what it refuses in a graph as runtime
// errors, the stage mcl-compile gives the validation of its output. The
// empty Stage is none: the error prints as "POS: MSG".
type Stage string

// The stages, in the order a compiler runs them.
const (
	StageSyntax  Stage = "syntax"  // lexing, parsing, string interpolation
	StageScope   Stage = "scope"   // unknown or duplicate names, imports
	StageType    Stage = "type"    // unification
	StageRuntime Stage = "runtime" // evaluation, output, graph validation
)

// A PosError is one error with the position it is about. It is the one
// error shape of every stage of every tool: the decoders, Validate and
// Merge, the mcl parser and checker, the engine's preparation of a graph.
type PosError struct {
	Pos   string // FILE:LINE:COL, or "" when unknown
	Stage Stage  // "" when the error belongs to no stage
	Msg   string
}

// Errorf returns the error of stage at pos.
func Errorf(pos string, stage Stage, format string, args ...any) *PosError {
	return &PosError{Pos: pos, Stage: stage, Msg: fmt.Sprintf(format, args...)}
}

// Error returns "POS: STAGE error: MSG", leaving out the position or the
// stage when it is unknown, on one line: made Printable, since the
// message may quote names from the input.
func (e *PosError) Error() string {
	s := e.Msg
	if e.Stage != "" {
		s = string(e.Stage) + " error: " + s
	}
	if e.Pos != "" {
		s = e.Pos + ": " + s
	}
	return Printable(s)
}

// Doc returns e as the payload of an error document: the message, with
// its stage, and the position.
func (e *PosError) Doc() *Error {
	msg := e.Msg
	if e.Stage != "" {
		msg = string(e.Stage) + " error: " + msg
	}
	return &Error{Message: msg, Pos: e.Pos}
}

// Err returns the payload of an error document as the error it reports
// (its stage, if any, stays part of the message).
func (e *Error) Err() *PosError { return &PosError{Pos: e.Pos, Msg: e.Message} }

// An ErrorList is a list of positioned errors, in the order they were found.
// Every stage that reports errors returns one (as error) when something is
// wrong, with all the errors it found; each entry prints on its own line.
type ErrorList []*PosError

// Add appends an error at pos, of no stage.
func (l *ErrorList) Add(pos string, format string, args ...any) {
	*l = append(*l, &PosError{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// MaxStageErrors is the number of errors a compiler stage (parsing, type
// checking) reports before it stops: one mistake often causes others, and
// the first ones are those worth reading.
const MaxStageErrors = 10

// Append adds e to l and reports whether the stage that found it may look
// for more. Once l holds MaxStageErrors errors, the next one is replaced by
// "too many errors" at its position, and Append returns false (then and
// after, adding nothing).
func (l *ErrorList) Append(e *PosError) bool {
	switch n := len(*l); {
	case n < MaxStageErrors:
		*l = append(*l, e)
		return true
	case n == MaxStageErrors:
		*l = append(*l, &PosError{Pos: e.Pos, Stage: e.Stage, Msg: "too many errors"})
	}
	return false
}

// MaxListed is the number of errors of a list that are printed; the
// others are only counted, so that a document with a million bad edges is
// reported in a moment and in a screenful.
const MaxListed = 100

// Error returns the errors one per line: the first MaxListed, then
// "... and N more errors".
func (l ErrorList) Error() string {
	if len(l) == 0 {
		return "no errors"
	}
	var b strings.Builder
	for i, e := range l {
		if i == MaxListed {
			fmt.Fprintf(&b, "\n... and %d more errors", len(l)-i)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Err returns l as an error, or nil when l is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// AsList returns the positioned errors err holds, when it is a *PosError
// or an ErrorList (wrapped or not): an error about the input. It returns
// false for any other error, such as a failure to read the input.
func AsList(err error) (ErrorList, bool) {
	var l ErrorList
	if errors.As(err, &l) {
		return l, true
	}
	var e *PosError
	if errors.As(err, &e) {
		return ErrorList{e}, true
	}
	return nil, false
}

// WithStage returns err as an ErrorList whose errors without a stage
// belong to stage s; an error that is not positioned becomes one without
// a position. The errors are copied, not changed.
func WithStage(err error, s Stage) error {
	if err == nil {
		return nil
	}
	l, ok := AsList(err)
	if !ok {
		return ErrorList{{Stage: s, Msg: err.Error()}}
	}
	out := make(ErrorList, len(l))
	for i, e := range l {
		c := *e
		if c.Stage == "" {
			c.Stage = s
		}
		out[i] = &c
	}
	return out
}

// ErrorDoc returns the payload of an error document summing up err: the
// first error's message and position, with a count of the others.
func ErrorDoc(err error) *Error {
	l, ok := AsList(err)
	if !ok {
		return &Error{Message: err.Error()}
	}
	if len(l) == 0 {
		return &Error{Message: "no errors"}
	}
	out := l[0].Doc()
	if len(l) > 1 {
		out.Message += fmt.Sprintf(" (and %d more errors)", len(l)-1)
	}
	return out
}
