package engine

import "errors"

// Hooks are the calls a resource makes to the engine through its Init
// handle; each method of Init with the same name says what it does.
type Hooks interface {
	Running()
	Event()
	Refresh() bool
	UpstreamPending() bool
	Send(st any) error
	Recv() map[string]*Send
	VarDir(path string) (string, error)
	Logf(format string, v ...any)
	Report(c Change)
	WantsText() bool
}

// hooks returns the Hooks of i, an empty Funcs when it has none.
func (i *Init) hooks() Hooks {
	if i.Hooks == nil {
		return noHooks
	}
	return i.Hooks
}

var noHooks = &Funcs{}

// ErrNoVarDir is the error of Init.VarDir when the handle has no
// directories to give.
var ErrNoVarDir = errors.New("no state directory")

// Funcs are Hooks made of functions, for an Init built by hand. A nil
// function passes the call to Base when it is set, and otherwise does
// the default: nothing (Running, Event, Send, Logf), false (Refresh,
// UpstreamPending), nil (Recv), ErrNoVarDir (VarDir), true (WantsText),
// and a Logf line (Report).
type Funcs struct {
	// Base answers the calls whose function is nil, when set: a resource
	// run inside another one passes on its owner's Hooks.
	Base Hooks

	RunningFunc         func()
	EventFunc           func()
	RefreshFunc         func() bool
	UpstreamPendingFunc func() bool
	SendFunc            func(st any) error
	RecvFunc            func() map[string]*Send
	VarDirFunc          func(path string) (string, error)
	LogfFunc            func(format string, v ...any)
	ReportFunc          func(c Change)
	WantsTextFunc       func() bool
}

// Running calls RunningFunc.
func (f *Funcs) Running() {
	switch {
	case f.RunningFunc != nil:
		f.RunningFunc()
	case f.Base != nil:
		f.Base.Running()
	}
}

// Event calls EventFunc.
func (f *Funcs) Event() {
	switch {
	case f.EventFunc != nil:
		f.EventFunc()
	case f.Base != nil:
		f.Base.Event()
	}
}

// Refresh calls RefreshFunc.
func (f *Funcs) Refresh() bool {
	switch {
	case f.RefreshFunc != nil:
		return f.RefreshFunc()
	case f.Base != nil:
		return f.Base.Refresh()
	}
	return false
}

// UpstreamPending calls UpstreamPendingFunc.
func (f *Funcs) UpstreamPending() bool {
	switch {
	case f.UpstreamPendingFunc != nil:
		return f.UpstreamPendingFunc()
	case f.Base != nil:
		return f.Base.UpstreamPending()
	}
	return false
}

// Send calls SendFunc.
func (f *Funcs) Send(st any) error {
	switch {
	case f.SendFunc != nil:
		return f.SendFunc(st)
	case f.Base != nil:
		return f.Base.Send(st)
	}
	return nil
}

// Recv calls RecvFunc.
func (f *Funcs) Recv() map[string]*Send {
	switch {
	case f.RecvFunc != nil:
		return f.RecvFunc()
	case f.Base != nil:
		return f.Base.Recv()
	}
	return nil
}

// VarDir calls VarDirFunc.
func (f *Funcs) VarDir(path string) (string, error) {
	switch {
	case f.VarDirFunc != nil:
		return f.VarDirFunc(path)
	case f.Base != nil:
		return f.Base.VarDir(path)
	}
	return "", ErrNoVarDir
}

// Logf calls LogfFunc.
func (f *Funcs) Logf(format string, v ...any) {
	switch {
	case f.LogfFunc != nil:
		f.LogfFunc(format, v...)
	case f.Base != nil:
		f.Base.Logf(format, v...)
	}
}

// Report calls ReportFunc, or logs the change with Logf.
func (f *Funcs) Report(c Change) {
	switch {
	case f.ReportFunc != nil:
		f.ReportFunc(c)
	case f.Base != nil:
		f.Base.Report(c)
	default:
		f.Logf("%s", c.String())
	}
}

// WantsText calls WantsTextFunc.
func (f *Funcs) WantsText() bool {
	switch {
	case f.WantsTextFunc != nil:
		return f.WantsTextFunc()
	case f.Base != nil:
		return f.Base.WantsText()
	}
	return true
}

// takesReports reports whether f, or the Hooks it passes Report on to,
// takes reports.
func (f *Funcs) takesReports() bool {
	switch {
	case f.ReportFunc != nil:
		return true
	case f.Base != nil:
		return hooksTakeReports(f.Base)
	}
	return false
}

func hooksTakeReports(h Hooks) bool {
	if f, ok := h.(*Funcs); ok {
		return f.takesReports()
	}
	return h != nil
}

// TakesReports reports whether the Init of a resource takes structured
// reports (Report); a handle that does not (built by hand without a
// ReportFunc) logs them as Logf lines, so a kind that says several things
// at once may join them into one line instead.
func TakesReports(init *Init) bool {
	return init != nil && hooksTakeReports(init.Hooks)
}
