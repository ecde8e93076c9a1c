package engine

// Refreshable is implemented by resources that act on refresh notifications
// (embed traits.Refreshable).
type Refreshable interface {
	Res
	Refreshable() bool
}

// A ResUID identifies a resource for automatic edges.
type ResUID interface {
	GetKind() string
	GetName() string
	// IFF reports whether uid identifies the same thing as the receiver.
	IFF(uid ResUID) bool
	// IsReversed reports whether the edge to the matching resource should
	// point from it to us (false) or from us to it (true).
	IsReversed() bool
}

// BaseUID is the common ResUID for kinds with no special matching.
type BaseUID struct {
	Name     string
	Kind     string
	Reversed *bool // nil or false: the match comes before us
}

// GetKind returns the kind.
func (u *BaseUID) GetKind() string { return u.Kind }

// GetName returns the name.
func (u *BaseUID) GetName() string { return u.Name }

// IFF reports whether uid has the same kind and name.
func (u *BaseUID) IFF(uid ResUID) bool {
	return uid.GetKind() == u.Kind && uid.GetName() == u.Name
}

// IsReversed reports the direction of the automatic edge.
func (u *BaseUID) IsReversed() bool { return u.Reversed != nil && *u.Reversed }

// AutoEdge iterates over candidate dependencies: Next returns the next UIDs
// to look for, and Test receives, for each of them, whether a match was
// found, returning false to stop.
type AutoEdge interface {
	Next() []ResUID
	Test(found []bool) bool
}

// Edgeable is implemented by resources that take part in automatic edges
// (embed traits.Edgeable for the metaparameter plumbing).
type Edgeable interface {
	Res
	UIDs() []ResUID
	AutoEdges() (AutoEdge, error)
}

// Groupable is implemented by resources that can be merged into one vertex
// (embed traits.Groupable for the bookkeeping).
type Groupable interface {
	Res
	// GroupCmp returns nil if r can be grouped into the receiver.
	GroupCmp(r Groupable) error
	// GroupRes adds r to the receiver's group.
	GroupRes(r Groupable) error
	IsGrouped() bool
	SetGrouped(bool)
	GetGroup() []Groupable
	SetGroup([]Groupable)
}

// Sendable is implemented by resources that send values over edges
// (embed traits.Sendable for Send/Sent).
type Sendable interface {
	Res
	// Sends returns a pointer to a zero struct whose `lang`-tagged fields
	// are the keys the resource can send.
	Sends() any
	Send(st any) error
	Sent() any
}

// Recvable is implemented by resources that receive values over edges
// (embed traits.Recvable).
type Recvable interface {
	Res
	SetRecv(map[string]*Send)
	Recv() map[string]*Send
}

// Reversible is implemented by resources that can undo themselves when they
// leave the graph (Meta:reverse).
type Reversible interface {
	Res
	// Reversed returns the resource that undoes the receiver's effect, or
	// nil if there is nothing to undo.
	Reversed() (Res, error)
}

// A Subscriber is a resource whose watch costs no goroutine while nothing
// happens: the engine calls Subscribe instead of Watch (unless Meta:poll
// is set). Subscribe starts following the resource's state and returns at
// once; from then on the resource calls its Init's Event for every change
// (Event never blocks, and may be called from any goroutine, the
// subscription's dispatcher included). If the watch breaks later, the
// resource calls fail once with the reason; the engine then handles it
// as a Watch that returned that error (retried as Meta:retry says, or
// polled when it names a kernel limit). fail must not be called after
// stop. The engine calls stop once, when the watch ends (the vertex stops,
// or after fail), and not from within an Event or fail call. A Subscriber
// still implements Watch: the engine uses it while a kernel limit keeps
// the resource polled.
type Subscriber interface {
	Res
	Subscribe(fail func(error)) (stop func(), err error)
}

// A ManagedPath is a path of the file system that a resource manages: the
// entry itself and, with Tree, everything below it.
type ManagedPath struct {
	Path string
	Tree bool
}

// PathManager is implemented by resources that manage paths of the file
// system, so that a directory that purges its unmanaged entries keeps
// them (see Init.Graph).
type PathManager interface {
	Res
	ManagedPaths() []ManagedPath
}

// Collectable lets a kind refuse to be collected from the world: when
// Collectable returns false, a collecting host drops every exported
// resource of the kind. Kinds that do not implement it may be collected.
// What a collected resource may carry is declared per parameter with a
// struct tag: `collect:"name"` (if set, it must equal the resource's name:
// it names the target) or `collect:"local"` (only the collecting host may
// set it); see graph.CollectRules.
type Collectable interface {
	Res
	Collectable() bool
}

// Retiring is implemented by kinds that no longer have some parameters
// which older graph.yaml documents still carry: RetiredParams maps each to
// what to use instead. The YAML decoder leaves them out with a warning
// (see graph.KindSchema.Retired); everywhere else they are unknown.
type Retiring interface {
	Res
	RetiredParams() map[string]string
}

// Constants is implemented by kinds whose parameters have named values:
// Consts maps a parameter (as mcl spells it) to its value names and their
// values, each of the parameter's type (int64 for int, string for str).
// mcl reads them as $const.res.<kind>.<param>.<value>.
type Constants interface {
	Res
	Consts() map[string]map[string]any
}
