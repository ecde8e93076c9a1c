package engine

import (
	"context"
	"log/slog"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
)

// MetaParams are the metaparameters of a resource, as the graph document
// carries them (see graph.Meta for units and defaults).
type MetaParams = graph.Meta

// A Res is a resource: one vertex of the graph that watches its own state and
// repairs it. Embedding traits.Base provides the Kind, Name and MetaParams
// methods; the kind implements the rest.
type Res interface {
	Kind() string
	Name() string
	SetKind(string)
	SetName(string)
	MetaParams() *MetaParams
	SetMetaParams(*MetaParams)
	String() string // kind[name]

	// Default returns a new resource of this kind holding its defaults.
	Default() Res
	// Validate reports problems in the parameters. It must not touch the
	// system; it runs before Init and again after values are received.
	Validate() error
	// Init prepares the resource and keeps the Init handle. It returns
	// without waiting on anything outside the resource: the engine runs
	// the Init calls of a graph a few at a time (waiting belongs in Watch
	// or CheckApply, which take a context).
	Init(*Init) error
	// Cleanup releases what Init set up. It runs after Watch has ended.
	Cleanup() error
	// Watch runs until ctx is done, calling Init.Running once it is ready
	// and Init.Event whenever the managed state may have changed. A Watch
	// that a kernel limit keeps from starting returns an error with a
	// WatchLimit() string method naming the limit: the engine then polls
	// the resource instead of failing it.
	Watch(ctx context.Context) error
	// CheckApply checks the state and, when apply is true, repairs it. It
	// returns (true, nil) when the state was already right and (false, nil)
	// after a repair (or, with apply false, when a repair is needed).
	CheckApply(ctx context.Context, apply bool) (checkOK bool, err error)
	// Cmp returns nil when r is equivalent to the receiver, or an error
	// saying what differs.
	Cmp(r Res) error
}

// Exiter is a resource whose CheckApply may ask the program running the
// engine to stop (the exit kind). After a CheckApply of it that changed
// something has been logged and counted, the engine reads ExitAsked and
// passes a code it reports on to Config.Exit, so that the program never
// stops before the request shows in its log and summary.
type Exiter interface {
	ExitAsked() (code int, asked bool)
}

// Init is the handle the engine gives a resource in Init. Its values are
// the engine's; what the resource calls back (Running, Event, Logf, ...)
// goes through its Hooks, which the engine implements once per resource
// without allocating a function for each call: a graph of 100,000
// resources holds 100,000 of these handles, of 40 bytes each, and the
// values that are the same for all of them (its Env) once. A handle
// built by hand, in a test or for a resource run inside another one, sets
// Hooks to a Funcs (a nil Hooks gives every call its default, as an empty
// Funcs does) and its Env (never nil for a resource to read: an empty Env
// for none of its values).
type Init struct {
	// Env holds the values of the engine, the same for all its resources:
	// init.Prefix, init.World, ... are its fields.
	*Env

	// Hooks receives the calls of the methods below (Running, Event,
	// Refresh, UpstreamPending, Send, Recv, VarDir, Logf, Report,
	// WantsText).
	Hooks Hooks

	// Log is the resource's structured logger: its messages are written
	// after the resource's kind[name], at their level, with their
	// attributes (a value of several lines, such as a command's output,
	// below the line in the text form). It does not say what changed:
	// Logf and Report do.
	Log *slog.Logger

	// Reversal is set when the resource runs as the saved reversal of a
	// resource that left the graph (Meta:reverse): it may then read what
	// that resource kept in VarDir(ReverseVarDir).
	Reversal bool
}

// An Env is what the Init handles of an engine's resources share: one for
// all of them.
type Env struct {
	Program  string // name of the program running the engine
	Version  string
	Hostname string // this host's name in the world

	// World is the shared world, or nil when the tool runs without one.
	World World
	// Prefix is the engine's state directory (--prefix).
	Prefix string
	// Exit asks the program running the engine to stop with the given
	// exit code once the engine has shut down cleanly; nil when the
	// program offers no such thing (Config.Exit). It does not block, and
	// the program may stop before the engine logs the CheckApply that
	// called it: a kind whose CheckApply asks to exit implements Exiter.
	Exit func(code int)
	// Graph returns the resources of the graph the engine runs now: every
	// vertex, the members of a group and the resource itself included,
	// the saved reversals of removed resources too. A resource that must
	// leave alone what others manage (a purging directory) reads it in
	// CheckApply. The slice is shared: it must not be changed.
	Graph func() []Res

	// Debug is set when the engine logs at debug level.
	Debug bool
}

// Running is called once from Watch when the watch is established.
func (i *Init) Running() { i.hooks().Running() }

// Event is called from Watch when the state may have changed.
func (i *Init) Event() { i.hooks().Event() }

// Refresh reports, inside CheckApply, whether a notification arrived
// (Refreshable resources only).
func (i *Init) Refresh() bool { return i.hooks().Refresh() }

// UpstreamPending reports, inside a CheckApply that does not apply
// (noop), whether a resource this one depends on, directly or through
// others, found a change it did not make. What this one checks may then
// not exist yet (the unit of a package that would be installed), which is
// no failure of a noop run.
func (i *Init) UpstreamPending() bool { return i.hooks().UpstreamPending() }

// Send publishes the values of a Sendable resource, from CheckApply. The
// argument is a pointer to the struct returned by Sends. Without an
// engine to send to, it does nothing.
func (i *Init) Send(st any) error { return i.hooks().Send(st) }

// Recv returns, inside CheckApply, the received parameters of a Recvable
// resource keyed by parameter name.
func (i *Init) Recv() map[string]*Send { return i.hooks().Recv() }

// VarDir returns a directory private to this resource for the given sub
// path, creating it if needed; ReverseVarDir is reserved for reversal
// state. Without one it returns an error that is ErrNoVarDir.
func (i *Init) VarDir(path string) (string, error) { return i.hooks().VarDir(path) }

// Logf logs a line. Inside CheckApply, the lines it logs say what the
// call changed (or, with apply false, would change): the engine writes
// them after "changed:" or "would change:". Elsewhere they are logged at
// info level, after the resource's kind[name].
func (i *Init) Logf(format string, v ...any) { i.hooks().Logf(format, v...) }

// Report, inside CheckApply, says one thing the call changed or, with
// apply false, would change, in a structured way: the engine writes it
// like a line of Logf ("mode 0644 -> 0600"), shows the diff of a text
// change in noop runs, and hands it to tools that collect results
// (mgmt-apply --events). A handle that takes no reports (see TakesReports)
// logs it with Logf.
func (i *Init) Report(c Change) { i.hooks().Report(c) }

// WantsText reports, inside CheckApply, whether the engine uses the texts
// (Old and New) of the text changes the call reports: to show or count
// their diff. When it returns false a kind may leave them out rather than
// read the old content.
func (i *Init) WantsText() bool { return i.hooks().WantsText() }

// Send describes a received value: which resource and key it came from and
// whether it changed since the last CheckApply.
type Send struct {
	Res     Res
	Key     string
	Changed bool
}

// World is the handle to the shared world: worldapi.Handle, the one type the
// world is passed along as. Resources that need it assert the narrower
// interface of pkg/world they use.
type World = worldapi.Handle

// WantsText reports init.WantsText(), true when there is no Init.
func WantsText(init *Init) bool {
	return init == nil || init.WantsText()
}

// Pending reports init.UpstreamPending(), false when there is no Init.
func Pending(init *Init) bool {
	return init != nil && init.UpstreamPending()
}
