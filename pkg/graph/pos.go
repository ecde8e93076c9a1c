package graph

import (
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

// A PosError is one error with the position it is about.
type PosError struct {
	Pos string // FILE:LINE:COL, or "" when unknown
	Msg string
}

// Error returns "POS: MSG", or MSG when the position is unknown, on one
// line: made Printable, since both may quote names from the input.
func (e *PosError) Error() string {
	if e.Pos == "" {
		return Printable(e.Msg)
	}
	return Printable(e.Pos + ": " + e.Msg)
}

// Doc returns e as the payload of an error document.
func (e *PosError) Doc() *Error { return &Error{Message: e.Msg, Pos: e.Pos} }

// An ErrorList is a list of positioned errors, in the order they were found.
// Validate, the Decoder and Merge return one (as error) when something is
// wrong; each entry prints on its own line.
type ErrorList []*PosError

// Add appends an error at pos.
func (l *ErrorList) Add(pos string, format string, args ...any) {
	*l = append(*l, &PosError{Pos: pos, Msg: fmt.Sprintf(format, args...)})
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
	return l.Format((*PosError).Error, "\n")
}

// Format returns the first MaxListed errors, each formatted by f, joined
// by sep, and then, when there are more, "... and N more errors".
func (l ErrorList) Format(f func(*PosError) string, sep string) string {
	var b strings.Builder
	for i, e := range l {
		if i == MaxListed {
			fmt.Fprintf(&b, "%s... and %d more errors", sep, len(l)-i)
			break
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(f(e))
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

// ErrorDoc returns the payload of an error document summing up err: the
// first error's message and position, with a count of the others.
func ErrorDoc(err error) *Error {
	var first *PosError
	more := 0
	switch e := err.(type) {
	case ErrorList:
		if len(e) == 0 {
			return &Error{Message: "no errors"}
		}
		first, more = e[0], len(e)-1
	case *PosError:
		first = e
	default:
		return &Error{Message: err.Error()}
	}
	out := first.Doc()
	if more > 0 {
		out.Message += fmt.Sprintf(" (and %d more errors)", more)
	}
	return out
}
