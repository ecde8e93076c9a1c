package puppet

// An Error is a positioned puppet-graph error.
type Error struct {
	Pos string // file:line[:col], may be empty
	Msg string
}

func (e *Error) Error() string {
	if e.Pos == "" {
		return e.Msg
	}
	return e.Pos + ": " + e.Msg
}
